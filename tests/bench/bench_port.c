/*
 * bench_port.c: how late the event loop wakes for its timers, and what a
 * speed switch and a dongle script really take on a pseudo-terminal,
 * next to what they ask for.
 *
 * Prints `bench: NAME VALUE UNIT` lines; never fails on a timing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dongle.h"
#include "eloop.h"
#include "serial.h"

#define TIMER_ROUNDS 200
#define TIMER_DELAY_US 1000

struct lateness {
	struct eloop_timer timer;
	uint64_t due;
	uint64_t late[TIMER_ROUNDS];
	int n;
};

static void fired(struct eloop *loop, void *ctx)
{
	struct lateness *l = ctx;
	l->late[l->n++] = eloop_now_us() - l->due;
	if (l->n == TIMER_ROUNDS)
		return;
	l->due = eloop_now_us() + TIMER_DELAY_US;
	eloop_timer_arm_at(loop, &l->timer, l->due);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int bench_timers(void)
{
	struct eloop *loop = eloop_new(NULL);
	struct lateness *l = calloc(1, sizeof(*l));
	if (!loop || !l)
		return 1;
	eloop_timer_init(&l->timer, fired, l);
	l->due = eloop_now_us() + TIMER_DELAY_US;
	eloop_timer_arm_at(loop, &l->timer, l->due);
	if (eloop_run(loop) < 0)
		return 1;
	qsort(l->late, TIMER_ROUNDS, sizeof(l->late[0]), cmp_u64);
	printf("bench: eloop_timer_late_median %llu us\n",
	       (unsigned long long)l->late[TIMER_ROUNDS / 2]);
	printf("bench: eloop_timer_late_p99 %llu us\n",
	       (unsigned long long)l->late[TIMER_ROUNDS * 99 / 100]);
	free(l);
	eloop_free(loop);
	return 0;
}

static int bench_pty(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	char slave[64], err[256], dir[] = "/tmp/bench_port.XXXXXX";
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    ptsname_r(master, slave, sizeof(slave)) || !mkdtemp(dir))
		return 1;
	struct serial_config cfg;
	serial_config_init(&cfg);
	cfg.lock_dir = dir;
	struct port *p;
	if (serial_open(slave, &cfg, &p, err, sizeof(err))) {
		fprintf(stderr, "bench_port: %s\n", err);
		return 1;
	}
	uint64_t took;
	if (port_write_all(p, "0123456789012345678901234567", 28, 1000000) ||
	    serial_switch_speed(p, 115200, &took))
		return 1;
	printf("bench: pty_switch_speed %llu us\n", (unsigned long long)took);

	/* a Tekram speed change: what it asks for (its waits) and what it
	 * takes with real sleeps */
	struct dongle d;
	struct dongle_script s;
	if (dongle_init(&d, "tekram:delay=10ms", err, sizeof(err)))
		return 1;
	dongle_script_init(&s);
	if (dongle_set_speed(&d, 115200, 57600, &s) || dongle_run(p, &s, &took))
		return 1;
	uint64_t asked = dongle_script_wait_us(&s);
	printf("bench: tekram_script_waits %llu us\n", (unsigned long long)asked);
	printf("bench: tekram_script_took %llu us\n", (unsigned long long)took);
	printf("bench: tekram_script_overshoot %llu us\n",
	       (unsigned long long)(took > asked ? took - asked : 0));
	port_close(p);
	close(master);
	rmdir(dir);
	return 0;
}

int main(void)
{
	return bench_timers() || bench_pty();
}
