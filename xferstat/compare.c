/*
 * compare.c: conditions, Welch's t-test, the Mann-Whitney U test, and
 * the report that compares every condition with the first.  See
 * compare.h; the choices are explained in docs/xferstat-stats.md.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "compare.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_sort_double.h>

/* ---- Welch ------------------------------------------------------------ */

int xs_welch(const double *a, size_t na, const double *b, size_t nb,
	     double level, struct xs_welch *out)
{
	struct xs_summary sa, sb;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = xs_summarize(a, na, level, &sa);
	if (rc == 0)
		rc = xs_summarize(b, nb, level, &sb);
	if (rc != 0)
		return rc;
	out->diff = sb.mean - sa.mean;
	out->se = out->t = out->df = out->p = out->ci_lo = out->ci_hi = NAN;
	if (!sa.has_sd || !sb.has_sd) {
		out->why_undefined = "at least 2 runs in each condition needed";
		return 0;
	}
	/* Variances of the means, in units of the larger SD squared, so that
	 * neither squaring nor the fourth powers in df overflow. */
	double k = fmax(sa.sd, sb.sd);

	if (k == 0.0) {
		out->why_undefined = "no spread in either condition";
		return 0;
	}
	double ua = (sa.sd / k) * (sa.sd / k) / (double)na;
	double ub = (sb.sd / k) * (sb.sd / k) / (double)nb;

	out->defined = true;
	out->se = k * sqrt(ua + ub);
	out->df = (ua + ub) * (ua + ub) /
		  (ua * ua / (double)(na - 1) + ub * ub / (double)(nb - 1));
	out->t = out->diff / out->se;
	out->p = fmin(1.0, 2.0 * gsl_cdf_tdist_Q(fabs(out->t), out->df));
	double half = xs_t_quantile(level, out->df) * out->se;

	out->ci_lo = out->diff - half;
	out->ci_hi = out->diff + half;
	return 0;
}

/* ---- Mann-Whitney ------------------------------------------------------- */

const char *xs_mw_method_name(enum xs_mw_method m)
{
	return m == XS_MW_EXACT ? "exact" : "normal approximation, tie and continuity corrected";
}

struct ranked {
	double value;
	bool from_b;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *p = x, *q = y;

	return (p->value > q->value) - (p->value < q->value);
}

/* Midranks of the pooled sample: the rank sum of b and the tie term
 * sum(t^3 - t) over groups of equal values. */
static void rank_sums(const struct ranked *v, size_t n, double *rank_sum_b,
		      double *tie_term)
{
	*rank_sum_b = 0.0;
	*tie_term = 0.0;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && v[j].value == v[i].value)
			j++;
		double t = (double)(j - i);
		double midrank = ((double)i + 1.0 + (double)j) / 2.0;

		for (size_t k = i; k < j; k++)
			if (v[k].from_b)
				*rank_sum_b += midrank;
		*tie_term += t * t * t - t;
		i = j;
	}
}

/* P(U >= u) under the null for samples of m and n values without ties.
 * P_{m,n}(u) = m/(m+n) P_{m-1,n}(u-n) + n/(m+n) P_{m,n-1}(u): the largest
 * value comes from the first sample with probability m/(m+n), and then
 * beats all n values of the second.  Probabilities, not counts, so every
 * term is positive and nothing cancels.  Returns -1 on ENOMEM. */
static double exact_upper_tail(size_t m, size_t n, size_t u)
{
	size_t width = m * n + 1;
	double *prev = calloc((m + 1) * width, sizeof(double));
	double *cur = calloc((m + 1) * width, sizeof(double));
	double tail = 0.0;

	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -1.0;
	}
	for (size_t i = 0; i <= m; i++)
		prev[i * width] = 1.0;  /* n' = 0: U is 0 */
	for (size_t nn = 1; nn <= n; nn++) {
		memset(cur, 0, (m + 1) * width * sizeof(double));
		cur[0] = 1.0;
		for (size_t mm = 1; mm <= m; mm++) {
			double pa = (double)mm / (double)(mm + nn), pb = 1.0 - pa;
			double *row = cur + mm * width;
			const double *left = cur + (mm - 1) * width, *up = prev + mm * width;

			for (size_t k = 0; k <= mm * nn; k++)
				row[k] = (k >= nn ? pa * left[k - nn] : 0.0) +
					 (k <= mm * (nn - 1) ? pb * up[k] : 0.0);
		}
		double *swap = prev;

		prev = cur;
		cur = swap;
	}
	for (size_t k = m * n + 1; k-- > u;)
		tail += prev[m * width + k];
	free(prev);
	free(cur);
	return tail;
}

