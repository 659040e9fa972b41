/*
 * test_stats.c: descriptive statistics of one sample (xferstat/stats.c).
 *
 * Expected values are worked out by hand in the comments (or, for the
 * t quantiles, are the published table values to the digits shown).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "interval.h"
#include "stats.h"

/* Student t 0.975 quantiles: for 7 df checked against the closed-form
 * CDF of odd df, F(t) = 1/2 + (th + sin th (c + 2/3 c^3 + 8/15 c^5)) / pi,
 * th = atan(t / sqrt 7), c = cos th; for 1 df tan(0.475 pi). */
#define T975_7 2.3646242515927844
#define T975_1 12.706204736174696

static void assert_close(double got, double want, double rel)
{
	double tol = rel * fmax(fabs(want), 1e-300);

	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g (rel. tolerance %g)", got, want, rel);
}

static void textbook_sample(void **state)
{
	/* mean 5, squared deviations sum 32: population SD 2, sample
	 * SD sqrt(32/7); median (4 + 5) / 2. */
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct xs_summary s;

	assert_int_equal(xs_summarize(x, 8, 0.95, &s), 0);
	assert_int_equal(s.n, 8);
	assert_close(s.mean, 5.0, 1e-15);
	assert_close(s.sd_population, 2.0, 1e-15);
	assert_true(s.has_sd);
	assert_close(s.sd, sqrt(32.0 / 7.0), 1e-15);
	assert_close(s.median, 4.5, 1e-15);
	assert_close(s.min, 2.0, 0);
	assert_close(s.max, 9.0, 0);
	double half = T975_7 * sqrt(32.0 / 7.0) / sqrt(8.0);

	assert_close(s.ci_lo, 5.0 - half, 1e-12);
	assert_close(s.ci_hi, 5.0 + half, 1e-12);
	assert_close(s.q1, 4.0, 1e-15);
	assert_close(s.q3, 5.5, 1e-15);
}

static void single_value_has_no_sd(void **state)
{
	const double x[] = { 3.25 };
	struct xs_summary s;

	assert_int_equal(xs_summarize(x, 1, 0.95, &s), 0);
	assert_false(s.has_sd);
	assert_true(isnan(s.sd));           /* never a 0 that looks real */
	assert_true(isnan(s.ci_lo) && isnan(s.ci_hi));
	assert_close(s.sd_population, 0.0, 0);
	assert_close(s.mean, 3.25, 0);
	assert_close(s.median, 3.25, 0);
}

static void two_values(void **state)
{
	const double x[] = { 3, 1 };
	struct xs_summary s;

	assert_int_equal(xs_summarize(x, 2, 0.95, &s), 0);
	assert_close(s.mean, 2.0, 0);
	assert_close(s.sd, sqrt(2.0), 1e-15);
	assert_close(s.sd_population, 1.0, 1e-15);
	assert_close(s.median, 2.0, 0);
	/* half width t(1) * sqrt(2) / sqrt(2) */
	assert_close(s.ci_lo, 2.0 - T975_1, 1e-9);
	assert_close(s.ci_hi, 2.0 + T975_1, 1e-9);
}

static void all_equal_values(void **state)
{
	const double x[] = { 7.5, 7.5, 7.5, 7.5 };
	struct xs_summary s;
	bool flags[4] = { true, true, true, true };
	size_t count = 99;

	assert_int_equal(xs_summarize(x, 4, 0.95, &s), 0);
	assert_true(s.has_sd);
	assert_close(s.sd, 0.0, 0);
	assert_close(s.ci_lo, 7.5, 0);
	assert_close(s.ci_hi, 7.5, 0);
	assert_int_equal(xs_outliers(x, 4, flags, &count), 0);
	assert_int_equal(count, 0);
	for (int i = 0; i < 4; i++)
		assert_false(flags[i]);
}

