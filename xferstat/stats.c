/*
 * stats.c: descriptive statistics of one sample.  See stats.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* Iglewicz and Hoaglin's constant: 0.6745 ~ the normal quantile at 0.75,
 * so that M is in SD units for normal data. */
#define MODZ_MAD_FACTOR 0.6745
/* sqrt(pi/2): E|X - mu| = sigma * sqrt(2/pi) for normal data. */
#define MODZ_MEANAD_FACTOR 1.253314

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

/* The power of two at or above max|x|, as an exponent, so that dividing
 * by it is exact and brings every value into [-1, 1]: sums of squares
 * then cannot overflow, whatever the magnitude of the data. */
static int scale_exponent(const double *x, size_t n)
{
	double big = 0.0;
	int e = 0;

	for (size_t i = 0; i < n; i++)
		if (fabs(x[i]) > big)
			big = fabs(x[i]);
	if (big == 0.0)
		return 0;
	frexp(big, &e);
	return e;
}

static double *scaled_sorted_copy(const double *x, size_t n, int e)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++)
		s[i] = ldexp(x[i], -e);
	gsl_sort(s, 1, n);
	return s;
}

/* Checks x and makes its scaled, sorted copy (*e the scale exponent).
 * Returns 0, -EINVAL or -ENOMEM. */
static int checked_scaled_copy(const double *x, size_t n, int *e, double **s)
{
	if (n == 0 || !x || !all_finite(x, n))
		return -EINVAL;
	*e = scale_exponent(x, n);
	*s = scaled_sorted_copy(x, n, *e);
	return *s ? 0 : -ENOMEM;
}

double xs_t_quantile(double level, double df)
{
	return gsl_cdf_tdist_Pinv((1.0 + level) / 2.0, df);
}

/* Fills the fields that need the spread; s is scaled by 2^-e. */
static void summarize_spread(const double *s, size_t n, int e, double level,
			     double mean_scaled, struct xs_summary *out)
{
	double tss = gsl_stats_tss_m(s, 1, n, mean_scaled);

	out->sd_population = ldexp(sqrt(tss / (double)n), e);
	out->has_sd = n >= 2;
	if (!out->has_sd) {
		out->sd = out->ci_lo = out->ci_hi = NAN;
		return;
	}
	double sd_scaled = sqrt(tss / (double)(n - 1));
	double half = xs_t_quantile(level, (double)(n - 1)) * sd_scaled / sqrt((double)n);

	out->sd = ldexp(sd_scaled, e);
	out->ci_lo = ldexp(mean_scaled - half, e);
	out->ci_hi = ldexp(mean_scaled + half, e);
}

int xs_summarize(const double *x, size_t n, double level, struct xs_summary *out)
{
	double *s;
	int e, rc;

	if (!(level > 0.0 && level < 1.0))
		return -EINVAL;
	rc = checked_scaled_copy(x, n, &e, &s);
	if (rc != 0)
		return rc;
	double mean_scaled = gsl_stats_mean(s, 1, n);

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->mean = ldexp(mean_scaled, e);
	out->median = ldexp(gsl_stats_median_from_sorted_data(s, 1, n), e);
	out->q1 = ldexp(gsl_stats_quantile_from_sorted_data(s, 1, n, 0.25), e);
	out->q3 = ldexp(gsl_stats_quantile_from_sorted_data(s, 1, n, 0.75), e);
	out->min = ldexp(s[0], e);
	out->max = ldexp(s[n - 1], e);
	summarize_spread(s, n, e, level, mean_scaled, out);
	free(s);
	return 0;
}

/* Median of |x_i - med| (scaled by 2^-e), or with mean_ad the mean of
 * them.  work has room for n values. */
static double abs_deviation(const double *x, size_t n, int e, double med,
			    bool mean_ad, double *work)
{
	for (size_t i = 0; i < n; i++)
		work[i] = fabs(ldexp(x[i], -e) - med);
	if (mean_ad)
		return gsl_stats_mean(work, 1, n);
	gsl_sort(work, 1, n);
	return gsl_stats_median_from_sorted_data(work, 1, n);
}

int xs_modified_z(const double *x, size_t n, double *m_out)
{
	double *s;
	int e, rc;

	if (!m_out)
		return -EINVAL;
	rc = checked_scaled_copy(x, n, &e, &s);
	if (rc != 0)
		return rc;
	double med = gsl_stats_median_from_sorted_data(s, 1, n);
	double factor = MODZ_MAD_FACTOR;
	double spread = abs_deviation(x, n, e, med, false, s);

	if (spread == 0.0) {
		spread = abs_deviation(x, n, e, med, true, s) * MODZ_MEANAD_FACTOR;
		factor = 1.0;
	}
	for (size_t i = 0; i < n; i++)
		m_out[i] = spread == 0.0 ? 0.0 : factor * (ldexp(x[i], -e) - med) / spread;
	free(s);
	return 0;
}

int xs_outliers(const double *x, size_t n, bool *flags, size_t *count)
{
	double *m;
	size_t k = 0;
	int rc;

	if (n == 0 || !flags)
		return -EINVAL;
	m = malloc(n * sizeof(*m));
	if (!m)
		return -ENOMEM;
	rc = xs_modified_z(x, n, m);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		flags[i] = fabs(m[i]) > XS_OUTLIER_Z;
		k += flags[i];
	}
	free(m);
	if (rc == 0 && count)
		*count = k;
	return rc;
}

/* Ratio estimator's standard error: s_d / (sqrt(n) mean(t)), with
 * d_i = b_i - R t_i.  Computed on b and t scaled by powers of two so that
 * neither the sums nor the squares overflow. */
static double ratio_se(const double *b, const double *t, size_t n, double rate,
		       int eb, int et)
{
	double r_scaled = ldexp(rate, et - eb);
	double tsum = 0.0, ss = 0.0, dmean = 0.0;

	for (size_t i = 0; i < n; i++) {
		double d = ldexp(b[i], -eb) - r_scaled * ldexp(t[i], -et);

		dmean += (d - dmean) / (double)(i + 1);
		tsum += ldexp(t[i], -et);
	}
	for (size_t i = 0; i < n; i++) {
		double d = ldexp(b[i], -eb) - r_scaled * ldexp(t[i], -et) - dmean;

		ss += d * d;
	}
	double sd = sqrt(ss / (double)(n - 1));

	return ldexp(sd / (sqrt((double)n) * (tsum / (double)n)), eb - et);
}

int xs_aggregate_rate(const double *bytes, const double *seconds, size_t n,
		      double level, struct xs_ratio *out)
{
	if (n == 0 || !bytes || !seconds || !out || !(level > 0.0 && level < 1.0))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(bytes[i]) || bytes[i] < 0.0 || !isfinite(seconds[i]) ||
		    !(seconds[i] > 0.0))
			return -EINVAL;
	int eb = scale_exponent(bytes, n), et = scale_exponent(seconds, n);
	double bsum = 0.0, tsum = 0.0;

	for (size_t i = 0; i < n; i++) {
		bsum += ldexp(bytes[i], -eb);
		tsum += ldexp(seconds[i], -et);
	}
	out->rate = ldexp(bsum / tsum, eb - et);
	out->has_ci = n >= 2;
	out->ci_lo = out->ci_hi = NAN;
	if (out->has_ci) {
		double half = xs_t_quantile(level, (double)(n - 1)) *
			      ratio_se(bytes, seconds, n, out->rate, eb, et);

		out->ci_lo = out->rate - half;
		out->ci_hi = out->rate + half;
	}
	return 0;
}
