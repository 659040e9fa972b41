/*
 * stats.h: descriptive statistics of one sample (GSL underneath).
 *
 * Owns: n, mean, sample and population standard deviation, median,
 * quartiles, min, max, the Student-t confidence interval of the mean,
 * outlier flags by the modified z-score (Iglewicz and Hoaglin), and the
 * aggregate rate of a set of transfers (total bytes over total time) with
 * its confidence interval.  Does not own: what a sample means (times or
 * rates, see compare.h), tests between samples, or any output.
 *
 * Every quantity that is undefined for the sample at hand (the SD of one
 * value, a CI from one value) is flagged as such and never stored as a
 * number a caller could print by mistake.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_STATS_H
#define XFERSTAT_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* |M| above this marks an outlier (Iglewicz and Hoaglin, 1993). */
#define XS_OUTLIER_Z 3.5

struct xs_summary {
	size_t n;
	double mean;
	double median;
	double q1, q3;          /* quartiles (GSL's linear interpolation) */
	double min, max;
	double sd_population;   /* divisor n; 0 for a single value */
	bool has_sd;            /* n >= 2: sd and the CI below are defined */
	double sd;              /* sample SD, divisor n - 1 */
	double ci_lo, ci_hi;    /* CI of the mean at the level asked */
};

/* Summarises x[0..n-1] with a `level` (e.g. 0.95) CI of the mean.
 * Returns 0, -EINVAL (n == 0, a value not finite, level not in (0,1)) or
 * -ENOMEM.  Values up to DBL_MAX are handled without overflow. */
int xs_summarize(const double *x, size_t n, double level, struct xs_summary *out);

/* Two-sided Student-t quantile for a `level` interval with df degrees of
 * freedom: gsl_cdf_tdist_Pinv((1 + level) / 2, df). */
double xs_t_quantile(double level, double df);

/* Modified z-scores M_i = 0.6745 (x_i - median) / MAD.  When MAD is 0
 * (more than half the values equal) the mean absolute deviation from the
 * median takes its place: M_i = (x_i - median) / (1.253314 MeanAD); when
 * that is 0 too, every value equals the median and every M_i is 0.
 * Returns 0, -EINVAL or -ENOMEM. */
int xs_modified_z(const double *x, size_t n, double *m_out);

/* Flags outliers (|M| > XS_OUTLIER_Z); *count receives how many (may be
 * NULL).  Returns 0, -EINVAL or -ENOMEM. */
int xs_outliers(const double *x, size_t n, bool *flags, size_t *count);

/* The aggregate rate of transfers i = 0..n-1 that moved bytes[i] in
 * seconds[i] > 0: R = sum(bytes) / sum(seconds), which is the harmonic
 * mean of the per-run rates weighted by bytes.  Its CI (when n >= 2) is
 * the ratio estimator's: R +- t(level, n-1) * s_d / (sqrt(n) * mean(t)),
 * s_d the sample SD of d_i = bytes[i] - R * seconds[i] (delta method). */
struct xs_ratio {
	double rate;
	bool has_ci;
	double ci_lo, ci_hi;
};
int xs_aggregate_rate(const double *bytes, const double *seconds, size_t n,
		      double level, struct xs_ratio *out);

#endif
