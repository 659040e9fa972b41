/*
 * uwatec_smart.h: the dive computer's side of the Uwatec Smart command
 * protocol as it runs over IrDA (a TinyTP stream on LSAP 1), and the
 * memory image of a Galileo Sol (model 0x11) holding a few dives, for the
 * emulator tests/clients/uwatec_emu.c that libdivecomputer's dctool
 * downloads from (tests/clients/libdivecomputer.sh).
 *
 * Owns: the session's state (the two handshake commands, then the
 * commands that read the model, versions, serial, clock, the size of the
 * dives newer than a timestamp and those dives), reading the commands out
 * of the bytes received (a stream: a command may arrive in pieces, several
 * in one piece) and the answer to each, and writing dives in the
 * Galileo's layout (a 152-byte header, then one sample every 4 s).
 *
 * Does not own: the connection or any I/O (the host feeds bytes and sends
 * the answers), the clock (the device's time is configuration), or the
 * meaning of the header fields beyond the ones a download reads (start,
 * time zone, duration, maximum depth, temperatures, the first gas).
 *
 * The facts (command bytes, answer sizes, the header offsets and units,
 * the sample codes) were read from libdivecomputer 0.9.0 (src/uwatec_smart.c
 * and src/uwatec_smart_parser.c); the code is this project's own.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef UWATEC_SMART_H
#define UWATEC_SMART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "log.h"

/* Commands (the first byte of each; the parameters follow at once). */
#define UWATEC_CMD_MODEL      0x10
#define UWATEC_CMD_HARDWARE   0x11
#define UWATEC_CMD_SOFTWARE   0x13
#define UWATEC_CMD_SERIAL     0x14
#define UWATEC_CMD_CLOCK      0x1A
#define UWATEC_CMD_HELLO      0x1B   /* handshake, first stage */
#define UWATEC_CMD_SPEED      0x1C   /* handshake, second stage: 4 bytes */
#define UWATEC_CMD_DATA       0xC4   /* timestamp le32, 4 bytes: total, dives */
#define UWATEC_CMD_SIZE       0xC6   /* timestamp le32, 4 bytes: le32 size */
#define UWATEC_OK             0x01   /* the answer to each handshake stage */
#define UWATEC_CMD_MAX        9      /* the longest command, with its parameters */

#define UWATEC_MODEL_GALILEO_SOL 0x11
/* The nickname a Galileo Sol announces in discovery (libdivecomputer
 * lists a station by it). */
#define UWATEC_GALILEO_SOL_NICKNAME "UWATEC Galileo Sol"

/* Timestamps count half seconds from 2000-01-01 00:00:00 UTC. */
#define UWATEC_EPOCH 946684800
#define UWATEC_SAMPLE_S 4
#define UWATEC_GALILEO_HEADER 152

enum uwatec_state {
	UWATEC_WAIT_HELLO,       /* connected: only the first handshake stage */
	UWATEC_WAIT_SPEED,       /* only the second */
	UWATEC_READY,            /* every read command */
};

struct uwatec_device {
	uint8_t model, hardware, software;
	uint32_t serial;
	uint32_t clock;          /* the device's time, in timestamp units */
	const uint8_t *memory;   /* the dives, oldest first (uwatec_galileo_write_dive) */
	size_t memory_len;
};

/* An answer: head first, then body (a view into the device's memory). */
struct uwatec_reply {
	uint8_t cmd;
	uint8_t head[4];
	size_t head_len;
	const uint8_t *body;
	size_t body_len;
};

struct uwatec_session {
	enum uwatec_state state;
	const struct uwatec_device *dev;
	const struct logger *log;
	uint8_t pending[UWATEC_CMD_MAX];  /* a command not complete yet */
	size_t npending;
};

void uwatec_session_init(struct uwatec_session *s, const struct uwatec_device *dev,
			 const struct logger *log);
/*
 * Reads from in at most up to the end of one command.  Returns 1 with *r
 * set when a command was complete, 0 when in ran out first (its bytes are
 * kept for the next call), -EPROTO for a byte that starts no command the
 * state accepts (that byte consumed, no answer: a Smart device does not
 * answer what it does not know), -EBADMSG for a memory image it cannot
 * walk.
 */
int uwatec_session_input(struct uwatec_session *s, struct cursor *in, struct uwatec_reply *r);
const char *uwatec_state_name(enum uwatec_state st);

/* One dive of the image. */
struct uwatec_dive {
	int64_t start;           /* UTC, seconds since 1970 */
	int8_t tz_quarters;      /* the device's UTC offset, in 15 minutes */
	uint16_t minutes;        /* the dive time */
	uint16_t max_depth_cm;   /* even: the samples count 2 cm */
	int16_t temp_dc;         /* water temperature, tenths of a degree */
};

uint32_t uwatec_timestamp(int64_t unix_time);
/* Bytes dive d takes in the image; 0 if it cannot be written (start
 * before 2000, no time, or too short to reach its depth at 1.2 m per
 * sample down and 0.6 m up, or an odd depth). */
size_t uwatec_galileo_dive_size(const struct uwatec_dive *d);
/* Appends d to an image; false (w failed) if it does not fit or is bad. */
bool uwatec_galileo_write_dive(struct wcursor *w, const struct uwatec_dive *d);
/*
 * Where the dives newer than timestamp since start in an image: *offset
 * (their bytes run to the end).  0, or -EBADMSG when the image does not
 * walk (a record without the marker or with a length past the end).
 */
int uwatec_memory_since(const uint8_t *mem, size_t len, uint32_t since, size_t *offset);

#endif