static int mw_p_value(size_t na, size_t nb, double tie_term, struct xs_mann_whitney *out)
{
	double u = fmax(out->u, (double)na * (double)nb - out->u);

	if (!out->ties && na <= XS_MW_EXACT_MAX && nb <= XS_MW_EXACT_MAX) {
		double tail = exact_upper_tail(na, nb, (size_t)u);

		if (tail < 0.0)
			return -ENOMEM;
		out->method = XS_MW_EXACT;
		out->p = fmin(1.0, 2.0 * tail);
		out->defined = true;
		return 0;
	}
	double n = (double)(na + nb);
	double mu = (double)na * (double)nb / 2.0;
	double s = sqrt((double)na * (double)nb / 12.0 *
			((n + 1.0) - tie_term / (n * (n - 1.0))));

	out->method = XS_MW_NORMAL;
	out->defined = s > 0.0;
	out->p = out->defined ? fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q((u - mu - 0.5) / s)) : NAN;
	return 0;
}

int xs_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    struct xs_mann_whitney *out)
{
	struct ranked *v;
	double rank_sum_b, tie_term;
	int rc;

	memset(out, 0, sizeof(*out));
	out->p = NAN;
	if (na == 0 || nb == 0 || !a || !b)
		return -EINVAL;
	v = malloc((na + nb) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < na + nb; i++) {
		v[i].from_b = i >= na;
		v[i].value = i < na ? a[i] : b[i - na];
		if (!isfinite(v[i].value)) {
			free(v);
			return -EINVAL;
		}
	}
	qsort(v, na + nb, sizeof(*v), cmp_ranked);
	rank_sums(v, na + nb, &rank_sum_b, &tie_term);
	free(v);
	out->ties = tie_term > 0.0;
	out->u = rank_sum_b - (double)nb * ((double)nb + 1.0) / 2.0;
	rc = mw_p_value(na, nb, tie_term, out);
	return rc;
}

/* ---- conditions ----------------------------------------------------------- */

int xs_set_check(const struct xfer_set *set, char *err, size_t errlen)
{
	const char *label = set->label ? set->label : "(unlabelled)";

	if (set->n_runs == 0) {
		snprintf(err, errlen, "set '%s' has no runs", label);
		return -EINVAL;
	}
	for (size_t i = 0; i < set->n_runs; i++) {
		double t = set->runs[i].seconds;

		if (!isfinite(t) || !(t > 0.0)) {
			snprintf(err, errlen, "set '%s', run %zu: time %g s: a run must take more than 0 s",
				 label, i + 1, t);
			return -EINVAL;
		}
		if (!isfinite((double)set->runs[i].bytes / t)) {
			snprintf(err, errlen, "set '%s', run %zu: %" PRIu64 " bytes in %g s is not a finite rate",
				 label, i + 1, set->runs[i].bytes, t);
			return -EINVAL;
		}
	}
	return 0;
}

static void condition_free(struct xs_condition *c)
{
	free(c->bytes);
	free(c->time);
	free(c->rate);
	free(c->block_size);
	free(c->outlier);
	memset(c, 0, sizeof(*c));
}

static int condition_alloc(struct xs_condition *c, size_t n)
{
	c->bytes = malloc(n * sizeof(double));
	c->time = malloc(n * sizeof(double));
	c->rate = malloc(n * sizeof(double));
	c->block_size = malloc(n * sizeof(double));
	c->outlier = calloc(n, sizeof(bool));
	if (!c->bytes || !c->time || !c->rate || !c->block_size || !c->outlier) {
		condition_free(c);
		return -ENOMEM;
	}
	return 0;
}

/* Scratch space for judging one group of runs. */
struct outlier_work {
	double *time, *rate;
	bool *by_time, *by_rate;
};

/* Flags the runs idx[0..n-1] whose time or rate is an outlier among
 * them. */
static int group_outliers(struct xs_condition *c, const size_t *idx, size_t n,
			  struct outlier_work *w)
{
	int rc;