static void huge_values_do_not_overflow(void **state)
{
	const double x[] = { DBL_MAX, DBL_MAX / 2, DBL_MAX / 4 };
	struct xs_summary s;

	assert_int_equal(xs_summarize(x, 3, 0.95, &s), 0);
	assert_close(s.mean, DBL_MAX * (7.0 / 12.0), 1e-15);
	assert_true(isfinite(s.sd));
	/* deviations 5/12, -1/12, -4/12 of DBL_MAX: sum of squares 42/144 */
	assert_close(s.sd, DBL_MAX * sqrt(42.0 / 144.0 / 2.0), 1e-14);
	assert_true(s.ci_hi > s.mean && s.ci_lo < s.mean); /* ci_hi may be +inf */
	assert_close(s.median, DBL_MAX / 2, 0);
}

static void tiny_values_keep_precision(void **state)
{
	const double x[] = { 1e-300, 3e-300 };
	struct xs_summary s;

	assert_int_equal(xs_summarize(x, 2, 0.95, &s), 0);
	assert_close(s.mean, 2e-300, 1e-15);
	assert_close(s.sd, sqrt(2.0) * 1e-300, 1e-14);
}

static void rejects_bad_input(void **state)
{
	const double nan_in[] = { 1.0, NAN };
	const double inf_in[] = { INFINITY, 1.0 };
	struct xs_summary s;
	bool f[2];

	assert_int_equal(xs_summarize(nan_in, 0, 0.95, &s), -EINVAL);
	assert_int_equal(xs_summarize(nan_in, 2, 0.95, &s), -EINVAL);
	assert_int_equal(xs_summarize(inf_in, 2, 0.95, &s), -EINVAL);
	assert_int_equal(xs_summarize(inf_in + 1, 1, 1.0, &s), -EINVAL);
	assert_int_equal(xs_outliers(nan_in, 2, f, NULL), -EINVAL);
}

static void modified_z_flags_the_far_value(void **state)
{
	/* median 3, |x - 3| = 2 1 0 1 97: MAD 1.  M(100) = 0.6745 * 97. */
	const double x[] = { 1, 2, 3, 4, 100 };
	double m[5];
	bool f[5];
	size_t count;

	assert_int_equal(xs_modified_z(x, 5, m), 0);
	assert_close(m[4], 0.6745 * 97.0, 1e-15);
	assert_close(m[0], -0.6745 * 2.0, 1e-15);
	assert_int_equal(xs_outliers(x, 5, f, &count), 0);
	assert_int_equal(count, 1);
	assert_true(f[4]);
	assert_false(f[0] || f[1] || f[2] || f[3]);
}

static void modified_z_with_zero_mad(void **state)
{
	/* MAD 0 (four equal values): mean absolute deviation 4/5 = 0.8
	 * takes its place, M(9) = 4 / (1.253314 * 0.8) = 3.99 > 3.5. */
	const double x[] = { 5, 5, 9, 5, 5 };
	double m[5];
	bool f[5];
	size_t count;

	assert_int_equal(xs_modified_z(x, 5, m), 0);
	assert_close(m[2], 4.0 / (1.253314 * 0.8), 1e-15);
	assert_close(m[0], 0.0, 0);
	assert_int_equal(xs_outliers(x, 5, f, &count), 0);
	assert_int_equal(count, 1);
	assert_true(f[2]);
}

static void modified_z_leaves_normal_spread_alone(void **state)
{
	const double x[] = { 10.1, 10.4, 9.8, 10.0, 10.3, 9.9, 10.2 };
	bool f[7];
	size_t count;

	assert_int_equal(xs_outliers(x, 7, f, &count), 0);
	assert_int_equal(count, 0);
}

static void aggregate_rate_is_total_over_total(void **state)
{
	/* 100 B in 1 s and 300 B in 2 s: 400 / 3 B/s, which is also the
	 * byte-weighted harmonic mean of 100 and 150 B/s. */
	const double b[] = { 100, 300 }, t[] = { 1, 2 };
	struct xs_ratio r;

	assert_int_equal(xs_aggregate_rate(b, t, 2, 0.95, &r), 0);
	assert_close(r.rate, 400.0 / 3.0, 1e-15);
	assert_close(r.rate, 400.0 / (100.0 / 100.0 + 300.0 / 150.0), 1e-15);
	/* d = b - R t = -100/3, +100/3: s_d = 100 sqrt(2) / 3; mean time 1.5;
	 * se = s_d / (sqrt(2) * 1.5) = 200 / 9. */
	assert_true(r.has_ci);
	assert_close(r.ci_hi - r.rate, T975_1 * 200.0 / 9.0, 1e-9);
	assert_close(r.rate - r.ci_lo, T975_1 * 200.0 / 9.0, 1e-9);
}

