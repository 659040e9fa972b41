/*
 * irnet_helper.c: the helper's command line and its status lines.
 * See irnet_helper.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "irnet_helper.h"

#include <stdio.h>
#include <string.h>

#include "cursor.h"

bool irnet_settings_check(const struct irnet_settings *s, char *why, size_t whylen)
{
	if (!s->device && !s->daemon) {
		snprintf(why, whylen, "irnet: no port: give irnet-device (or irnet-daemon)");
		return false;
	}
	if (s->listen && (s->peer_name || s->peer_daddr)) {
		snprintf(why, whylen, "irnet: irnet-listen answers any caller: it cannot go "
				      "with irnet-name or irnet-daddr");
		return false;
	}
	if (s->peer_name && s->peer_daddr) {
		snprintf(why, whylen, "irnet: give irnet-name or irnet-daddr, not both");
		return false;
	}
	if (s->discovery_timeout_s == 0 || s->discovery_timeout_s > IRNET_DISCOVERY_TIMEOUT_MAX) {
		snprintf(why, whylen, "irnet: irnet-discovery-timeout must be 1 to %u seconds",
			 IRNET_DISCOVERY_TIMEOUT_MAX);
		return false;
	}
	return true;
}

/* Appends one argument (the concatenation of a and b) to out. */
static bool push2(struct irnet_argv *out, const char *a, const char *b)
{
	size_t la = strlen(a), lb = b ? strlen(b) : 0;
	if (out->argc >= IRNET_ARGV_MAX || out->used + la + lb + 1 > sizeof(out->text))
		return false;
	char *at = out->text + out->used;
	memcpy(at, a, la);
	if (lb)
		memcpy(at + la, b, lb);
	at[la + lb] = '\0';
	out->argv[out->argc++] = at;
	out->argv[out->argc] = NULL;
	out->used += la + lb + 1;
	return true;
}

static bool push(struct irnet_argv *out, const char *a) { return push2(out, a, NULL); }

static bool push_opt(struct irnet_argv *out, const char *opt, const char *value)
{
	return !value || (push(out, opt) && push(out, value));
}

static bool push_uint(struct irnet_argv *out, const char *opt, unsigned value)
{
	char num[16];
	snprintf(num, sizeof(num), "%u", value);
	return !value || (push(out, opt) && push(out, num));
}

bool irnet_helper_argv(const struct irnet_settings *s, struct irnet_argv *out)
{
	char num[16];
	bool ok = true;

	memset(out, 0, sizeof(*out));
	ok = ok && push(out, s->helper) && push(out, "--stdio");
	ok = ok && push_opt(out, "--device", s->device);
	if (s->mode == IRNET_MODE_IRCOMM)
		ok = ok && push(out, "--service") && push(out, "ircomm");
	if (s->listen)
		ok = ok && push(out, "--listen");
	if (s->peer_daddr) {
		snprintf(num, sizeof(num), "0x%08x", (unsigned)s->peer_daddr);
		ok = ok && push_opt(out, "--peer", num);
	}
	ok = ok && push_opt(out, "--peer", s->peer_name);
	if (!s->listen)
		ok = ok && push_uint(out, "--connect-timeout", s->discovery_timeout_s);
	snprintf(num, sizeof(num), "%d", s->status_fd);
	ok = ok && push_opt(out, "--status-fd", num);
	/* pppd holds the UUCP lock of the port (it owns the port through us). */
	ok = ok && push_opt(out, "--lock-dir", "none");
	ok = ok && push_opt(out, "--log", s->log_to_stderr ? "stderr" : "syslog");
	ok = ok && push_opt(out, "--dongle", s->dongle);
	ok = ok && push_uint(out, "--speed", s->speed);
	ok = ok && push_uint(out, "--min-turnaround", s->min_turnaround_us);
	ok = ok && push_opt(out, "--nickname", s->nickname);
	ok = ok && push_opt(out, "--pcap", s->pcap);
	ok = ok && push_opt(out, "--user", s->user);
	if (s->no_seccomp)
		ok = ok && push(out, "--no-seccomp");
	ok = ok && push(out, s->debug ? "-vv" : "-v");
	return ok;
}