	for (size_t j = 0; j < n; j++) {
		w->time[j] = c->time[idx[j]];
		w->rate[j] = c->rate[idx[j]];
	}
	rc = xs_outliers(w->time, n, w->by_time, NULL);
	if (rc == 0)
		rc = xs_outliers(w->rate, n, w->by_rate, NULL);
	for (size_t j = 0; rc == 0 && j < n; j++) {
		c->outlier[idx[j]] = w->by_time[j] || w->by_rate[j];
		c->n_outliers += c->outlier[idx[j]];
	}
	return rc;
}

/* Outliers are judged among runs of the same block size: a NetPIPE sweep
 * is many small samples, one per size, not one sample. */
static int condition_outliers(struct xs_condition *c)
{
	size_t *idx = malloc(c->n * sizeof(*idx));
	struct outlier_work w = {
		malloc(c->n * sizeof(double)), malloc(c->n * sizeof(double)),
		malloc(c->n * sizeof(bool)), malloc(c->n * sizeof(bool)),
	};
	int rc = idx && w.time && w.rate && w.by_time && w.by_rate ? 0 : -ENOMEM;

	c->n_outliers = 0;
	if (rc == 0)
		gsl_sort_index(idx, c->block_size, 1, c->n);
	for (size_t i = 0; rc == 0 && i < c->n;) {
		size_t j = i;

		while (j < c->n && c->block_size[idx[j]] == c->block_size[idx[i]])
			j++;
		rc = group_outliers(c, idx + i, j - i, &w);
		i = j;
	}
	free(idx);
	free(w.time);
	free(w.rate);
	free(w.by_time);
	free(w.by_rate);
	return rc;
}

static int condition_rate_mean(struct xs_condition *c, enum xs_ci_method ci)
{
	struct xs_ratio agg;
	int rc;

	if (c->arith_rate) {
		c->rate_mean = c->rate_s.mean;
		return xs_interval_mean(c->rate, c->n, XS_CI_LEVEL, c->rate_s.ci_lo, c->rate_s.ci_hi,
					ci, &c->rate_ci);
	}
	rc = xs_aggregate_rate(c->bytes, c->time, c->n, XS_CI_LEVEL, &agg);
	if (rc != 0)
		return rc;
	c->rate_mean = agg.rate;
	return xs_interval_ratio(c->bytes, c->time, c->n, XS_CI_LEVEL, agg.ci_lo, agg.ci_hi, ci,
				 &c->rate_ci);
}

static int condition_build(struct xs_condition *c, const struct xfer_set *set, bool arith_rate,
			   enum xs_ci_method ci)
{
	int rc;

	memset(c, 0, sizeof(*c));
	rc = condition_alloc(c, set->n_runs);
	if (rc != 0)
		return rc;
	c->label = set->label ? set->label : "(unlabelled)";
	c->n = set->n_runs;
	c->arith_rate = arith_rate;
	for (size_t i = 0; i < c->n; i++) {
		c->bytes[i] = (double)set->runs[i].bytes;
		c->time[i] = set->runs[i].seconds;
		c->rate[i] = c->bytes[i] / c->time[i];
		c->block_size[i] = (double)set->runs[i].block_size;
		c->bytes_total += c->bytes[i];
	}
	rc = xs_summarize(c->time, c->n, XS_CI_LEVEL, &c->time_s);
	if (rc == 0)
		rc = xs_summarize(c->rate, c->n, XS_CI_LEVEL, &c->rate_s);
	if (rc == 0)
		rc = condition_outliers(c);
	if (rc == 0)
		rc = xs_interval_mean(c->time, c->n, XS_CI_LEVEL, c->time_s.ci_lo, c->time_s.ci_hi,
				      ci, &c->time_ci);
	if (rc == 0)
		rc = condition_rate_mean(c, ci);
	if (rc != 0)
		condition_free(c);
	return rc;
}

/* ---- verdicts ------------------------------------------------------------- */

void xs_format_p(double p, bool defined, char *buf, size_t len)
{
	if (!defined || !isfinite(p))
		snprintf(buf, len, "p = n/a");
	else if (p < 0.0001)
		snprintf(buf, len, "p < 0.0001");
	else
		snprintf(buf, len, "p = %#.2g", p);
}

static void format_percent(double fraction, char *buf, size_t len)
{
	double pct = fabs(fraction) * 100.0;

	snprintf(buf, len, pct >= 10.0 ? "%.0f" : pct >= 1.0 ? "%.1f" : "%.2f", pct);
}

