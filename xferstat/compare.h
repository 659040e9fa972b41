/*
 * compare.h: conditions and the tests between them.
 *
 * Owns: turning a result set (results.h) into a condition (per-run times
 * and rates, their summaries, outlier flags, the mean rate), Welch's
 * t-test with the CI of the difference of means, the Mann-Whitney U
 * test, and a report: every condition, each compared with the first,
 * with a verdict in words.  Does not own: reading files, rendering
 * (table.h, termplot.h, plot.h), or printing.
 *
 * The decision "faster or not" is made on rates (bytes/s): Welch's test
 * on the per-run rates decides, at level alpha; the Mann-Whitney p-value
 * is reported beside it.  docs/xferstat-stats.md says why.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef XFERSTAT_COMPARE_H
#define XFERSTAT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "interval.h"
#include "results.h"
#include "stats.h"

/* Confidence level of every interval reported (the "ci95" of the JSON). */
#define XS_CI_LEVEL 0.95
/* Mann-Whitney: the exact null distribution is used when both samples
 * have at most this many values and there are no ties. */
#define XS_MW_EXACT_MAX 20

/* Welch's unequal-variance t-test of mean(b) - mean(a). */
struct xs_welch {
	bool defined;           /* false: n < 2 in a sample, or both SDs 0 */
	double diff;            /* mean(b) - mean(a) */
	double se;
	double t;
	double df;              /* Welch-Satterthwaite */
	double p;               /* two-sided */
	double ci_lo, ci_hi;    /* CI of diff at the level asked */
	const char *why_undefined;      /* when !defined: why, in words */
};
/* Returns 0, -EINVAL (empty sample, non-finite value, bad level) or
 * -ENOMEM.  An undefined test is not an error: out->defined says. */
int xs_welch(const double *a, size_t na, const double *b, size_t nb,
	     double level, struct xs_welch *out);

enum xs_mw_method {
	XS_MW_EXACT,            /* exact null distribution */
	XS_MW_NORMAL,           /* normal approximation, tie and continuity corrected */
};

/* Mann-Whitney U test, two-sided. */
struct xs_mann_whitney {
	bool defined;           /* false only when every value is the same */
	double u;               /* pairs (b_j, a_i) with b_j > a_i, ties count 1/2 */
	double p;
	bool ties;
	enum xs_mw_method method;
};
int xs_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    struct xs_mann_whitney *out);
const char *xs_mw_method_name(enum xs_mw_method m);

/* Checks that every run of the set can be measured: at least one run,
 * every time finite and > 0, every rate finite.  Returns 0, or -EINVAL
 * with err naming the set and the run. */
int xs_set_check(const struct xfer_set *set, char *err, size_t errlen);

/* One result set, measured. */
struct xs_condition {
	const char *label;      /* borrowed from the set */
	size_t n;
	double bytes_total;
	double *bytes;          /* per run */
	double *time;           /* per run, seconds */
	double *rate;           /* per run, bytes/s */
	double *block_size;     /* per run: NetPIPE message size, 0 if none */
	bool *outlier;          /* per run: by time or by rate (modified z) */
	size_t n_outliers;
	struct xs_summary time_s;
	struct xs_summary rate_s;       /* of the per-run rates */
	/* The rate reported as "mean": total bytes / total time, or with
	 * arith_rate the arithmetic mean of the per-run rates. */
	bool arith_rate;
	double rate_mean;
	/* The intervals reported for the mean time and rate (interval.h). */
	struct xs_interval time_ci, rate_ci;
};

/* One condition against the reference (the first). */
struct xs_comparison {
	struct xs_welch rate_welch, time_welch;
	struct xs_mann_whitney rate_mw, time_mw;
	double rate_change;     /* rate_mean(b) / rate_mean(a) - 1, NAN if a's is 0 */
	double time_change;     /* mean time(b) / mean time(a) - 1 */
	bool proven;            /* Welch p < alpha, in the direction of rate_change */
	char verdict[256];
};

struct xs_options {
	double alpha;           /* level of the tests, (0, 1); default 0.05 */
	bool arith_rate;        /* report the arithmetic mean of rates */
	bool dev_population;    /* the table's Dev. row is the population SD */
	enum xs_ci_method ci;   /* interval of mean time and rate; XS_CI_AUTO by default */
};
#define XS_ALPHA_DEFAULT 0.05

struct xs_report {
	size_t n;
	struct xs_condition *cond;      /* n conditions */
	struct xs_comparison *cmp;      /* cmp[i] is cond[i] against cond[0]; cmp[0] unused */
	struct xs_options opt;
};

/* Builds the report; it borrows the labels of sets, so free it first.
 * Returns 0, or -EINVAL with err naming the set and
 * run at fault (no set, a set without runs, a run with seconds <= 0 or
 * not finite, bad alpha), or -ENOMEM.  On error nothing is left to free. */
int xs_report_build(struct xs_report *r, const struct xfer_set *sets, size_t n,
		    const struct xs_options *opt, char *err, size_t errlen);
void xs_report_free(struct xs_report *r);

/* Verdict of cmp for condition b against a, in words, into buf. */
void xs_verdict_text(const struct xs_comparison *cmp, const char *a, const char *b,
		     char *buf, size_t len);
/* "p = 0.041", "p < 0.0001", "p = n/a": into buf. */
void xs_format_p(double p, bool defined, char *buf, size_t len);

#endif
