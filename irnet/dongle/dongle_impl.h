/*
 * dongle_impl.h: what a dongle driver is made of, and the step helpers
 * the drivers share.  Only dongle*.c include this; users see dongle.h.
 *
 * A driver is a const table: its rates, its minimum-turnaround bits, the
 * rate it resets to, its options, and up to four script builders.  The
 * recurring shapes ("command mode, write bytes, wait, normal mode", "pulse
 * a line N times", "a byte code per rate") live in dongle.c so that each
 * driver file is only its facts.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_DONGLE_IMPL_H
#define IRNET_DONGLE_IMPL_H

#include <stddef.h>

#include "dongle.h"

#define DONGLE_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Linux waits this long after powering a dongle before its first reset
 * (digest 3.1); ACTiSYS needs it for its capacitor too. */
#define DONGLE_POWER_SETTLE_US 50000u

enum dongle_option_kind {
	DOPT_MICROSECONDS,   /* uint32_t field, min..max */
	DOPT_CHOICE,         /* uint8_t field = index into choices */
};

struct dongle_option {
	const char *key;
	const char *help;
	enum dongle_option_kind kind;
	size_t offset;       /* in struct dongle_options */
	uint32_t min, max;
	const char *const *choices;   /* NULL-terminated */
};

/* A pair of line levels. */
struct dongle_lines {
	bool dtr, rts;
};

/* Levels held for a time (0: just set). */
struct dongle_phase {
	struct dongle_lines lines;
	uint32_t us;
};

struct dongle_command_mode;
struct dongle_code;

typedef int (*dongle_build_fn)(const struct dongle *d, struct dongle_script *s);
typedef int (*dongle_speed_fn)(const struct dongle *d, uint32_t baud,
			       struct dongle_script *s);

struct dongle_driver {
	const char *name;          /* the irattach -d name */
	const char *description;
	int linux_id;
	uint8_t rates;             /* QoS baud bits */
	uint8_t mtt_bits;          /* QoS min-turnaround bits */
	uint32_t reset_baud;
	/* Powered from DTR/RTS: power_on sets (1,1), close sets (0,0),
	 * unless the driver has its own builders for those. */
	bool line_powered;
	/* The speed steps work from any state: no reset first. */
	bool stateless;
	const struct dongle_option *options;   /* key NULL ends; may be NULL */
	dongle_build_fn power_on, reset, close;   /* may be NULL */
	/* Without a reset builder: these phases, in order. */
	const struct dongle_phase *reset_phases;
	size_t reset_nphases;
	/* The speed steps: the builder if there is one; else, with codes,
	 * one command in `mode`: the rate's code (then `trailer` if
	 * has_trailer), held hold_us (0: the delay= option); else nothing
	 * (the UART alone changes). */
	dongle_speed_fn speed;
	const struct dongle_code *codes;
	size_t ncodes;
	const struct dongle_command_mode *mode;
	bool has_trailer;
	uint8_t trailer;
	uint32_t hold_us;
};

/* Step helpers: each returns 0 or -E2BIG (s->error set). */
int script_lines(struct dongle_script *s, bool dtr, bool rts);
int script_wait(struct dongle_script *s, uint32_t us);
/* lines, then hold them for us */
int script_hold(struct dongle_script *s, bool dtr, bool rts, uint32_t us);
int script_write(struct dongle_script *s, const uint8_t *bytes, size_t len);
int script_drain(struct dongle_script *s);
int script_uart(struct dongle_script *s, uint32_t baud);
int script_flush(struct dongle_script *s);
int script_expect(struct dongle_script *s, const uint8_t *bytes, size_t len,
		  uint32_t timeout_us);
int script_fail(struct dongle_script *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* count pulses: `pulse` levels for width_us, back to `rest` for width_us. */
int script_pulses(struct dongle_script *s, struct dongle_lines pulse,
		  struct dongle_lines rest, uint32_t width_us, unsigned count);

/* The command-mode pattern most dongles share: switch the lines to
 * command mode, wait settle_us, write the bytes, wait until they are
 * sent, hold for hold_us, (check the echo,) switch to normal mode and
 * wait after_us. */
struct dongle_command_mode {
	struct dongle_lines command, normal;
	uint32_t settle_us, after_us;
	/* the dongle echoes each command byte (MA600): discard old input
	 * before writing and expect the bytes back within echo_timeout_us
	 * after the hold */
	bool echo;
	uint32_t echo_timeout_us;
};

int script_command(struct dongle_script *s, const struct dongle_command_mode *m,
		   const uint8_t *bytes, size_t len, uint32_t hold_us);

/* Tekram's one-byte command, which the TOIM3232 board copies: command
 * mode (DTR=1, RTS=0), 7 us, the byte, normal mode (1,1), 50 us. */
extern const struct dongle_command_mode dongle_rts_low_byte_mode;

/* Their hold after the byte: Linux's module parameter, 150 ms by default,
 * clamped to 1..500 ms. */
#define DONGLE_OPTION_DELAY                                                   \
	{ .key = "delay", .kind = DOPT_MICROSECONDS,                          \
	  .help = "hold after the control byte, 1000..500000 us or NNms "     \
		  "(default 150ms)",                                          \
	  .offset = offsetof(struct dongle_options, delay_us),               \
	  .min = 1000, .max = 500000 }

/* GIrBIL and MCP2120: 38400 offered (on) or not (off); see their files. */
extern const char *const dongle_off_on[];
#define DONGLE_OPTION_RATE38400                                               \
	{ .key = "rate38400", .kind = DOPT_CHOICE,                            \
	  .help = "offer 38400 (on, default) or not (off, as Linux in effect)", \
	  .offset = offsetof(struct dongle_options, rate38400),              \
	  .choices = dongle_off_on }

/* A control code per rate. */
struct dongle_code {
	uint32_t baud;
	uint8_t code;
};

/* The driver's command (mode, trailer, hold) carrying this code: for
 * drivers that adjust the code before sending it (Tekram). */
int dongle_command_code(const struct dongle *d, uint8_t code,
			struct dongle_script *s);

/* Finds baud in a table of n codes; on a miss, fails s with a message
 * (the driver's table lacks a rate its mask claims: a driver bug). */
int dongle_code_for(const struct dongle_code *table, size_t n, uint32_t baud,
		    uint8_t *code, struct dongle_script *s);


extern const struct dongle_driver dongle_none;
extern const struct dongle_driver dongle_tekram;
extern const struct dongle_driver dongle_esi;
extern const struct dongle_driver dongle_actisys;
extern const struct dongle_driver dongle_actisys_plus;
extern const struct dongle_driver dongle_girbil;
extern const struct dongle_driver dongle_litelink;
extern const struct dongle_driver dongle_old_belkin;
extern const struct dongle_driver dongle_mcp2120;
extern const struct dongle_driver dongle_act200l;
extern const struct dongle_driver dongle_ma600;
extern const struct dongle_driver dongle_toim3232;

#endif