void xs_verdict_text(const struct xs_comparison *cmp, const char *a, const char *b,
		     char *buf, size_t len)
{
	const struct xs_welch *w = &cmp->rate_welch;
	char pw[32], pm[32], pct[32];

	xs_format_p(w->p, w->defined, pw, sizeof(pw));
	xs_format_p(cmp->rate_mw.p, cmp->rate_mw.defined, pm, sizeof(pm));
	if (!w->defined) {
		snprintf(buf, len, "%s against %s: not tested (%s)", b, a, w->why_undefined);
		return;
	}
	if (!cmp->proven) {
		snprintf(buf, len, "%s against %s: no difference proven (rate, Welch %s, Mann-Whitney %s)",
			 b, a, pw, pm);
		return;
	}
	format_percent(cmp->rate_change, pct, sizeof(pct));
	snprintf(buf, len, "%s is %s %% %s than %s (rate, Welch %s, Mann-Whitney %s)", b, pct,
		 cmp->rate_change > 0.0 ? "faster" : "slower", a, pw, pm);
}

static double relative_change(double b, double a)
{
	return a != 0.0 ? b / a - 1.0 : NAN;
}

static int compare_build(struct xs_comparison *cmp, const struct xs_condition *a,
			 const struct xs_condition *b, double alpha)
{
	int rc;

	memset(cmp, 0, sizeof(*cmp));
	rc = xs_welch(a->rate, a->n, b->rate, b->n, XS_CI_LEVEL, &cmp->rate_welch);
	if (rc == 0)
		rc = xs_welch(a->time, a->n, b->time, b->n, XS_CI_LEVEL, &cmp->time_welch);
	if (rc == 0)
		rc = xs_mann_whitney(a->rate, a->n, b->rate, b->n, &cmp->rate_mw);
	if (rc == 0)
		rc = xs_mann_whitney(a->time, a->n, b->time, b->n, &cmp->time_mw);
	if (rc != 0)
		return rc;
	cmp->rate_change = relative_change(b->rate_mean, a->rate_mean);
	cmp->time_change = relative_change(b->time_s.mean, a->time_s.mean);
	/* Welch's difference is of arithmetic means of the rates; with the
	 * aggregate as the reported mean both almost always point the same
	 * way, and when they do not, nothing is proven. */
	cmp->proven = cmp->rate_welch.defined && cmp->rate_welch.p < alpha &&
		      isfinite(cmp->rate_change) &&
		      (cmp->rate_change > 0.0) == (cmp->rate_welch.diff > 0.0) &&
		      cmp->rate_change != 0.0;
	xs_verdict_text(cmp, a->label, b->label, cmp->verdict, sizeof(cmp->verdict));
	return 0;
}

/* ---- report ----------------------------------------------------------------- */

void xs_report_free(struct xs_report *r)
{
	for (size_t i = 0; r->cond && i < r->n; i++)
		condition_free(&r->cond[i]);
	free(r->cond);
	free(r->cmp);
	memset(r, 0, sizeof(*r));
}

static int report_fill(struct xs_report *r, const struct xfer_set *sets)
{
	for (size_t i = 0; i < r->n; i++) {
		int rc = condition_build(&r->cond[i], &sets[i], r->opt.arith_rate, r->opt.ci);

		if (rc != 0)
			return rc;
	}
	for (size_t i = 1; i < r->n; i++) {
		int rc = compare_build(&r->cmp[i], &r->cond[0], &r->cond[i], r->opt.alpha);

		if (rc != 0)
			return rc;
	}
	return 0;
}

int xs_report_build(struct xs_report *r, const struct xfer_set *sets, size_t n,
		    const struct xs_options *opt, char *err, size_t errlen)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (n == 0) {
		snprintf(err, errlen, "no result set to compare");
		return -EINVAL;
	}
	if (!(opt->alpha > 0.0 && opt->alpha < 1.0)) {
		snprintf(err, errlen, "alpha %g: must be between 0 and 1", opt->alpha);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		rc = xs_set_check(&sets[i], err, errlen);
		if (rc != 0)
			return rc;
	}
	r->opt = *opt;
	r->n = n;
	r->cond = calloc(n, sizeof(*r->cond));
	r->cmp = calloc(n, sizeof(*r->cmp));
	rc = r->cond && r->cmp ? report_fill(r, sets) : -ENOMEM;
	if (rc != 0) {
		snprintf(err, errlen, "out of memory");
		xs_report_free(r);
	}
	return rc;
}