static void aggregate_rate_of_equal_sizes_is_bytes_over_mean_time(void **state)
{
	const double b[] = { 1000, 1000, 1000 }, t[] = { 1.0, 2.0, 4.0 };
	struct xs_ratio r;

	assert_int_equal(xs_aggregate_rate(b, t, 3, 0.95, &r), 0);
	assert_close(r.rate, 1000.0 / (7.0 / 3.0), 1e-15);
}

static void aggregate_rate_single_run_and_bad_times(void **state)
{
	const double b[] = { 100, 100 }, t1[] = { 0.5 }, t0[] = { 1.0, 0.0 };
	const double tn[] = { 1.0, -1.0 }, tnan[] = { 1.0, NAN };
	struct xs_ratio r;

	assert_int_equal(xs_aggregate_rate(b, t1, 1, 0.95, &r), 0);
	assert_close(r.rate, 200.0, 0);
	assert_false(r.has_ci);
	assert_int_equal(xs_aggregate_rate(b, t0, 2, 0.95, &r), -EINVAL);
	assert_int_equal(xs_aggregate_rate(b, tn, 2, 0.95, &r), -EINVAL);
	assert_int_equal(xs_aggregate_rate(b, tnan, 2, 0.95, &r), -EINVAL);
}

static void aggregate_rate_of_huge_transfers(void **state)
{
	/* 2^63 bytes in a microsecond, twice: sums stay finite. */
	const double b[] = { 9223372036854775808.0, 9223372036854775808.0 };
	const double t[] = { 1e-6, 1e-6 };
	struct xs_ratio r;

	assert_int_equal(xs_aggregate_rate(b, t, 2, 0.95, &r), 0);
	assert_close(r.rate, 9223372036854775808.0 / 1e-6, 1e-15);
	assert_close(r.ci_lo, r.rate, 1e-15);
}

/* file:// runs of 1 MiB with one stall (issue 28): the t-interval of the
 * mean time, 0.000757143 -+ 2.4469 * 0.00147413 / sqrt 7, goes below 0. */
static const double file_times[] = { 0.00021, 0.00019, 0.00020, 0.00022, 0.0041, 0.00020,
				     0.00018 };
#define FILE_N (sizeof(file_times) / sizeof(file_times[0]))

static void interval_of_file_times(enum xs_ci_method want, struct xs_interval *ci)
{
	struct xs_summary s;

	assert_int_equal(xs_summarize(file_times, FILE_N, 0.95, &s), 0);
	assert_true(s.ci_lo < 0.0);
	assert_int_equal(xs_interval_mean(file_times, FILE_N, 0.95, s.ci_lo, s.ci_hi, want, ci), 0);
}

static void skewed_few_times_get_the_bootstrap(void **state)
{
	struct xs_interval a, b, boot;

	(void)state;
	interval_of_file_times(XS_CI_AUTO, &a);
	assert_true(a.defined);
	assert_int_equal(a.method, XS_CI_BOOTSTRAP);
	assert_true(a.t_below_zero);
	/* One stall in seven: skewness 1.619587 (numpy, third moment over the
	 * sample SD cubed, as GSL). */
	assert_true(fabs(a.skewness - 1.619586845692421) < 1e-9);
	/* Never below zero; a mean of resampled runs lies within the runs. */
	assert_true(a.lo >= 0.00018 && a.lo < 0.000757143 && a.hi > 0.000757143 && a.hi <= 0.0041);
	/* The method named is the one computed: the same as asking for it,
	 * and the same again (a seeded generator). */
	interval_of_file_times(XS_CI_BOOTSTRAP, &boot);
	interval_of_file_times(XS_CI_AUTO, &b);
	assert_true(a.lo == boot.lo && a.hi == boot.hi);
	assert_true(a.lo == b.lo && a.hi == b.hi);
	assert_string_equal(xs_ci_method_name(a.method), "bootstrap");
}

