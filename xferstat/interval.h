/*
 * interval.h: the confidence interval of a mean time or rate, one that
 * never goes below zero.
 *
 * Owns: the choice between the Student-t interval, a log-scale interval
 * and a percentile bootstrap, and their computation (a seeded RNG: the
 * same runs give the same interval every time).  Does not own: the
 * summaries (stats.h), what the values are (compare.h), or output.
 *
 * Times and rates are positive and, over a fast link with the odd
 * stall, skewed: the t-interval of a few tiny times with one outlier
 * reaches below zero (issue 28: [-0.0009, 0.0026] s for file:// runs).
 * The rule (XS_CI_AUTO): the bootstrap for fewer than XS_CI_SMALL_N
 * runs whose values are skewed (|skewness| > XS_CI_SKEWED); otherwise
 * the t-interval, or the log-scale one where the t-interval's lower bound
 * is below zero.  An interval asked for by name is given, except a
 * t-interval below zero, which becomes the log-scale one (said so).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_INTERVAL_H
#define XFERSTAT_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>

#define XS_CI_SMALL_N 30
#define XS_CI_SKEWED 1.0
#define XS_CI_RESAMPLES 10000
#define XS_CI_SEED 28u

enum xs_ci_method {
	XS_CI_AUTO = 0,         /* as asked: the rule above */
	XS_CI_T,                /* Student t: mean +- t SE */
	XS_CI_LOG,              /* log scale: mean * exp(+-t SE / mean) */
	XS_CI_BOOTSTRAP,        /* percentile bootstrap of the mean */
};

struct xs_interval {
	bool defined;           /* n >= 2 */
	double lo, hi;          /* the interval reported, never below 0 */
	enum xs_ci_method method;       /* the one computed (never AUTO) */
	bool t_below_zero;      /* the t-interval's lower bound was below 0 */
	double t_lo, t_hi;      /* the Student-t interval, for reference */
	double skewness;        /* of the values (NAN for n < 3) */
};

/* "auto", "t", "log", "bootstrap"; NULL out of range. */
const char *xs_ci_method_name(enum xs_ci_method m);
bool xs_ci_method_from_name(const char *name, enum xs_ci_method *out);

/* The interval of the mean of x[0..n-1] (positive values); t_lo, t_hi
 * the Student-t interval at the same level.  Returns 0, -EINVAL (n == 0,
 * a value not finite or negative, bad level) or -ENOMEM. */
int xs_interval_mean(const double *x, size_t n, double level, double t_lo, double t_hi,
		     enum xs_ci_method want, struct xs_interval *out);

/* The interval of the aggregate rate sum(bytes) / sum(seconds), whose
 * t-interval (the ratio estimator's) is t_lo, t_hi; the skewness is that
 * of the per-run rates; the bootstrap resamples runs. */
int xs_interval_ratio(const double *bytes, const double *seconds, size_t n, double level,
		      double t_lo, double t_hi, enum xs_ci_method want, struct xs_interval *out);

#endif
