/*
 * irdad_config.c: irdad.conf's parser, the command-line overrides, the
 * whole-configuration checks and the reload comparison (see
 * irdad_config.h).  Sans-I/O: text in, a struct and messages out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "dongle.h"
#include "irdad_config.h"
#include "port_name.h"
#include "station.h"
#include "usb_name.h"

_Static_assert(IRDAD_MIN_TAT_DONGLE == STATION_MIN_TAT_DONGLE,
	       "min_tat_us goes to station_config_init() as it is");

/* One value as written, unquoted and unescaped (never holds a NUL). */
struct tok {
	size_t len;
	bool quoted;
	char s[IRDAD_VALUE_MAX + 1];
};

#define LINE_VALUES 4 /* the most any key takes is 2; the rest is for the message */

/* What went wrong with a value, for "KEY VALUE: why". */
struct why {
	char s[400];
};

static bool bad(struct why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool bad(struct why *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->s, sizeof(w->s), fmt, ap);
	va_end(ap);
	return false;
}

/* --- small value helpers --------------------------------------------------- */

/* Copies n bytes into a zero-filled field (so that fields compare with
 * memcmp).  The caller has checked that n < cap. */
static void set_field(char *dst, size_t cap, const char *src, size_t n)
{
	memset(dst, 0, cap);
	memcpy(dst, src, n);
}

static bool tok_is(const struct tok *t, const char *word)
{
	return !t->quoted && strcmp(t->s, word) == 0;
}

static bool printable_ascii(const struct tok *t)
{
	for (size_t i = 0; i < t->len; i++)
		if ((unsigned char)t->s[i] < 0x20 || (unsigned char)t->s[i] > 0x7e)
			return false;
	return true;
}

/* A whole token as a decimal number no larger than max. */
static bool tok_u64(const struct tok *t, uint64_t max, uint64_t *out)
{
	struct cursor c;
	cursor_init(&c, t->s, t->len);
	return cursor_parse_u64(&c, out) && cursor_at_end(&c) && *out <= max;
}

