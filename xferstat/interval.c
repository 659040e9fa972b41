/*
 * interval.c: intervals of a mean time or rate that stay above zero.
 * See interval.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "interval.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static const char *const method_names[] = {
	[XS_CI_AUTO] = "auto",
	[XS_CI_T] = "t",
	[XS_CI_LOG] = "log",
	[XS_CI_BOOTSTRAP] = "bootstrap",
};

const char *xs_ci_method_name(enum xs_ci_method m)
{
	return (unsigned)m < sizeof(method_names) / sizeof(method_names[0]) ? method_names[m]
									    : NULL;
}

bool xs_ci_method_from_name(const char *name, enum xs_ci_method *out)
{
	for (unsigned i = 0; i < sizeof(method_names) / sizeof(method_names[0]); i++) {
		if (strcmp(method_names[i], name) == 0) {
			*out = (enum xs_ci_method)i;
			return true;
		}
	}
	return false;
}

/* What a resample measures: sum(num) / sum(den) over the runs drawn, or
 * the mean of num when den is NULL. */
struct sample {
	const double *num, *den;
	size_t n;
};

/* One resample's statistic; each term is divided by n first, so that
 * no sum of values up to DBL_MAX overflows. */
static double resample(const struct sample *s, gsl_rng *rng)
{
	double top = 0.0, bottom = 0.0, w = 1.0 / (double)s->n;

	for (size_t i = 0; i < s->n; i++) {
		size_t k = gsl_rng_uniform_int(rng, s->n);

		top += s->num[k] * w;
		bottom += s->den ? s->den[k] * w : w;
	}
	return top / bottom;
}

/* Percentile bootstrap: the (1 -+ level) / 2 quantiles of the statistic
 * over XS_CI_RESAMPLES resamples, from a generator seeded with
 * XS_CI_SEED (MT19937). */
static int bootstrap(const struct sample *s, double level, double *lo, double *hi)
{
	double *stat = malloc(XS_CI_RESAMPLES * sizeof(*stat));
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	if (!stat || !rng) {
		free(stat);
		gsl_rng_free(rng);
		return -ENOMEM;
	}
	gsl_rng_set(rng, XS_CI_SEED);
	for (size_t b = 0; b < XS_CI_RESAMPLES; b++)
		stat[b] = resample(s, rng);
	gsl_sort(stat, 1, XS_CI_RESAMPLES);
	*lo = gsl_stats_quantile_from_sorted_data(stat, 1, XS_CI_RESAMPLES, (1.0 - level) / 2.0);
	*hi = gsl_stats_quantile_from_sorted_data(stat, 1, XS_CI_RESAMPLES, (1.0 + level) / 2.0);
	gsl_rng_free(rng);
	free(stat);
	return 0;
}

/* The log-scale interval: the t-interval's half-width h taken on the
 * log of the estimate (delta method, SE(log m) = SE(m) / m), so
 * m exp(-h/m) .. m exp(h/m), which is above zero for any h. */
static void log_interval(double est, double t_lo, double t_hi, double *lo, double *hi)
{
	double rel = (t_hi - t_lo) / 2.0 / est;

	*lo = est * exp(-rel);
	*hi = est * exp(rel);
}

static enum xs_ci_method choose(enum xs_ci_method want, size_t n, double skewness,
				bool t_below_zero)
{
	if (want == XS_CI_AUTO)
		want = n < XS_CI_SMALL_N && fabs(skewness) > XS_CI_SKEWED ? XS_CI_BOOTSTRAP : XS_CI_T;
	return want == XS_CI_T && t_below_zero ? XS_CI_LOG : want;
}

static int interval(const struct sample *s, const double *values, double est, double level,
		    double t_lo, double t_hi, enum xs_ci_method want, struct xs_interval *out)
{
	memset(out, 0, sizeof(*out));
	out->lo = out->hi = out->t_lo = out->t_hi = out->skewness = NAN;
	out->defined = s->n >= 2;
	if (!out->defined) {
		out->method = want == XS_CI_AUTO ? XS_CI_T : want;
		return 0;
	}
	out->t_lo = t_lo;
	out->t_hi = t_hi;
	out->t_below_zero = t_lo < 0.0;
	if (s->n >= 3)
		out->skewness = gsl_stats_skew(values, 1, s->n);
	out->method = choose(want, s->n, out->skewness, out->t_below_zero);
	switch (out->method) {
	case XS_CI_BOOTSTRAP:
		return bootstrap(s, level, &out->lo, &out->hi);
	case XS_CI_LOG:
		log_interval(est, t_lo, t_hi, &out->lo, &out->hi);
		return 0;
	default:
		out->lo = t_lo;
		out->hi = t_hi;
		return 0;
	}
}

static bool positive_values(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || x[i] < 0.0)
			return false;
	return n > 0;
}

static bool good_args(size_t n, double level, enum xs_ci_method want)
{
	return n > 0 && level > 0.0 && level < 1.0 && xs_ci_method_name(want);
}

int xs_interval_mean(const double *x, size_t n, double level, double t_lo, double t_hi,
		     enum xs_ci_method want, struct xs_interval *out)
{
	if (!x || !out || !good_args(n, level, want) || !positive_values(x, n))
		return -EINVAL;
	struct sample s = { x, NULL, n };
	return interval(&s, x, gsl_stats_mean(x, 1, n), level, t_lo, t_hi, want, out);
}

int xs_interval_ratio(const double *bytes, const double *seconds, size_t n, double level,
		      double t_lo, double t_hi, enum xs_ci_method want, struct xs_interval *out)
{
	if (!bytes || !seconds || !out || !good_args(n, level, want) ||
	    !positive_values(bytes, n) || !positive_values(seconds, n))
		return -EINVAL;
	double *rate = malloc(n * sizeof(*rate));
	if (!rate)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rate[i] = seconds[i] > 0.0 ? bytes[i] / seconds[i] : 0.0;
	struct sample s = { bytes, seconds, n };
	double est = t_lo / 2.0 + t_hi / 2.0;     /* R: the t-interval is R +- h */
	int rc = interval(&s, rate, est, level, t_lo, t_hi, want, out);
	free(rate);
	return rc;
}
