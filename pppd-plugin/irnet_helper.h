/*
 * irnet_helper.h: what irnet.so says to and hears from the irdad that
 * carries its link, with no pppd in sight (so that it is unit-tested
 * without pppd): the helper's command line, built from the plugin's
 * settings, and the status lines irdad writes on its status descriptor
 * (docs/irdad.md, "Status lines"), parsed, with the pppd exit class and
 * the one-line message each failure gets.
 *
 * Owns: struct irnet_settings (the irnet-* options as pppd parsed them,
 * checked here), the argv for `irdad --stdio` (struct irnet_argv holds
 * the strings), the status line grammar.
 *
 * Does not own: pppd (irnet_plugin.c is the only file that sees it),
 * processes, descriptors, time.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PLUGIN_HELPER_H
#define IRNET_PLUGIN_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum irnet_mode { IRNET_MODE_IRNET, IRNET_MODE_IRCOMM };

/* Limits of the values (irdad's own, docs/irdad.md). */
#define IRNET_NICKNAME_MAX 22        /* an IrLMP nickname, in bytes */
#define IRNET_DISCOVERY_TIMEOUT_DEFAULT 20u
#define IRNET_DISCOVERY_TIMEOUT_MAX 3600u

struct irnet_settings {
	const char *helper;          /* the irdad binary */
	const char *device;          /* the port; NULL with daemon */
	const char *daemon;          /* a running irdad's socket, or NULL */
	const char *dongle, *pcap, *user, *nickname; /* NULL: irdad's default */
	unsigned speed;              /* 0: irdad's default */
	unsigned min_turnaround_us;  /* 0: irdad's default */
	enum irnet_mode mode;
	const char *peer_name;       /* irnet-name, or NULL */
	uint32_t peer_daddr;         /* irnet-daddr, 0: none */
	bool listen;
	unsigned discovery_timeout_s;
	int status_fd;               /* the descriptor number the helper writes to */
	bool log_to_stderr;          /* else syslog */
	bool debug;                  /* pppd's debug: irdad -vv */
	bool no_seccomp;             /* irdad --no-seccomp */
};

/* Checks the settings together (each value was checked as an option).
 * Returns true, or false with a message for pppd's option_error in why. */
bool irnet_settings_check(const struct irnet_settings *s, char *why, size_t whylen);

#define IRNET_ARGV_MAX 40
struct irnet_argv {
	char *argv[IRNET_ARGV_MAX + 1]; /* NULL-terminated, points into text */
	char text[2048];
	size_t used, argc;
};
/* The command line of `irdad --stdio` for these settings.  false if the
 * strings do not fit (they were checked, so only with absurd paths). */
bool irnet_helper_argv(const struct irnet_settings *s, struct irnet_argv *out);

enum irnet_status_line_kind {
	IRNET_STATUS_LISTENING,
	IRNET_STATUS_UP,
	IRNET_STATUS_FAILED,
	IRNET_STATUS_DOWN,
};
struct irnet_status_line {
	enum irnet_status_line_kind kind;
	uint32_t daddr;                 /* UP */
	char nickname[4 * IRNET_NICKNAME_MAX + 1]; /* UP, unescaped, NUL-ended */
	size_t nickname_len;
	char word[24];                  /* FAILED, DOWN: the reason word */
};
/* One line without its '\n'.  false if it is not a status line. */
bool irnet_status_parse(const void *line, size_t len, struct irnet_status_line *out);

/* How pppd should end a failed attempt (mapped to EXIT_* by the plugin). */
enum irnet_exit_class {
	IRNET_EXIT_CONNECT_FAILED, /* no peer, not offered, refused, ...: pppd's 8 */
	IRNET_EXIT_OPEN_FAILED,    /* the dongle or port: pppd's 7 */
};
/* The message and exit class of `failed WORD`; an unknown word gets a
 * generic message naming it. */
const char *irnet_failure_text(const char *word, enum irnet_exit_class *cls);

/* The nickname as printable text for logs and IRDA_NAME: bytes outside
 * printable ASCII become '?'.  Always NUL-terminates (cap >= 1). */
void irnet_printable_name(const struct irnet_status_line *st, char *buf, size_t cap);

#endif