/* `0x` and exactly 8 hex digits. */
static bool parse_daddr(struct cursor *c, uint32_t *out)
{
	uint64_t v;
	size_t n;

	if (!cursor_literal(c, "0x") || !cursor_parse_hex(c, 8, &v, &n) || n != 8)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* A quoted nickname: `"` ... `"`, with \" \\ and \xHH escapes. */
static bool parse_quoted(struct cursor *c, struct irnet_status_line *out)
{
	uint8_t ch;
	uint64_t hex;
	size_t n;

	if (!cursor_literal(c, "\""))
		return false;
	out->nickname_len = 0;
	for (;;) {
		if (!cursor_u8(c, &ch))
			return false;
		if (ch == '"')
			break;
		if (ch == '\\') {
			if (!cursor_u8(c, &ch))
				return false;
			if (ch == 'x') {
				if (!cursor_parse_hex(c, 2, &hex, &n) || n != 2)
					return false;
				ch = (uint8_t)hex;
			} else if (ch != '"' && ch != '\\') {
				return false;
			}
		}
		if (out->nickname_len + 1 >= sizeof(out->nickname))
			return false;
		out->nickname[out->nickname_len++] = (char)ch;
	}
	out->nickname[out->nickname_len] = '\0';
	return true;
}

/* ` WORD` to the end: letters, digits and '-'. */
static bool parse_reason(struct cursor *c, struct irnet_status_line *out)
{
	struct cursor word;
	if (!cursor_literal(c, " ") || !cursor_word(c, &word) || !cursor_at_end(c))
		return false;
	for (size_t i = 0; i < word.len; i++) {
		uint8_t ch = word.data[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'))
			return false;
	}
	return cursor_to_cstr(&word, out->word, sizeof(out->word));
}

bool irnet_status_parse(const void *line, size_t len, struct irnet_status_line *out)
{
	struct cursor c;

	memset(out, 0, sizeof(*out));
	cursor_init(&c, line, len);
	if (cursor_literal(&c, "listening")) {
		out->kind = IRNET_STATUS_LISTENING;
		return cursor_at_end(&c);
	}
	if (cursor_literal(&c, "up ")) {
		out->kind = IRNET_STATUS_UP;
		return parse_daddr(&c, &out->daddr) && cursor_literal(&c, " ") &&
		       parse_quoted(&c, out) && cursor_at_end(&c);
	}
	if (cursor_literal(&c, "failed")) {
		out->kind = IRNET_STATUS_FAILED;
		return parse_reason(&c, out);
	}
	if (cursor_literal(&c, "down")) {
		out->kind = IRNET_STATUS_DOWN;
		return parse_reason(&c, out);
	}
	return false;
}

static const struct {
	const char *word;
	enum irnet_exit_class cls;
	const char *text;
} failures[] = {
	{ "no-peer", IRNET_EXIT_CONNECT_FAILED, "no IrDA peer found (none in range, or none matching)" },
	{ "not-offered", IRNET_EXIT_CONNECT_FAILED, "the peers in range do not offer the service" },
	{ "refused", IRNET_EXIT_CONNECT_FAILED, "the peer refused the connection" },
	{ "no-answer", IRNET_EXIT_CONNECT_FAILED, "the peer did not answer (IAS or connect timed out)" },
	{ "busy", IRNET_EXIT_CONNECT_FAILED, "the link is busy with another station, or the medium never went quiet" },
	{ "dongle", IRNET_EXIT_OPEN_FAILED, "the port or its dongle is not answering" },
	{ "closed", IRNET_EXIT_CONNECT_FAILED, "the channel closed before the link came up" },
};

const char *irnet_failure_text(const char *word, enum irnet_exit_class *cls)
{
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
		if (strcmp(word, failures[i].word) == 0) {
			*cls = failures[i].cls;
			return failures[i].text;
		}
	}
	*cls = IRNET_EXIT_CONNECT_FAILED;
	return "the connection failed for a reason this plugin does not know";
}

void irnet_printable_name(const struct irnet_status_line *st, char *buf, size_t cap)
{
	size_t n = st->nickname_len < cap - 1 ? st->nickname_len : cap - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)st->nickname[i];
		buf[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	buf[n] = '\0';
}