static void t_below_zero_becomes_log(void **state)
{
	struct xs_interval t, l;

	(void)state;
	interval_of_file_times(XS_CI_T, &t);
	interval_of_file_times(XS_CI_LOG, &l);
	assert_int_equal(t.method, XS_CI_LOG);
	assert_true(t.lo == l.lo && t.hi == l.hi);
	double m = 0.0053 / 7.0, h = (t.t_hi - t.t_lo) / 2.0;

	assert_close(t.lo, m * exp(-h / m), 1e-12);
	assert_close(t.hi, m * exp(h / m), 1e-12);
	assert_true(t.lo > 0.0);
}

static void symmetric_times_keep_the_t_interval(void **state)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct xs_summary s;
	struct xs_interval ci;
	enum xs_ci_method m;

	(void)state;
	assert_int_equal(xs_summarize(x, 8, 0.95, &s), 0);
	assert_int_equal(xs_interval_mean(x, 8, 0.95, s.ci_lo, s.ci_hi, XS_CI_AUTO, &ci), 0);
	assert_int_equal(ci.method, XS_CI_T);   /* skewness 0.537 */
	assert_true(ci.lo == s.ci_lo && ci.hi == s.ci_hi);
	assert_int_equal(xs_interval_mean(x, 1, 0.95, NAN, NAN, XS_CI_AUTO, &ci), 0);
	assert_false(ci.defined);
	assert_int_equal(xs_interval_mean(x, 8, 1.5, s.ci_lo, s.ci_hi, XS_CI_AUTO, &ci), -EINVAL);
	assert_true(xs_ci_method_from_name("log", &m) && m == XS_CI_LOG);
	assert_false(xs_ci_method_from_name("median", &m));
}

static void aggregate_rate_of_file_runs_stays_positive(void **state)
{
	double bytes[FILE_N], seconds[FILE_N];
	struct xs_ratio r;
	struct xs_interval ci;

	(void)state;
	for (size_t i = 0; i < FILE_N; i++) {
		bytes[i] = 1048576;
		seconds[i] = file_times[i];
	}
	assert_int_equal(xs_aggregate_rate(bytes, seconds, FILE_N, 0.95, &r), 0);
	assert_true(r.ci_lo < 0.0);
	assert_int_equal(xs_interval_ratio(bytes, seconds, FILE_N, 0.95, r.ci_lo, r.ci_hi,
					   XS_CI_AUTO, &ci), 0);
	assert_int_equal(ci.method, XS_CI_BOOTSTRAP);
	/* Between the slowest and the fastest run's rate. */
	assert_true(ci.lo >= 1048576 / 0.0041 && ci.lo < r.rate && ci.hi <= 1048576 / 0.00018);
	assert_int_equal(xs_interval_ratio(bytes, seconds, FILE_N, 0.95, r.ci_lo, r.ci_hi,
					   XS_CI_T, &ci), 0);
	assert_int_equal(ci.method, XS_CI_LOG);
	assert_true(ci.lo > 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(textbook_sample),
		cmocka_unit_test(single_value_has_no_sd),
		cmocka_unit_test(two_values),
		cmocka_unit_test(all_equal_values),
		cmocka_unit_test(huge_values_do_not_overflow),
		cmocka_unit_test(tiny_values_keep_precision),
		cmocka_unit_test(rejects_bad_input),
		cmocka_unit_test(modified_z_flags_the_far_value),
		cmocka_unit_test(modified_z_with_zero_mad),
		cmocka_unit_test(modified_z_leaves_normal_spread_alone),
		cmocka_unit_test(aggregate_rate_is_total_over_total),
		cmocka_unit_test(aggregate_rate_of_equal_sizes_is_bytes_over_mean_time),
		cmocka_unit_test(aggregate_rate_single_run_and_bad_times),
		cmocka_unit_test(aggregate_rate_of_huge_transfers),
		cmocka_unit_test(skewed_few_times_get_the_bootstrap),
		cmocka_unit_test(t_below_zero_becomes_log),
		cmocka_unit_test(symmetric_times_keep_the_t_interval),
		cmocka_unit_test(aggregate_rate_of_file_runs_stays_positive),
	};

	return cmocka_run_group_tests_name("xferstat statistics", tests, NULL, NULL);
}