/* "0x" and 1..max hex digits, the whole token; *digits gets their count. */
static bool tok_hex(const struct tok *t, size_t max, uint32_t *out, size_t *digits)
{
	struct cursor c;
	uint64_t v;

	cursor_init(&c, t->s, t->len);
	if (t->quoted || (!cursor_literal(&c, "0x") && !cursor_literal(&c, "0X")))
		return false;
	/* One digit more than allowed is read, so that too many is seen. */
	if (!cursor_parse_hex(&c, max + 1, &v, digits) || *digits > max || !cursor_at_end(&c))
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool tok_yes_no(const struct tok *t, bool *out)
{
	static const char *const yes[] = { "yes", "on", "true", "1" };
	static const char *const no[] = { "no", "off", "false", "0" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (tok_is(t, yes[i])) {
			*out = true;
			return true;
		}
		if (tok_is(t, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* One of names[] (NULL-terminated); its index. */
static bool tok_choice(const struct tok *t, const char *const *names, unsigned *out)
{
	for (unsigned i = 0; names[i]; i++) {
		if (tok_is(t, names[i])) {
			*out = i;
			return true;
		}
	}
	return false;
}

static bool absolute_path(char *dst, size_t cap, const struct tok *t, struct why *w)
{
	if (t->len == 0 || t->s[0] != '/')
		return bad(w, "not an absolute path");
	if (t->len >= cap)
		return bad(w, "longer than %zu bytes", cap - 1);
	set_field(dst, cap, t->s, t->len);
	return true;
}

/* An absolute path, or none ("" or the word none). */
static bool optional_path(char *dst, size_t cap, const struct tok *t, struct why *w)
{
	if (t->len == 0 || tok_is(t, "none")) {
		memset(dst, 0, cap);
		return true;
	}
	if (!absolute_path(dst, cap, t, w))
		return bad(w, "expected an absolute path, or none");
	return true;
}

/* A duration: N (seconds), Ns or Nms; at most max_ms. */
static bool tok_duration(const struct tok *t, uint32_t max_ms, uint32_t *out)
{
	struct cursor c;
	uint64_t v;
	uint64_t scale = 1000;

	cursor_init(&c, t->s, t->len);
	if (t->quoted || !cursor_parse_u64(&c, &v))
		return false;
	if (cursor_literal(&c, "ms"))
		scale = 1;
	else
		cursor_literal(&c, "s");
	if (!cursor_at_end(&c) || v > max_ms / scale)
		return false;
	*out = (uint32_t)(v * scale);
	return true;
}

/* A user or group: a name as useradd takes it, or a number. */
static bool account(char *dst, size_t cap, const struct tok *t, struct why *w)
{
	if (t->len == 0 || t->len >= cap || t->s[0] == '-')
		goto no;
	for (size_t i = 0; i < t->len; i++) {
		char ch = t->s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.'))
			goto no;
	}
	set_field(dst, cap, t->s, t->len);
	return true;
no:
	return bad(w, "expected a user or group name (1-%zu letters, digits, '_', '-', '.') "
		   "or a number", cap - 1);
}

/* --- the global keys --------------------------------------------------- */

typedef bool (*key_fn)(struct irdad_config *cfg, const struct tok *v, struct why *w);

static bool set_device(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	char name[IRDAD_PATH_MAX], why[300];
	struct usb_name usb;

	if (v->len >= 3 && memcmp(v->s, "usb", 3) == 0 && v->len < sizeof(name)) {
		set_field(name, sizeof(name), v->s, v->len);
		if (usb_name_is_usb(name)) {
			size_t skip = strlen(name) + 2;	/* the message's "NAME: " */
			if (usb_name_parse(name, &usb, why, sizeof(why)) < 0)
				return bad(w, "%s", strlen(why) > skip ? why + skip : why);
			set_field(cfg->device, sizeof(cfg->device), v->s, v->len);
			return true;
		}
	}
	if (!absolute_path(cfg->device, sizeof(cfg->device), v, w))
		return bad(w, "expected the serial port's absolute path (/dev/ttyS0) or a USB "
			   "dongle (usb, usb:VID:PID, usb:BUS-PORT, usb:serial=S)");
	return true;
}

static bool set_dongle(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	struct dongle d;
	char err[300];

	if (v->len >= sizeof(cfg->dongle))
		return bad(w, "longer than %zu bytes", sizeof(cfg->dongle) - 1);
	if (dongle_init(&d, v->s, err, sizeof(err)) < 0)
		return bad(w, "%s", err);
	set_field(cfg->dongle, sizeof(cfg->dongle), v->s, v->len);
	return true;
}

static bool set_speed(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	uint64_t n;
	if (!tok_u64(v, 115200, &n) || dongle_rate_bit((uint32_t)n) == 0)
		return bad(w, "not an IrDA SIR rate (2400, 9600, 19200, 38400, 57600, 115200)");
	cfg->speed = (uint32_t)n;
	return true;
}

static bool set_min_tat(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	uint64_t n;
	if (tok_is(v, "dongle")) {
		cfg->min_tat_us = IRDAD_MIN_TAT_DONGLE;
		return true;
	}
	if (!tok_u64(v, 10000, &n))
		return bad(w, "expected 0..10000 microseconds, or dongle");
	cfg->min_tat_us = (long)n;
	return true;
}

static bool set_nickname(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	if (!printable_ascii(v))
		return bad(w, "expected printable ASCII (the nickname is announced as ASCII)");
	if (v->len > IRDAD_NICKNAME_MAX)
		return bad(w, "%zu bytes, at most %d", v->len, IRDAD_NICKNAME_MAX);
	set_field(cfg->nickname, sizeof(cfg->nickname), v->s, v->len);
	return true;
}

static const struct {
	const char *name;
	uint16_t bit;
} hint_names[] = {
	{ "pnp", IRDAD_HINT_PNP },           { "pda", IRDAD_HINT_PDA },
	{ "computer", IRDAD_HINT_COMPUTER }, { "printer", IRDAD_HINT_PRINTER },
	{ "modem", IRDAD_HINT_MODEM },       { "fax", IRDAD_HINT_FAX },
	{ "lan", IRDAD_HINT_LAN },           { "telephony", IRDAD_HINT_TELEPHONY },
	{ "fileserver", IRDAD_HINT_FILESERVER }, { "ircomm", IRDAD_HINT_IRCOMM },
	{ "message", IRDAD_HINT_MESSAGE },   { "http", IRDAD_HINT_HTTP },
	{ "obex", IRDAD_HINT_OBEX },
};

static bool hint_word(struct cursor word, uint16_t *bits)
{
	for (size_t i = 0; i < sizeof(hint_names) / sizeof(hint_names[0]); i++) {
		if (cursor_equals(&word, hint_names[i].name)) {
			*bits |= hint_names[i].bit;
			return true;
		}
	}
	return false;
}

#define HINT_EXTENSION_BITS 0x8080u

/* none | NAME[,NAME...] | 0xNNNN */
static bool set_hints(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	static const char expected[] =
		"expected none, names joined by ',' (pnp pda computer printer modem fax lan "
		"telephony fileserver ircomm message http obex), 0xNN or 0xNNNN";
	uint16_t bits = 0;
	uint32_t hex;
	size_t digits;
	struct cursor c, word;
	uint8_t ch;

	if (v->quoted)
		return bad(w, "%s", expected);
	if (tok_is(v, "none")) {
		cfg->hints = 0;
		return true;
	}
	if (tok_hex(v, 4, &hex, &digits) && (digits == 2 || digits == 4)) {
		if (digits == 2)
			hex <<= 8;   /* the first byte alone */
		if (hex & 0x0080u)
			return bad(w, "bit 0x80 of the second byte would announce a third "
				   "hint byte; %s", expected);
		cfg->hints = (uint16_t)(hex & ~HINT_EXTENSION_BITS);
		return true;
	}
	cursor_init(&c, v->s, v->len);
	for (;;) {
		struct cursor probe = c;
		size_t n = 0;
		while (cursor_peek_u8(&probe, &ch) && ch != ',')
			cursor_skip(&probe, 1), n++;
		cursor_sub(&c, n, &word);
		if (!hint_word(word, &bits))
			return bad(w, "%s", expected);
		if (!cursor_u8(&c, &ch))
			break;
	}
	cfg->hints = bits;
	return true;
}

static bool set_ias_name(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	if (v->len == 0 || !printable_ascii(v))
		return bad(w, "expected 1-%d bytes of printable ASCII", IRDAD_VALUE_MAX);
	set_field(cfg->ias_name, sizeof(cfg->ias_name), v->s, v->len);
	return true;
}

static bool set_user(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	return account(cfg->user, sizeof(cfg->user), v, w);
}

static bool set_group(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	return account(cfg->group, sizeof(cfg->group), v, w);
}

static bool set_socket(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	if (!absolute_path(cfg->socket, sizeof(cfg->socket), v, w))
		return bad(w, "expected an absolute path of at most %d bytes (a unix socket's)",
			   IRDAD_SOCKET_PATH_MAX);
	return true;
}

static bool set_socket_mode(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	uint32_t mode = 0;
	uint8_t ch;
	struct cursor c;

	cursor_init(&c, v->s, v->len);
	if (v->quoted || v->len == 0 || v->len > 4)
		goto no;
	while (cursor_u8(&c, &ch)) {
		if (ch < '0' || ch > '7')
			goto no;
		mode = mode * 8 + (uint32_t)(ch - '0');
	}
	if (mode > 0777)
		goto no;
	cfg->socket_mode = mode;
	return true;
no:
	return bad(w, "expected an octal mode from 0 to 0777 (such as 0660)");
}

static bool set_lock_dir(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	return optional_path(cfg->lock_dir, sizeof(cfg->lock_dir), v, w);
}

static bool set_seccomp(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	if (!tok_yes_no(v, &cfg->seccomp))
		return bad(w, "expected yes or no");
	return true;
}

#define DISCOVERY_MIN_MS 1000u
#define DISCOVERY_MAX_MS 3600000u
#define IDLE_MAX_MS 3600000u

static bool set_discovery(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	uint32_t ms;
	if (!tok_duration(v, DISCOVERY_MAX_MS, &ms) || (ms != 0 && ms < DISCOVERY_MIN_MS))
		return bad(w, "expected 0 (on demand) or 1s..3600s (a number of seconds, "
			   "or with s or ms)");
	cfg->discovery_ms = ms;
	return true;
}

static bool set_idle(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	if (!tok_duration(v, IDLE_MAX_MS, &cfg->idle_ms))
		return bad(w, "expected 0..3600s (a number of seconds, or with s or ms)");
	return true;
}

static bool set_log(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	static const char *const names[] = { "syslog", "stderr", NULL };
	unsigned i;
	if (!tok_choice(v, names, &i))
		return bad(w, "expected syslog or stderr");
	cfg->log = (enum irdad_log_target)i;
	return true;
}

static bool set_log_level(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	static const char *const names[] = { "error", "warning", "info", "debug", NULL };
	unsigned i;
	if (!tok_choice(v, names, &i))
		return bad(w, "expected error, warning, info or debug");
	cfg->log_level = (enum log_level)(LOG_LEVEL_ERROR + i);
	return true;
}

static bool set_pcap(struct irdad_config *cfg, const struct tok *v, struct why *w)
{
	return optional_path(cfg->pcap, sizeof(cfg->pcap), v, w);
}

#define FIELD(f) offsetof(struct irdad_config, f), sizeof(((struct irdad_config *)0)->f)

static const struct key_def {
	const char *name;
	key_fn set;
	size_t off, size;   /* the value's field, to compare and keep */
	bool reloadable;
} keys[IRDAD_KEY_COUNT] = {
	[IRDAD_KEY_DEVICE] = { "device", set_device, FIELD(device), false },
	[IRDAD_KEY_DONGLE] = { "dongle", set_dongle, FIELD(dongle), false },
	[IRDAD_KEY_SPEED] = { "speed", set_speed, FIELD(speed), false },
	[IRDAD_KEY_MIN_TAT] = { "min-turnaround", set_min_tat, FIELD(min_tat_us), false },
	[IRDAD_KEY_NICKNAME] = { "nickname", set_nickname, FIELD(nickname), false },
	[IRDAD_KEY_HINTS] = { "hints", set_hints, FIELD(hints), false },
	[IRDAD_KEY_IAS_NAME] = { "ias-name", set_ias_name, FIELD(ias_name), false },
	[IRDAD_KEY_USER] = { "user", set_user, FIELD(user), false },
	[IRDAD_KEY_GROUP] = { "group", set_group, FIELD(group), false },
	[IRDAD_KEY_SOCKET] = { "socket", set_socket, FIELD(socket), false },
	[IRDAD_KEY_SOCKET_MODE] = { "socket-mode", set_socket_mode, FIELD(socket_mode), false },
	[IRDAD_KEY_LOCK_DIR] = { "lock-dir", set_lock_dir, FIELD(lock_dir), false },
	[IRDAD_KEY_SECCOMP] = { "seccomp", set_seccomp, FIELD(seccomp), false },
	[IRDAD_KEY_DISCOVERY] = { "discovery-period", set_discovery, FIELD(discovery_ms), true },
	[IRDAD_KEY_IDLE] = { "idle-timeout", set_idle, FIELD(idle_ms), true },
	[IRDAD_KEY_LOG] = { "log", set_log, FIELD(log), false },
	[IRDAD_KEY_LOG_LEVEL] = { "log-level", set_log_level, FIELD(log_level), true },
	[IRDAD_KEY_PCAP] = { "pcap", set_pcap, FIELD(pcap), false },
};

const char *irdad_key_name(enum irdad_key key)
{
	return (unsigned)key < IRDAD_KEY_COUNT ? keys[key].name : "?";
}

bool irdad_key_reloadable(enum irdad_key key)
{
	return (unsigned)key < IRDAD_KEY_COUNT && keys[key].reloadable;
}

static int find_key(const char *name)
{
	for (int i = 0; i < IRDAD_KEY_COUNT; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

void irdad_config_defaults(struct irdad_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	set_field(cfg->dongle, sizeof(cfg->dongle), "none", 4);
	cfg->speed = 115200;
	cfg->min_tat_us = IRDAD_MIN_TAT_DONGLE;
	set_field(cfg->nickname, sizeof(cfg->nickname), "irdad", 5);
	cfg->hints = IRDAD_HINT_COMPUTER;
	set_field(cfg->user, sizeof(cfg->user), IRDAD_DEFAULT_USER, sizeof(IRDAD_DEFAULT_USER) - 1);
	set_field(cfg->group, sizeof(cfg->group), "dialout", 7);
	cfg->socket_mode = 0660;
	set_field(cfg->lock_dir, sizeof(cfg->lock_dir), "/var/lock", 9);
	cfg->seccomp = true;
	cfg->discovery_ms = 0;
	cfg->idle_ms = 2000;
	cfg->log = IRDAD_LOG_SYSLOG;
	cfg->log_level = LOG_LEVEL_INFO;
}

/* --- endpoint keys --------------------------------------------------------- */

static const char *const service_names[] = { "ircomm", "irnet", NULL };
static const char *const wire_names[] = { "auto", "9wire", "3wire", "3wire-raw", NULL };
static const char *const role_names[] = { "listen", "call", NULL };

const char *irdad_service_name(enum irdad_service s)
{
	return (unsigned)s <= IRDAD_SVC_IRNET ? service_names[s] : "?";
}

const char *irdad_wire_name(enum irdad_wire w)
{
	return (unsigned)w <= IRDAD_WIRE_3_RAW ? wire_names[w] : "?";
}

typedef bool (*ep_fn)(struct irdad_endpoint *ep, const struct tok *v, size_t n,
		      struct why *w);

static bool one_value(size_t n, struct why *w)
{
	if (n != 1)
		return bad(w, "takes one value");
	return true;
}

static bool ep_role(struct irdad_endpoint *ep, const struct tok *v, size_t n, struct why *w)
{
	unsigned i;
	if (!one_value(n, w))
		return false;
	if (!tok_choice(v, role_names, &i))
		return bad(w, "expected call or listen");
	ep->role = (enum irdad_role)i;
	return true;
}

static bool ep_peer(struct irdad_endpoint *ep, const struct tok *v, size_t n, struct why *w)
{
	static const char expected[] =
		"expected any, nickname NAME or address 0xXXXXXXXX";
	struct irdad_peer p;
	uint32_t a;
	size_t digits;

	memset(&p, 0, sizeof(p));
	if (n == 1 && tok_is(&v[0], "any")) {
		p.kind = IRDAD_PEER_ANY;
	} else if (n == 2 && tok_is(&v[0], "nickname")) {
		if (v[1].len == 0 || !printable_ascii(&v[1]) || v[1].len > IRDAD_NICKNAME_MAX)
			return bad(w, "a nickname is 1-%d bytes of printable ASCII",
				   IRDAD_NICKNAME_MAX);
		p.kind = IRDAD_PEER_NICKNAME;
		memcpy(p.nickname, v[1].s, v[1].len);
	} else if (n == 2 && tok_is(&v[0], "address")) {
		if (!tok_hex(&v[1], 8, &a, &digits))
			return bad(w, "a device address is 0x and 1-8 hex digits");
		if (a == 0 || a == 0xffffffffu)
			return bad(w, "0x%08x is not a station's address (reserved)", a);
		p.kind = IRDAD_PEER_ADDRESS;
		p.address = a;
	} else {
		return bad(w, "%s", expected);
	}
	ep->peer = p;
	return true;
}

static bool ep_wire(struct irdad_endpoint *ep, const struct tok *v, size_t n, struct why *w)
{
	unsigned i;
	if (!one_value(n, w))
		return false;
	if (!tok_choice(v, wire_names, &i))
		return bad(w, "expected auto, 9wire, 3wire or 3wire-raw");
	ep->wire = (enum irdad_wire)i;
	return true;
}

static bool ep_pty(struct irdad_endpoint *ep, const struct tok *v, size_t n, struct why *w)
{
	if (!one_value(n, w))
		return false;
	if (!absolute_path(ep->pty_link, sizeof(ep->pty_link), v, w))
		return bad(w, "expected the absolute path of the pty's symbolic link");
	return true;
}

static bool ep_reconnect(struct irdad_endpoint *ep, const struct tok *v, size_t n,
			 struct why *w)
{
	if (!one_value(n, w))
		return false;
	if (!tok_yes_no(v, &ep->reconnect))
		return bad(w, "expected yes or no");
	return true;
}

static const struct {
	const char *name;
	ep_fn set;
	bool ircomm_only;
} ep_keys[IRDAD_EP_KEY_COUNT] = {
	[IRDAD_EP_KEY_ROLE] = { "role", ep_role, false },
	[IRDAD_EP_KEY_PEER] = { "peer", ep_peer, false },
	[IRDAD_EP_KEY_WIRE] = { "wire", ep_wire, true },
	[IRDAD_EP_KEY_PTY] = { "pty", ep_pty, false },
	[IRDAD_EP_KEY_RECONNECT] = { "reconnect", ep_reconnect, false },
};

static int find_ep_key(const char *name)
{
	for (int i = 0; i < IRDAD_EP_KEY_COUNT; i++)
		if (strcmp(ep_keys[i].name, name) == 0)
			return i;
	return -1;
}

/* --- messages -------------------------------------------------------------- */

/* A message being built in a caller's buffer: always NUL-terminated,
 * cut (never overflowed) when it does not fit. */
struct text {
	char *buf;
	size_t cap, len;
};

static void text_init(struct text *t, char *buf, size_t cap)
{
	*t = (struct text){ .buf = buf, .cap = cap };
	if (cap)
		buf[0] = '\0';
}

static void text_put(struct text *t, const void *s, size_t n)
{
	if (t->cap == 0)
		return;
	size_t room = t->cap - 1 - t->len;
	if (n > room)
		n = room;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	if (t->cap == 0)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n < t->cap - t->len ? (size_t)n : t->cap - 1 - t->len;
}

/* Appends one value as a person should read it: bare if it was written
 * bare and has no blank, else quoted; bytes outside printable ASCII as
 * \xHH, so a message never carries control characters. */
static void show_tok(struct text *out, const struct tok *t)
{
	bool quote = t->quoted || t->len == 0 || memchr(t->s, ' ', t->len) ||
		     memchr(t->s, '\t', t->len);

	if (quote)
		text_put(out, "\"", 1);
	for (size_t i = 0; i < t->len; i++) {
		uint8_t ch = (uint8_t)t->s[i];
		if (ch < 0x20 || ch > 0x7e) {
			text_add(out, "\\x%02x", ch);
			continue;
		}
		if (quote && (ch == '"' || ch == '\\'))
			text_put(out, "\\", 1);
		text_put(out, &ch, 1);
	}
	if (quote)
		text_put(out, "\"", 1);
}

/* "ORIGIN KEY VALUE: why", where ORIGIN KEY is "FILE:LINE: key" for a
 * line of the file, "FILE: key" for a default, "--key" for an option. */
static void key_error(char *err, size_t errlen, const char *file, uint32_t line,
		      const char *key, const struct tok *v, size_t n, const char *why)
{
	struct text t;

	text_init(&t, err, errlen);
	if (line == IRDAD_LINE_CLI)
		text_add(&t, "--%s", key);
	else if (line > 0 && file)
		text_add(&t, "%s:%u: %s", file, line, key);
	else if (file)
		text_add(&t, "%s: %s", file, key);
	else
		text_add(&t, "%s", key);
	for (size_t i = 0; i < n; i++) {
		text_put(&t, " ", 1);
		show_tok(&t, &v[i]);
	}
	text_add(&t, ": %s", why);
}

static void tok_from_cstr(struct tok *t, const char *s)
{
	size_t n = strlen(s);
	if (n > IRDAD_VALUE_MAX)
		n = IRDAD_VALUE_MAX;
	memset(t, 0, sizeof(*t));
	memcpy(t->s, s, n);
	t->len = n;
}

/* --- the lexer ------------------------------------------------------------- */

struct parser {
	const char *file;
	uint32_t line;
	struct irdad_config *cfg;
	struct irdad_endpoint *ep;   /* the current section, NULL before the first */
	char msg[700];               /* the line's error, without FILE:LINE */
};

static bool fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return false;
}

static bool is_blank(uint8_t ch)
{
	return ch == ' ' || ch == '\t';
}

/* Control characters are refused anywhere: they would end up in logs,
 * nicknames and paths. */
static bool check_bytes(struct parser *p, struct cursor line)
{
	uint8_t ch;
	while (cursor_u8(&line, &ch))
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return fail(p, "control character 0x%02x in the line", ch);
	return true;
}

static bool quoted_token(struct parser *p, struct cursor *c, struct tok *t)
{
	uint8_t ch;

	t->quoted = true;
	cursor_skip(c, 1);
	for (;;) {
		if (!cursor_u8(c, &ch))
			return fail(p, "a quoted value has no closing '\"'");
		if (ch == '"')
			break;
		if (ch == '\\') {
			if (!cursor_u8(c, &ch) || (ch != '"' && ch != '\\'))
				return fail(p, "in a quoted value '\\' must be followed by "
					    "'\"' or '\\'");
		}
		if (t->len == IRDAD_VALUE_MAX)
			return fail(p, "a value is longer than %d bytes", IRDAD_VALUE_MAX);
		t->s[t->len++] = (char)ch;
	}
	if (cursor_peek_u8(c, &ch) && !is_blank(ch))
		return fail(p, "text right after a closing '\"' (put a blank between values)");
	return true;
}

static bool bare_token(struct parser *p, struct cursor *c, struct tok *t)
{
	uint8_t ch;
	while (cursor_peek_u8(c, &ch) && !is_blank(ch)) {
		if (ch == '"')
			return fail(p, "a '\"' inside a value: quote the whole value");
		if (t->len == IRDAD_VALUE_MAX)
			return fail(p, "a value is longer than %d bytes", IRDAD_VALUE_MAX);
		t->s[t->len++] = (char)ch;
		cursor_skip(c, 1);
	}
	return true;
}

static void prefix_key(struct parser *p, const struct tok *key)
{
	char was[sizeof(p->msg)];
	struct text t;

	memcpy(was, p->msg, sizeof(was));
	text_init(&t, p->msg, sizeof(p->msg));
	show_tok(&t, key);
	text_add(&t, ": %s", was);
}

/* Splits a key-value line into its words; a '#' where a word would start
 * begins a comment.  *n is the count of values after the key (it keeps
 * counting past LINE_VALUES, whose extra values are not kept). */
static bool split(struct parser *p, struct cursor line, struct tok *key, struct tok *v,
		  size_t *n)
{
	uint8_t ch;
	size_t count = 0;
	struct tok spare;

	memset(key, 0, sizeof(*key));
	for (;;) {
		cursor_skip_blanks(&line);
		if (!cursor_peek_u8(&line, &ch) || ch == '#')
			break;
		struct tok *t = count == 0 ? key : count <= LINE_VALUES ? &v[count - 1] : &spare;
		memset(t, 0, sizeof(*t));
		if (!(ch == '"' ? quoted_token(p, &line, t) : bare_token(p, &line, t))) {
			if (count > 0)   /* name the key whose value is wrong */
				prefix_key(p, key);
			return false;
		}
		count++;
	}
	*n = count ? count - 1 : 0;
	return true;
}

/* --- sections -------------------------------------------------------------- */

static bool valid_name(const struct tok *t)
{
	if (t->len == 0 || t->len > IRDAD_NAME_MAX || t->s[0] == '-')
		return false;
	for (size_t i = 0; i < t->len; i++) {
		char ch = t->s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-'))
			return false;
	}
	return true;
}

/* The checks a section needs once all its keys are in. */
static bool end_section(struct parser *p)
{
	struct irdad_endpoint *ep = p->ep;
	static const char call_only[] = "only a calling endpoint (role call) has this";

	if (!ep || ep->role == IRDAD_ROLE_CALL)
		return true;
	if (ep->key_line[IRDAD_EP_KEY_PEER] && ep->peer.kind != IRDAD_PEER_ANY) {
		p->line = ep->key_line[IRDAD_EP_KEY_PEER];
		return fail(p, "peer: %s; [%s %s] listens", call_only,
			    irdad_service_name(ep->service), ep->name);
	}
	if (ep->reconnect) {
		p->line = ep->key_line[IRDAD_EP_KEY_RECONNECT];
		return fail(p, "reconnect: %s; [%s %s] listens", call_only,
			    irdad_service_name(ep->service), ep->name);
	}
	return true;
}

/* "[ircomm NAME]" or "[irnet NAME]" */
static bool section(struct parser *p, struct cursor c)
{
	struct irdad_config *cfg = p->cfg;
	struct tok type = { 0 }, name = { 0 };
	uint8_t ch;
	unsigned svc;

	cursor_skip(&c, 1);
	cursor_skip_blanks(&c);
	while (cursor_peek_u8(&c, &ch) && !is_blank(ch) && ch != ']' && type.len < IRDAD_VALUE_MAX)
		type.s[type.len++] = (char)ch, cursor_skip(&c, 1);
	cursor_skip_blanks(&c);
	while (cursor_peek_u8(&c, &ch) && !is_blank(ch) && ch != ']' && name.len < IRDAD_VALUE_MAX)
		name.s[name.len++] = (char)ch, cursor_skip(&c, 1);
	cursor_skip_blanks(&c);
	if (!cursor_literal(&c, "]") || type.len == 0 || name.len == 0)
		return fail(p, "a section header is [ircomm NAME] or [irnet NAME]");
	cursor_skip_blanks(&c);
	if (cursor_peek_u8(&c, &ch) && ch != '#')
		return fail(p, "text after the section header's ']'");
	if (!tok_choice(&type, service_names, &svc))
		return fail(p, "[%s %s]: unknown section type '%s' (expected ircomm or irnet)",
			    type.s, name.s, type.s);
	if (!valid_name(&name))
		return fail(p, "[%s %s]: a name is 1-%d letters, digits, '-' or '_' "
			    "(not starting with '-')", type.s, name.s, IRDAD_NAME_MAX);
	int prev = irdad_config_find(cfg, name.s);
	if (prev >= 0)
		return fail(p, "[%s %s]: the name is already used by [%s %s] at line %u",
			    type.s, name.s, irdad_service_name(cfg->ep[prev].service),
			    cfg->ep[prev].name, cfg->ep[prev].line);
	if (cfg->nendpoints == IRDAD_ENDPOINTS_MAX)
		return fail(p, "[%s %s]: more than %d endpoints", type.s, name.s,
			    IRDAD_ENDPOINTS_MAX);
	struct irdad_endpoint *ep = &cfg->ep[cfg->nendpoints++];
	memset(ep, 0, sizeof(*ep));
	ep->service = (enum irdad_service)svc;
	set_field(ep->name, sizeof(ep->name), name.s, name.len);
	ep->role = IRDAD_ROLE_LISTEN;
	ep->peer.kind = IRDAD_PEER_ANY;
	ep->wire = IRDAD_WIRE_AUTO;
	struct text link;   /* zero-filled by the memset: only the path is written */
	text_init(&link, ep->pty_link, sizeof(ep->pty_link));
	text_add(&link, "/dev/irnet/%s", name.s);
	ep->line = p->line;
	p->ep = ep;
	return true;
}

static bool duplicate(struct parser *p, const char *key, uint32_t first)
{
	return fail(p, "%s: set twice (first at line %u)", key, first);
}

static bool global_line(struct parser *p, const struct tok *key, const struct tok *v, size_t n)
{
	struct why w;
	int k = find_key(key->s);

	if (k < 0) {
		if (memchr(key->s, '=', key->len))
			return fail(p, "unknown key '%s': write KEY VALUE, without '='", key->s);
		if (find_ep_key(key->s) >= 0)
			return fail(p, "'%s' belongs in an [ircomm NAME] or [irnet NAME] section",
				    key->s);
		struct text t;
		text_init(&t, p->msg, sizeof(p->msg));
		text_add(&t, "unknown key '%s' (known:", key->s);
		for (int i = 0; i < IRDAD_KEY_COUNT; i++)
			text_add(&t, " %s", keys[i].name);
		text_put(&t, ")", 1);
		return false;
	}
	if (p->cfg->key_line[k])
		return duplicate(p, key->s, p->cfg->key_line[k]);
	if (n == 0)
		return fail(p, "%s: no value", key->s);
	if (n > 1) {
		const char *hint = tok_is(&v[0], "=") ? " (write KEY VALUE, without '=')" :
				   " (quote a value with blanks)";
		key_error(p->msg, sizeof(p->msg), NULL, 0, key->s, v,
			  n > LINE_VALUES ? LINE_VALUES : n, "takes one value");
		size_t used = strlen(p->msg);
		snprintf(p->msg + used, sizeof(p->msg) - used, "%s", hint);
		return false;
	}
	if (!keys[k].set(p->cfg, v, &w)) {
		key_error(p->msg, sizeof(p->msg), NULL, 0, key->s, v, 1, w.s);
		return false;
	}
	p->cfg->key_line[k] = p->line;
	return true;
}

static bool endpoint_line(struct parser *p, const struct tok *key, const struct tok *v,
			  size_t n)
{
	struct irdad_endpoint *ep = p->ep;
	const char *svc = irdad_service_name(ep->service);
	struct why w;
	int k = find_ep_key(key->s);

	if (k < 0) {
		if (find_key(key->s) >= 0)
			return fail(p, "'%s' is a global key: put it before the first section",
				    key->s);
		return fail(p, "unknown key '%s' in [%s %s] (known: role, peer, %spty, "
			    "reconnect)", key->s, svc, ep->name,
			    ep->service == IRDAD_SVC_IRCOMM ? "wire, " : "");
	}
	if (ep_keys[k].ircomm_only && ep->service != IRDAD_SVC_IRCOMM)
		return fail(p, "'%s' is only for [ircomm NAME] sections", key->s);
	if (ep->key_line[k])
		return duplicate(p, key->s, ep->key_line[k]);
	if (n == 0)
		return fail(p, "%s: no value", key->s);
	if (n > LINE_VALUES || !ep_keys[k].set(ep, v, n, &w)) {
		if (n > LINE_VALUES)
			bad(&w, "too many values");
		key_error(p->msg, sizeof(p->msg), NULL, 0, key->s, v,
			  n > LINE_VALUES ? LINE_VALUES : n, w.s);
		return false;
	}
	ep->key_line[k] = p->line;
	return true;
}

static bool parse_line(struct parser *p, struct cursor line)
{
	struct tok key, v[LINE_VALUES];
	size_t n;
	uint8_t ch;

	if (!check_bytes(p, line))
		return false;
	cursor_skip_blanks(&line);
	if (cursor_peek_u8(&line, &ch) && ch == '[')
		return end_section(p) && section(p, line);
	if (!split(p, line, &key, v, &n))
		return false;
	if (key.len == 0 && !key.quoted)
		return true;   /* blank or comment */
	if (key.quoted)
		return fail(p, "a key is a bare word, not quoted");
	return p->ep ? endpoint_line(p, &key, v, n) : global_line(p, &key, v, n);
}

int irdad_config_parse(const void *text, size_t len, const char *file,
		       struct irdad_config *out, char *err, size_t errlen)
{
	struct parser p = { .file = file, .cfg = out };
	struct cursor c, line;

	irdad_config_defaults(out);
	cursor_init(&c, text, len);
	while (cursor_line(&c, &line)) {
		p.line++;
		if (!parse_line(&p, line))
			goto fail;
	}
	if (!end_section(&p))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "%s:%u: %s", file, p.line, p.msg);
	return -EINVAL;
}

/* --- overrides ------------------------------------------------------------- */

int irdad_overrides_add(struct irdad_overrides *ov, const char *name, const char *value,
			char *err, size_t errlen)
{
	int k = find_key(name);
	if (k < 0) {
		snprintf(err, errlen, "--%s: not a configuration key", name);
		return -EINVAL;
	}
	if (ov->n == IRDAD_OVERRIDES_MAX) {
		snprintf(err, errlen, "--%s: more than %d options", name, IRDAD_OVERRIDES_MAX);
		return -E2BIG;
	}
	ov->o[ov->n++] = (struct irdad_override){ .key = (enum irdad_key)k, .value = value };
	return 0;
}

/* An option's value is the whole argument: no quotes, blanks kept. */
static bool check_cli_value(const struct tok *t, const char *value, struct why *w)
{
	if (strlen(value) > IRDAD_VALUE_MAX)
		return bad(w, "a value is longer than %d bytes", IRDAD_VALUE_MAX);
	for (size_t i = 0; i < t->len; i++)
		if ((uint8_t)t->s[i] < 0x20 || (uint8_t)t->s[i] == 0x7f)
			return bad(w, "control character 0x%02x", (uint8_t)t->s[i]);
	return true;
}

int irdad_config_apply_overrides(struct irdad_config *cfg, const struct irdad_overrides *ov,
				 char *err, size_t errlen)
{
	struct tok t;
	struct why w;

	for (size_t i = 0; ov && i < ov->n; i++) {
		enum irdad_key k = ov->o[i].key;
		if ((unsigned)k >= IRDAD_KEY_COUNT || !ov->o[i].value) {
			snprintf(err, errlen, "override %zu: no such key or no value", i);
			return -EINVAL;
		}
		tok_from_cstr(&t, ov->o[i].value);
		if (!check_cli_value(&t, ov->o[i].value, &w) || !keys[k].set(cfg, &t, &w)) {
			key_error(err, errlen, NULL, IRDAD_LINE_CLI, keys[k].name, &t, 1, w.s);
			return -EINVAL;
		}
		cfg->key_line[k] = IRDAD_LINE_CLI;
	}
	return 0;
}

/* --- whole-configuration checks -------------------------------------------- */

static uint32_t highest_rate(uint8_t bits)
{
	static const uint32_t rates[] = { 115200, 57600, 38400, 19200, 9600, 2400 };
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (bits & dongle_rate_bit(rates[i]))
			return rates[i];
	return 0;
}

/* "FILE:LINE: KEY VALUE: why" for a global key, wherever it was set. */
static int global_error(const struct irdad_config *cfg, enum irdad_key k, const char *value,
			const char *file, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static int global_error(const struct irdad_config *cfg, enum irdad_key k, const char *value,
			const char *file, char *err, size_t errlen, const char *fmt, ...)
{
	struct why w;
	struct tok t;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w.s, sizeof(w.s), fmt, ap);
	va_end(ap);
	tok_from_cstr(&t, value);
	key_error(err, errlen, file, cfg->key_line[k], keys[k].name, &t, 1, w.s);
	return -EINVAL;
}

static int check_speed(const struct irdad_config *cfg, const char *file, char *err,
		       size_t errlen)
{
	struct dongle d;
	char why[300], speed[16];

	if (dongle_init(&d, cfg->dongle, why, sizeof(why)) < 0)
		return global_error(cfg, IRDAD_KEY_DONGLE, cfg->dongle, file, err, errlen,
				    "%s", why);
	if (dongle_supports(&d, cfg->speed))
		return 0;
	snprintf(speed, sizeof(speed), "%u", cfg->speed);
	/* blame the key that was set last, the speed unless it is a default */
	if (cfg->key_line[IRDAD_KEY_SPEED] == 0 ||
	    (cfg->key_line[IRDAD_KEY_DONGLE] == IRDAD_LINE_CLI &&
	     cfg->key_line[IRDAD_KEY_SPEED] != IRDAD_LINE_CLI))
		return global_error(cfg, IRDAD_KEY_DONGLE, cfg->dongle, file, err, errlen,
				    "offers at most %u bit/s, below speed %u",
				    highest_rate(dongle_rates(&d)), cfg->speed);
	return global_error(cfg, IRDAD_KEY_SPEED, speed, file, err, errlen,
			    "dongle %s offers at most %u bit/s", cfg->dongle,
			    highest_rate(dongle_rates(&d)));
}

static int derive_socket(struct irdad_config *cfg, const char *file, char *err,
			 size_t errlen)
{
	char base[IRDAD_PATH_MAX];
	char path[IRDAD_PATH_MAX + 32];

	if (cfg->socket[0])
		return 0;
	if (irnet_port_name(cfg->device, base, sizeof(base)) < 0)
		return global_error(cfg, IRDAD_KEY_DEVICE, cfg->device, file, err, errlen,
				    "ends in '/': not a device");
	int n = snprintf(path, sizeof(path), "/run/irnet/%s.sock", base);
	if (n < 0 || (size_t)n > IRDAD_SOCKET_PATH_MAX)
		return global_error(cfg, IRDAD_KEY_DEVICE, cfg->device, file, err, errlen,
				    "the socket /run/irnet/%s.sock would be longer than %d "
				    "bytes: set socket", base, IRDAD_SOCKET_PATH_MAX);
	set_field(cfg->socket, sizeof(cfg->socket), path, (size_t)n);
	return 0;
}

static int ep_error(const struct irdad_endpoint *ep, const char *file, char *err,
		    size_t errlen, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int ep_error(const struct irdad_endpoint *ep, const char *file, char *err,
		    size_t errlen, const char *fmt, ...)
{
	char why[400];
	uint32_t line = ep->key_line[IRDAD_EP_KEY_PTY] ? ep->key_line[IRDAD_EP_KEY_PTY] :
							    ep->line;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%u: [%s %s] pty %s: %s", file ? file : "(config)", line,
		 irdad_service_name(ep->service), ep->name, ep->pty_link, why);
	return -EINVAL;
}

static int check_ptys(const struct irdad_config *cfg, const char *file, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < cfg->nendpoints; i++) {
		const struct irdad_endpoint *ep = &cfg->ep[i];
		if (strcmp(ep->pty_link, cfg->socket) == 0)
			return ep_error(ep, file, err, errlen, "that is the control socket");
		for (size_t j = 0; j < i; j++) {
			if (strcmp(ep->pty_link, cfg->ep[j].pty_link) == 0)
				return ep_error(ep, file, err, errlen,
						"also the pty of [%s %s] (line %u)",
						irdad_service_name(cfg->ep[j].service),
						cfg->ep[j].name, cfg->ep[j].line);
		}
	}
	return 0;
}

int irdad_config_finish(struct irdad_config *cfg, const char *file, char *err,
			size_t errlen)
{
	int rc;

	if (!cfg->device[0]) {
		if (file)
			snprintf(err, errlen, "%s: no device: set device in the file or give "
				 "--device", file);
		else
			snprintf(err, errlen, "no device: give --device");
		return -EINVAL;
	}
	if ((rc = check_speed(cfg, file, err, errlen)) < 0 ||
	    (rc = derive_socket(cfg, file, err, errlen)) < 0)
		return rc;
	if (!cfg->ias_name[0])
		set_field(cfg->ias_name, sizeof(cfg->ias_name), cfg->nickname,
			  strlen(cfg->nickname));
	return check_ptys(cfg, file, err, errlen);
}

int irdad_config_build(const void *text, size_t len, const char *file,
		       const struct irdad_overrides *ov, struct irdad_config *out,
		       char *err, size_t errlen)
{
	int rc;
	if (text)
		rc = irdad_config_parse(text, len, file, out, err, errlen);
	else
		irdad_config_defaults(out), rc = 0;
	if (rc == 0)
		rc = irdad_config_apply_overrides(out, ov, err, errlen);
	if (rc == 0)
		rc = irdad_config_finish(out, file, err, errlen);
	return rc;
}

size_t irdad_config_hint_bytes(const struct irdad_config *cfg, uint8_t out[2])
{
	uint16_t h = cfg->hints;

	for (size_t i = 0; i < cfg->nendpoints; i++) {
		const struct irdad_endpoint *ep = &cfg->ep[i];
		if (ep->role != IRDAD_ROLE_LISTEN)
			continue;
		if (ep->service == IRDAD_SVC_IRNET)
			h |= IRDAD_HINT_LAN;
		else
			h |= IRDAD_HINT_IRCOMM |
			     (ep->wire == IRDAD_WIRE_3_RAW ? IRDAD_HINT_PRINTER : 0);
	}
	out[0] = (uint8_t)(h >> 8);
	out[1] = (uint8_t)h;
	if (!out[1])
		return 1;
	out[0] |= 0x80;
	return 2;
}

int irdad_config_find(const struct irdad_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nendpoints; i++)
		if (strcmp(cfg->ep[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* --- reload ---------------------------------------------------------------- */

/* The settings of two endpoints of the same service and name. */
static bool ep_same(const struct irdad_endpoint *a, const struct irdad_endpoint *b)
{
	return a->role == b->role && a->peer.kind == b->peer.kind &&
	       a->peer.address == b->peer.address &&
	       strcmp(a->peer.nickname, b->peer.nickname) == 0 && a->wire == b->wire &&
	       strcmp(a->pty_link, b->pty_link) == 0 && a->reconnect == b->reconnect;
}

static const void *field(const struct irdad_config *cfg, enum irdad_key k)
{
	return (const uint8_t *)cfg + keys[k].off;
}

void irdad_config_diff(const struct irdad_config *old, const struct irdad_config *new_cfg,
		       struct irdad_config_diff *d)
{
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < old->nendpoints; i++)
		d->old_ep[i] = IRDAD_EP_REMOVED;
	for (size_t j = 0; j < new_cfg->nendpoints; j++) {
		const struct irdad_endpoint *ep = &new_cfg->ep[j];
		int i = irdad_config_find(old, ep->name);
		if (i >= 0 && old->ep[i].service != ep->service)
			i = -1;   /* same name, other service: a new endpoint */
		d->old_index[j] = i;
		if (i < 0) {
			d->new_ep[j] = IRDAD_EP_ADDED;
			d->added++;
			continue;
		}
		d->new_ep[j] = d->old_ep[i] = ep_same(&old->ep[i], ep) ? IRDAD_EP_KEPT :
									  IRDAD_EP_CHANGED;
		if (d->new_ep[j] == IRDAD_EP_CHANGED)
			d->changed++;
	}
	for (size_t i = 0; i < old->nendpoints; i++)
		if (d->old_ep[i] == IRDAD_EP_REMOVED)
			d->removed++;
	for (int k = 0; k < IRDAD_KEY_COUNT; k++)
		if (memcmp(field(old, k), field(new_cfg, k), keys[k].size) != 0)
			d->keys_changed |= 1u << k;
}

int irdad_config_reload_text(struct irdad_config *cur, const void *text, size_t len,
			     const char *file, const struct irdad_overrides *ov,
			     struct irdad_config_diff *d, char *err, size_t errlen)
{
	struct irdad_config *next = malloc(sizeof(*next));
	int rc;

	if (!next) {
		snprintf(err, errlen, "%s: out of memory", file ? file : "reload");
		return -ENOMEM;
	}
	rc = irdad_config_build(text, len, file, ov, next, err, errlen);
	if (rc == 0) {
		irdad_config_diff(cur, next, d);
		for (int k = 0; k < IRDAD_KEY_COUNT; k++) {
			if (!(d->keys_changed & (1u << k)) || keys[k].reloadable)
				continue;
			memcpy((uint8_t *)next + keys[k].off, field(cur, k), keys[k].size);
			next->key_line[k] = cur->key_line[k];
			d->keys_kept |= 1u << k;
		}
		/* the new endpoints against the socket that stays */
		rc = check_ptys(next, file, err, errlen);
	}
	if (rc == 0)
		memcpy(cur, next, sizeof(*cur));
	free(next);
	return rc;
}

/* --- writing a configuration out ------------------------------------------ */

/* A value as the parser reads it back: bare when it can be, else quoted
 * with '"' and '\\' escaped. */
static void put_value(struct text *t, const char *v)
{
	size_t n = strlen(v);
	bool quote = n == 0 || v[0] == '#' || strpbrk(v, " \t\"\\") != NULL;

	if (!quote) {
		text_put(t, v, n);
		return;
	}
	text_put(t, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '"' || v[i] == '\\')
			text_put(t, "\\", 1);
		text_put(t, &v[i], 1);
	}
	text_put(t, "\"", 1);
}

static void put_key(struct text *t, const char *key, const char *value)
{
	text_add(t, "%s ", key);
	put_value(t, value);
	text_put(t, "\n", 1);
}

static void put_duration(struct text *t, const char *key, uint32_t ms)
{
	if (ms == 0)
		text_add(t, "%s 0\n", key);
	else
		text_add(t, "%s %ums\n", key, ms);
}

static void put_hints(struct text *t, uint16_t hints)
{
	bool first = true;
	uint16_t named = 0;

	for (size_t i = 0; i < sizeof(hint_names) / sizeof(hint_names[0]); i++)
		named |= hint_names[i].bit;
	if (hints & ~named) {   /* a reserved bit: only the number says it */
		text_add(t, "hints 0x%04x\n", hints);
		return;
	}
	text_add(t, "hints ");
	for (size_t i = 0; i < sizeof(hint_names) / sizeof(hint_names[0]); i++) {
		if (!(hints & hint_names[i].bit))
			continue;
		text_add(t, "%s%s", first ? "" : ",", hint_names[i].name);
		first = false;
	}
	text_add(t, "%s\n", first ? "none" : "");
}

static void put_endpoint(struct text *t, const struct irdad_endpoint *ep)
{
	text_add(t, "\n[%s %s]\nrole %s\n", irdad_service_name(ep->service), ep->name,
		 role_names[ep->role]);
	if (ep->peer.kind == IRDAD_PEER_ADDRESS)
		text_add(t, "peer address 0x%08x\n", ep->peer.address);
	else if (ep->peer.kind == IRDAD_PEER_NICKNAME) {
		text_add(t, "peer nickname ");
		put_value(t, ep->peer.nickname);
		text_put(t, "\n", 1);
	}
	if (ep->service == IRDAD_SVC_IRCOMM)
		text_add(t, "wire %s\n", irdad_wire_name(ep->wire));
	put_key(t, "pty", ep->pty_link);
	if (ep->role == IRDAD_ROLE_CALL)
		text_add(t, "reconnect %s\n", ep->reconnect ? "yes" : "no");
}

long irdad_config_write(const struct irdad_config *cfg, char *buf, size_t cap)
{
	static const char *const levels[] = { "error", "warning", "info", "debug" };
	struct text t;

	text_init(&t, buf, cap);
	put_key(&t, "device", cfg->device);
	put_key(&t, "dongle", cfg->dongle);
	text_add(&t, "speed %u\n", cfg->speed);
	if (cfg->min_tat_us < 0)
		text_add(&t, "min-turnaround dongle\n");
	else
		text_add(&t, "min-turnaround %ld\n", cfg->min_tat_us);
	put_key(&t, "nickname", cfg->nickname);
	put_hints(&t, cfg->hints);
	if (cfg->ias_name[0])
		put_key(&t, "ias-name", cfg->ias_name);
	put_key(&t, "user", cfg->user);
	put_key(&t, "group", cfg->group);
	if (cfg->socket[0])
		put_key(&t, "socket", cfg->socket);
	text_add(&t, "socket-mode 0%03o\n", cfg->socket_mode);
	put_key(&t, "lock-dir", cfg->lock_dir[0] ? cfg->lock_dir : "none");
	text_add(&t, "seccomp %s\n", cfg->seccomp ? "yes" : "no");
	put_duration(&t, "discovery-period", cfg->discovery_ms);
	put_duration(&t, "idle-timeout", cfg->idle_ms);
	text_add(&t, "log %s\n", cfg->log == IRDAD_LOG_STDERR ? "stderr" : "syslog");
	text_add(&t, "log-level %s\n",
		 (unsigned)cfg->log_level <= LOG_LEVEL_DEBUG ? levels[cfg->log_level] : "info");
	put_key(&t, "pcap", cfg->pcap[0] ? cfg->pcap : "none");
	for (size_t i = 0; i < cfg->nendpoints && i < IRDAD_ENDPOINTS_MAX; i++)
		put_endpoint(&t, &cfg->ep[i]);
	if (t.len + 1 >= cap)
		return -ENOSPC;   /* cut (or exactly full: cannot tell) */
	return (long)t.len;
}
