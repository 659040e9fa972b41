/*
 * test_irqtune_fake.h: an in-memory struct irqtune_sys for the irqtune
 * unit tests: files (/proc, /sys), threads with their scheduling, TTYs
 * with low_latency and counters, and I/O port writes, with failures to
 * inject.  Not a test program itself; linked into the irqtune tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TEST_IRQTUNE_FAKE_H
#define TEST_IRQTUNE_FAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "sys.h"

#define FAKE_MAX_FILES 64
#define FAKE_MAX_THREADS 16

struct fake_file {
	bool used;
	char path[300];
	char text[1024];
	int write_err; /* negative errno returned by the next writes */
	long clamp;    /* > 0: a number written above it reads back as it */
	/* if set, the file reads "1" while this TTY has low_latency on, as
	 * ftdi_sio's latency_timer does */
	const char *low_tty;
	size_t writes;
};

struct fake_thread {
	bool used;
	int pid;
	struct irqtune_sched sched;
	int set_err;
};

struct fake_tty {
	bool used;
	char devnode[64];
	bool low_latency;
	int err;
	struct irqtune_icount ic;
};

struct fake_sys {
	struct fake_file files[FAKE_MAX_FILES];
	struct fake_thread threads[FAKE_MAX_THREADS];
	struct fake_tty ttys[4];
	unsigned port[4];
	unsigned char value[4];
	size_t nport;
	size_t changes;		   /* every write made through the interface */
	const char *state_path;	   /* if set, checked before each write */
	size_t changes_before_state; /* writes made while it did not exist */
};

void fake_init(struct fake_sys *f, struct irqtune_sys *sys);
struct fake_file *fake_file(struct fake_sys *f, const char *path,
			    const char *text);
struct fake_file *fake_find(struct fake_sys *f, const char *path);
void fake_remove(struct fake_sys *f, const char *path);
/* A thread: /proc/PID/comm, /proc/PID/status and its scheduling. */
struct fake_thread *fake_thread(struct fake_sys *f, int pid, const char *comm,
				int ppid, int policy, int prio,
				const char *cpus);
void fake_kill(struct fake_sys *f, int pid);
struct fake_thread *fake_sched(struct fake_sys *f, int pid);
struct fake_tty *fake_tty(struct fake_sys *f, const char *devnode, bool low);
const char *fake_text(struct fake_sys *f, const char *path);

#endif
