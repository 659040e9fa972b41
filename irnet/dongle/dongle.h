/*
 * dongle.h: serial IrDA dongles: what each needs to change speed.
 *
 * Owns: one driver per serial dongle of the IrDA digest section 3, a
 * registry of them by the irattach -d names, driver options given as a
 * spec string ("tekram:code115200=0x10,delay=100000"), and a small
 * executor that runs a driver's script on a struct port.
 *
 * Drivers are sans-I/O: they only *describe* what to do, as a script of
 * steps (set DTR/RTS, wait, write bytes, wait until sent, set the UART
 * rate, discard input, expect an echo).  dongle_run() plays a script on a
 * port: on the real serial port with real sleeps, on the mock port in
 * virtual time, which is how the tests check each sequence and its
 * timing.
 *
 * Host flow: dongle_power_on, then dongle_set_speed(d, 0, 9600, ...) to
 * reach the contention rate (LiteLink resets to 115200, not 9600), then
 * dongle_set_speed at every IrLAP speed switch (after the last frame at
 * the old rate has been written: the script starts by draining), and
 * dongle_close before closing the port.
 *
 * Does not own: the port itself (serial.h), IrLAP's choice of rate; it
 * only offers the QoS bits (dongle_rates, dongle_mtt_bits).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_DONGLE_H
#define IRNET_DONGLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serial.h"

/* IrLAP QoS baud-rate bits (PI 0x01, first byte; digest 4.4). */
#define DONGLE_RATE_2400   0x01u
#define DONGLE_RATE_9600   0x02u
#define DONGLE_RATE_19200  0x04u
#define DONGLE_RATE_38400  0x08u
#define DONGLE_RATE_57600  0x10u
#define DONGLE_RATE_115200 0x20u

/* The QoS bit of an IrDA SIR rate, 0 for any other rate. */
uint8_t dongle_rate_bit(uint32_t baud);

/* --- scripts --------------------------------------------------------------- */

enum dongle_step_op {
	DSTEP_LINES,   /* set DTR and RTS */
	DSTEP_WAIT,    /* wait value microseconds */
	DSTEP_WRITE,   /* write bytes */
	DSTEP_DRAIN,   /* wait until everything written has left */
	DSTEP_SPEED,   /* set the UART to value baud */
	DSTEP_FLUSH,   /* discard input not yet read */
	DSTEP_EXPECT,  /* read bytes within value microseconds, or fail */
};

#define DONGLE_STEP_BYTES 12
#define DONGLE_SCRIPT_MAX 48

struct dongle_step {
	enum dongle_step_op op;
	bool dtr, rts;
	uint32_t value;
	uint8_t len;
	uint8_t bytes[DONGLE_STEP_BYTES];
};

struct dongle_script {
	struct dongle_step steps[DONGLE_SCRIPT_MAX];
	size_t n;
	char error[200];   /* why building failed */
};

void dongle_script_init(struct dongle_script *s);
/* "lines DTR=1 RTS=0", "wait 10 us", "write 11 51", ... */
void dongle_step_describe(const struct dongle_step *st, char *buf, size_t cap);
/* Total of the script's waits (a lower bound of its run time). */
uint64_t dongle_script_wait_us(const struct dongle_script *s);

/* --- drivers and instances --------------------------------------------------- */

struct dongle_driver;

enum litelink_polarity {
	LITELINK_LINUX,    /* RTS-low pulse resets, DTR-low pulses step */
	LITELINK_NETBSD,   /* DTR-low pulse resets, RTS-low pulses step */
};

/* Everything a spec string can set.  Each driver reads its own. */
struct dongle_options {
	uint8_t rates_off;       /* QoS bits removed (max=, rate38400=off) */
	uint32_t delay_us;       /* tekram, toim3232: hold after the byte */
	uint8_t tekram_pw115200; /* tekram: 115200 control byte has PW (0x10) */
	uint8_t litelink;        /* enum litelink_polarity */
	uint8_t rate38400;       /* girbil, mcp2120: 1 = offer 38400 */
};

struct dongle {
	const struct dongle_driver *drv;
	struct dongle_options opt;
};

/* The registry, in the order of the irattach dongle ids. */
size_t dongle_driver_count(void);
const struct dongle_driver *dongle_driver_at(size_t i);
const struct dongle_driver *dongle_find(const char *name);
const char *dongle_driver_name(const struct dongle_driver *drv);
const char *dongle_driver_description(const struct dongle_driver *drv);
/* The Linux IRTTY_IOCTDONGLE id, -1 for none. */
int dongle_driver_linux_id(const struct dongle_driver *drv);
/* One line per option, "key=VALUE: what it does (default ...)", into
 * buf; returns false if it did not fit. */
bool dongle_driver_options_help(const struct dongle_driver *drv, char *buf,
				size_t cap);

/* Sets up d from a spec: "NAME" or "NAME:key=value,key=value".  Options
 * every driver takes: max=BAUD (offer no rate above it).  Returns 0 or
 * -EINVAL with a message naming the bad part in err; d is left untouched
 * on error. */
int dongle_init(struct dongle *d, const char *spec, char *err, size_t errlen);

const char *dongle_name(const struct dongle *d);
/* QoS baud-rate bits the dongle supports, after options. */
uint8_t dongle_rates(const struct dongle *d);
bool dongle_supports(const struct dongle *d, uint32_t baud);
/* QoS minimum-turnaround bits (PI 0x86) the dongle needs. */
uint8_t dongle_mtt_bits(const struct dongle *d);
/* The rate the dongle runs at after a reset. */
uint32_t dongle_reset_baud(const struct dongle *d);

/* Script builders.  Each appends to s and returns 0, or -EINVAL (rate
 * not supported: s->error says which rates are) or -E2BIG. */
int dongle_power_on(const struct dongle *d, struct dongle_script *s);
/* Reset, then the UART at dongle_reset_baud. */
int dongle_reset(const struct dongle *d, struct dongle_script *s);
/* The full speed change of digest 3.1: drain, (reset, UART at the reset
 * rate,) the dongle's own steps, UART at `to`.  `from` is the current
 * rate (0: unknown) and is only logged and checked. */
int dongle_set_speed(const struct dongle *d, uint32_t from, uint32_t to,
		     struct dongle_script *s);
int dongle_close(const struct dongle *d, struct dongle_script *s);

/* Plays a script on a port.  Returns 0, or the failing step's -errno
 * with port_error(p) naming the device and the step.  *took_us (may be
 * NULL) receives the time on the port's clock. */
int dongle_run(struct port *p, const struct dongle_script *s, uint64_t *took_us);

#endif
