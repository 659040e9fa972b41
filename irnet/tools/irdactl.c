/*
 * irdactl: asks irdad, through its local API, what it knows: the link and
 * its connections (status), the stations in range (stations), a value of
 * a station's IAS (ias), and stations arriving and leaving (watch).
 * Text for people, --json for scripts.  Links only the client library.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cursor.h"
#include "irnet_client.h"
#include "irnet_names.h"
#include "tool_signals.h"

#define EXIT_JOB 1
#define EXIT_USAGE 2
#define TIMEOUT_MS 10000
#define DISCOVER_TIMEOUT_MS 15000

struct opts {
	const char *socket, *port, *where;
	const char *cmd;
	const char *args[2];
	size_t nargs;
	bool json, fresh, has_addr;
	uint32_t addr;
};

static void usage(FILE *f)
{
	fputs("usage: irdactl [-s SOCKET | -p PORT] COMMAND [--json]\n"
	      "Asks irdad (the daemon of one IrDA port) through its local API.\n"
	      "  -s, --socket SOCKET   irdad's control socket\n"
	      "  -p, --port PORT       the port's name (ttyUSB0): /run/irnet/PORT.sock\n"
	      "  --json                print JSON instead of text\n"
	      "Commands:\n"
	      "  status                the link, its peer, counters, connections and owners\n"
	      "  stations [--fresh]    the stations in range (--fresh: discover now)\n"
	      "  ias CLASS ATTRIBUTE [--address ADDR]\n"
	      "                        a value of the stations' IAS (all stations known, or ADDR)\n"
	      "  watch                 print stations arriving and leaving until SIGINT\n"
	      "Exit: 0 done, 1 irdad unreachable or the request failed, 2 usage error.\n", f);
}

/* A device address: decimal, or hex after 0x (as the programs print it). */
static bool parse_addr(const char *s, uint64_t *out)
{
	struct cursor c;
	uint8_t ch;
	size_t digits = 0;

	cursor_init(&c, s, strlen(s));
	if (!cursor_literal(&c, "0x") && !cursor_literal(&c, "0X"))
		return cursor_parse_u64(&c, out) && cursor_at_end(&c);
	*out = 0;
	while (cursor_peek_u8(&c, &ch)) {
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
			ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;

		if (d < 0 || ++digits > 8)
			return false;
		*out = *out << 4 | (uint64_t)d;
		cursor_skip(&c, 1);
	}
	return digits > 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "fresh", no_argument, NULL, 'f' },
		{ "address", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "s:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 's': o->socket = optarg; break;
		case 'p': o->port = optarg; break;
		case 'j': o->json = true; break;
		case 'f': o->fresh = true; break;
		case 'a': {
			uint64_t v;

			if (!parse_addr(optarg, &v) || v == 0 || v > 0xffffffffu) {
				fprintf(stderr, "irdactl: --address %s: a device address, "
					"1..0xffffffff\n", optarg);
				return -1;
			}
			o->addr = (uint32_t)v;
			o->has_addr = true;
			break;
		}
		case 'h': usage(stdout); exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (!!o->socket == !!o->port) {
		fputs("irdactl: give irdad's socket (-s SOCKET) or its port (-p PORT)\n", stderr);
		return -1;
	}
	if (optind >= argc) {
		fputs("irdactl: no command (status, stations, ias, watch)\n", stderr);
		return -1;
	}
	o->cmd = argv[optind++];
	while (optind < argc) {
		if (o->nargs == 2) {
			fprintf(stderr, "irdactl: %s: unexpected argument '%s'\n", o->cmd,
				argv[optind]);
			return -1;
		}
		o->args[o->nargs++] = argv[optind++];
	}
	bool ias = strcmp(o->cmd, "ias") == 0;
	if (strcmp(o->cmd, "status") && strcmp(o->cmd, "stations") && !ias &&
	    strcmp(o->cmd, "watch")) {
		fprintf(stderr, "irdactl: unknown command '%s' (status, stations, ias, watch)\n",
			o->cmd);
		return -1;
	}
	if (ias ? o->nargs != 2 : o->nargs != 0) {
		fprintf(stderr, ias ? "irdactl: ias: needs CLASS and ATTRIBUTE\n" :
			"irdactl: %s: unexpected argument '%s'\n", o->cmd, o->args[0]);
		return -1;
	}
	if ((o->fresh && strcmp(o->cmd, "stations")) || (o->has_addr && !ias)) {
		fprintf(stderr, "irdactl: %s: only with %s\n", o->fresh ? "--fresh" : "--address",
			o->fresh ? "stations" : "ias");
		return -1;
	}
	for (size_t i = 0; ias && i < 2; i++) {
		if (!o->args[i][0] || strlen(o->args[i]) > 60) {
			fprintf(stderr, "irdactl: ias: '%s': an IAS name is 1..60 bytes\n",
				o->args[i]);
			return -1;
		}
	}
	o->where = o->socket ? o->socket : o->port;
	return 0;
}

/* A request failed: the socket, the command and irdad's (or the
 * library's) words. */
static int failed(const struct opts *o, struct irnet_client *cl, const char *what)
{
	fprintf(stderr, "irdactl: %s: %s: %s\n", o->where, what, irnet_client_error(cl));
	return EXIT_JOB;
}

static void addr_text(uint32_t addr, char *buf, size_t cap)
{
	snprintf(buf, cap, "0x%08x", addr);
}

static void json_put_str(json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key, json_object_new_string(val));
}

static void json_put_addr(json_object *o, const char *key, uint32_t addr)
{
	char a[16];

	addr_text(addr, a, sizeof(a));
	json_put_str(o, key, a);
}

static void json_print(json_object *root)
{
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
}

static const char *mode_name(uint8_t mode)
{
	switch (mode) {
	case IRDAD_MODE_STREAM: return "stream";
	case IRDAD_MODE_SAR: return "sar";
	case IRDAD_MODE_LMP: return "lmp";
	default: return "?";
	}
}

/* When the port went away, as local time: "2026-12-01 21:40:12". */
static void gone_since_text(uint32_t gone_ms, char *buf, size_t cap)
{
	time_t at = time(NULL) - (time_t)(gone_ms / 1000);
	struct tm tm;

	if (!localtime_r(&at, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, cap, "?");
}

/* "port: up", "port: gone since ..., waiting for PATH"; nothing from an
 * irdad that does not say. */
static void print_port_state(const struct irnet_status *st)
{
	char since[32];

	if (!st->has_port_state)
		return;
	if (st->port_state == IRDAD_PORT_UP) {
		printf("port: up\n");
		return;
	}
	gone_since_text(st->port_gone_ms, since, sizeof(since));
	printf("port: gone since %s (%u s)%s%s\n", since, (unsigned)(st->port_gone_ms / 1000),
	       st->port_path[0] ? ", waiting for " : "", st->port_path);
}

static void json_port_state(json_object *root, const struct irnet_status *st)
{
	char since[32];

	if (!st->has_port_state)
		return;
	json_put_str(root, "port_state", st->port_state == IRDAD_PORT_UP ? "up" : "gone");
	if (st->port_state == IRDAD_PORT_UP)
		return;
	gone_since_text(st->port_gone_ms, since, sizeof(since));
	json_put_str(root, "port_gone_since", since);
	json_object_object_add(root, "port_gone_ms", json_object_new_int64(st->port_gone_ms));
	if (st->port_path[0])
		json_put_str(root, "port_waiting_for", st->port_path);
}

static const char *link_name(uint8_t link)
{
	switch (link) {
	case IRDAD_LINK_DOWN: return "down";
	case IRDAD_LINK_CONNECTING: return "connecting";
	case IRDAD_LINK_UP: return "up";
	default: return "?";
	}
}

static int cmd_status(const struct opts *o, struct irnet_client *cl)
{
	const struct irnet_client_hello *h = irnet_client_hello(cl);
	static struct irnet_status st;
	char nick[4 * 24 + 1], peer[16] = "";

	if (irnet_client_status(cl, &st, TIMEOUT_MS) < 0)
		return failed(o, cl, "status");
	irnet_bytes_text(h->nickname, h->nickname_len, nick, sizeof(nick));
	if (st.has_peer)
		addr_text(st.peer, peer, sizeof(peer));
	if (!o->json) {
		printf("port %s, address 0x%08x, nickname %s\n", h->port, h->addr, nick);
		printf("link %s%s%s\n", link_name(st.link), st.has_peer ? " to " : "", peer);
		print_port_state(&st);
		for (size_t i = 0; i < st.n_counters; i++)
			printf("  %-22s %llu\n", st.counters[i].name,
			       (unsigned long long)st.counters[i].value);
		printf("%zu connection%s\n", st.n_conns, st.n_conns == 1 ? "" : "s");
		for (size_t i = 0; i < st.n_conns; i++) {
			const struct irnet_status_conn *c = &st.conns[i];

			printf("  %u %-6s 0x%08x LSAP 0x%02x -> 0x%02x  %s\n", (unsigned)c->conn_id,
			       mode_name(c->mode), c->daddr, c->lsap, c->peer_lsap,
			       c->owner[0] ? c->owner : "(owner not said)");
		}
		return 0;
	}
	json_object *root = json_object_new_object(), *cs = json_object_new_object(),
		    *conns = json_object_new_array();

	json_put_str(root, "port", h->port);
	json_put_addr(root, "address", h->addr);
	json_put_str(root, "nickname", nick);
	json_put_str(root, "link", link_name(st.link));
	json_port_state(root, &st);
	if (st.has_peer)
		json_put_str(root, "peer", peer);
	for (size_t i = 0; i < st.n_counters; i++)
		json_object_object_add(cs, st.counters[i].name,
				       json_object_new_int64((int64_t)st.counters[i].value));
	json_object_object_add(root, "counters", cs);
	for (size_t i = 0; i < st.n_conns; i++) {
		const struct irnet_status_conn *c = &st.conns[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "id", json_object_new_int64(c->conn_id));
		json_put_str(j, "mode", mode_name(c->mode));
		json_put_addr(j, "peer", c->daddr);
		json_object_object_add(j, "lsap", json_object_new_int(c->lsap));
		json_object_object_add(j, "peer_lsap", json_object_new_int(c->peer_lsap));
		json_put_str(j, "owner", c->owner);
		json_object_array_add(conns, j);
	}
	json_object_object_add(root, "connections", conns);
	json_print(root);
	return 0;
}

static void hints_text(uint16_t hints, char *buf, size_t cap)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < irnet_hint_names_n; i++) {
		if (!(hints & irnet_hint_names[i].bit))
			continue;
		int n = snprintf(buf + o, cap - o, "%s%s", o ? "," : "", irnet_hint_names[i].name);

		if (n < 0 || (size_t)n >= cap - o)
			break;
		o += (size_t)n;
	}
	if (!o)
		snprintf(buf, cap, "none");
}

/* One station as a line (prefix: "" or "+ "/"- " for watch). */
static void station_line(const char *prefix, const struct irnet_station *s)
{
	char nick[4 * 24 + 1], hints[160];

	irnet_bytes_text(s->nickname, s->nickname_len, nick, sizeof(nick));
	hints_text(s->hints, hints, sizeof(hints));
	printf("%s0x%08x  %-20s  hints=%s (%04x)", prefix, s->addr, nick, hints, s->hints);
	if (s->has_age)
		printf("  seen %u ms ago", (unsigned)s->age_ms);
	putchar('\n');
}

static json_object *station_json(const struct irnet_station *s)
{
	json_object *j = json_object_new_object(), *h = json_object_new_array();
	char nick[4 * 24 + 1], hex[8];

	irnet_bytes_text(s->nickname, s->nickname_len, nick, sizeof(nick));
	snprintf(hex, sizeof(hex), "%04x", s->hints);
	for (size_t i = 0; i < irnet_hint_names_n; i++)
		if (s->hints & irnet_hint_names[i].bit)
			json_object_array_add(h, json_object_new_string(irnet_hint_names[i].name));
	json_put_addr(j, "address", s->addr);
	json_put_str(j, "nickname", nick);
	json_put_str(j, "charset", irnet_charset_name(s->charset));
	json_put_str(j, "hint_bytes", hex);
	json_object_object_add(j, "hints", h);
	if (s->has_age)
		json_object_object_add(j, "age_ms", json_object_new_int64(s->age_ms));
	return j;
}

static int cmd_stations(const struct opts *o, struct irnet_client *cl)
{
	static struct irnet_station st[IRNET_CLIENT_STATIONS_MAX];
	size_t n = 0;

	if (irnet_client_discover(cl, o->fresh, st, IRNET_CLIENT_STATIONS_MAX, &n,
				  DISCOVER_TIMEOUT_MS) < 0)
		return failed(o, cl, o->fresh ? "stations --fresh" : "stations");
	if (n > IRNET_CLIENT_STATIONS_MAX)
		n = IRNET_CLIENT_STATIONS_MAX;
	if (!o->json) {
		for (size_t i = 0; i < n; i++)
			station_line("", &st[i]);
		if (n == 0)
			printf("no station in range%s\n", o->fresh ? "" :
			       " (as last seen; --fresh discovers now)");
		return 0;
	}
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, station_json(&st[i]));
	json_print(arr);
	return 0;
}

static void ias_value_text(const struct irnet_ias_value *v, char *buf, size_t cap)
{
	switch (v->type) {
	case IRDAD_IAS_INT:
		snprintf(buf, cap, "integer %u", (unsigned)v->integer);
		break;
	case IRDAD_IAS_STRING: {
		char s[4 * sizeof(v->bytes) + 1];

		irnet_bytes_text(v->bytes, v->len, s, sizeof(s));
		snprintf(buf, cap, "string (%s) \"%s\"", irnet_charset_name(v->charset), s);
		break;
	}
	case IRDAD_IAS_OCTETS: {
		size_t o = snprintf(buf, cap, "octets ") > 0 ? 7 : 0;

		for (size_t i = 0; i < v->len && o + 3 <= cap; i++, o += 2)
			snprintf(buf + o, cap - o, "%02x", v->bytes[i]);
		break;
	}
	default:
		snprintf(buf, cap, "missing");
	}
}

static json_object *ias_value_json(const struct irnet_ias_value *v)
{
	json_object *j = json_object_new_object();
	char text[4 * sizeof(v->bytes) + 1];

	json_object_object_add(j, "object", json_object_new_int64(v->obj_id));
	switch (v->type) {
	case IRDAD_IAS_INT:
		json_put_str(j, "type", "integer");
		json_object_object_add(j, "value", json_object_new_int64(v->integer));
		break;
	case IRDAD_IAS_STRING:
		json_put_str(j, "type", "string");
		json_put_str(j, "charset", irnet_charset_name(v->charset));
		json_put_str(j, "value", irnet_bytes_text(v->bytes, v->len, text, sizeof(text)));
		break;
	case IRDAD_IAS_OCTETS:
		json_put_str(j, "type", "octets");
		text[0] = '\0';
		for (size_t i = 0; i < v->len; i++)
			snprintf(text + 2 * i, sizeof(text) - 2 * i, "%02x", v->bytes[i]);
		json_put_str(j, "value", text);
		break;
	default:
		json_put_str(j, "type", "missing");
	}
	return j;
}

/* Asks one station; prints its answer.  True if it had a value. */
static bool ias_one(const struct opts *o, struct irnet_client *cl, uint32_t addr,
		    json_object *arr)
{
	static struct irnet_ias_value v[IRNET_CLIENT_IAS_VALUES_MAX];
	size_t n = 0;
	char text[4 * sizeof(v[0].bytes) + 32];
	int r = irnet_client_ias_query(cl, addr, o->args[0], o->args[1], v,
				       IRNET_CLIENT_IAS_VALUES_MAX, &n, TIMEOUT_MS);

	if (n > IRNET_CLIENT_IAS_VALUES_MAX)
		n = IRNET_CLIENT_IAS_VALUES_MAX;
	if (o->json) {
		json_object *j = json_object_new_object(), *vals = json_object_new_array();

		json_put_addr(j, "address", addr);
		if (r < 0)
			json_put_str(j, "error", irnet_client_error(cl));
		for (size_t i = 0; r >= 0 && i < n; i++)
			json_object_array_add(vals, ias_value_json(&v[i]));
		json_object_object_add(j, "values", vals);
		json_object_array_add(arr, j);
	} else if (r < 0) {
		fprintf(stderr, "irdactl: %s: ias %s %s at 0x%08x: %s\n", o->where, o->args[0],
			o->args[1], addr, irnet_client_error(cl));
	} else {
		for (size_t i = 0; i < n; i++) {
			ias_value_text(&v[i], text, sizeof(text));
			printf("0x%08x  object %u  %s\n", addr, (unsigned)v[i].obj_id, text);
		}
	}
	return r >= 0 && n > 0;
}

static int cmd_ias(const struct opts *o, struct irnet_client *cl)
{
	static struct irnet_station st[IRNET_CLIENT_STATIONS_MAX];
	json_object *arr = o->json ? json_object_new_array() : NULL;
	size_t n = 0;
	bool any = false;

	if (o->has_addr) {
		st[0].addr = o->addr;
		n = 1;
	} else {
		/* The stations known, or a discovery now when none is. */
		int r = irnet_client_discover(cl, false, st, IRNET_CLIENT_STATIONS_MAX, &n,
					      DISCOVER_TIMEOUT_MS);

		if (r >= 0 && n == 0)
			r = irnet_client_discover(cl, true, st, IRNET_CLIENT_STATIONS_MAX, &n,
						  DISCOVER_TIMEOUT_MS);
		if (r < 0) {
			json_object_put(arr);
			return failed(o, cl, "ias: finding the stations");
		}
		if (n > IRNET_CLIENT_STATIONS_MAX)
			n = IRNET_CLIENT_STATIONS_MAX;
		if (n == 0) {
			json_object_put(arr);
			fprintf(stderr, "irdactl: %s: ias: no station in range\n", o->where);
			return EXIT_JOB;
		}
	}
	for (size_t i = 0; i < n; i++)
		any = ias_one(o, cl, st[i].addr, arr) || any;
	if (arr)
		json_print(arr);
	return any ? 0 : EXIT_JOB;
}

static void watch_print(const struct opts *o, const struct irnet_event *ev)
{
	if (o->json) {
		json_object *j = station_json(&ev->station);

		json_put_str(j, "event", ev->present ? "arrived" : "left");
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
		json_object_put(j);
	} else {
		station_line(ev->present ? "+ " : "- ", &ev->station);
	}
	fflush(stdout);
}

static int cmd_watch(const struct opts *o, struct irnet_client *cl)
{
	int sfd = tool_signals_fd(), rc = EXIT_JOB;
	struct irnet_event ev;

	if (sfd < 0) {
		fprintf(stderr, "irdactl: signalfd: %s\n", strerror(errno));
		return EXIT_JOB;
	}
	if (irnet_client_watch(cl, IRDAD_WATCH_STATIONS, TIMEOUT_MS) < 0) {
		close(sfd);
		return failed(o, cl, "watch");
	}
	if (!o->json)
		printf("watching %s (+ arrived, - left; Ctrl-C ends)\n", o->where);
	fflush(stdout);
	for (;;) {
		int r;

		/* Events may be queued with the socket not readable: drain. */
		while ((r = irnet_client_next_event(cl, &ev)) == 1) {
			if (ev.fd >= 0)
				close(ev.fd);
			if (ev.type == IRNET_EVENT_STATION)
				watch_print(o, &ev);
		}
		if (r < 0) {
			rc = failed(o, cl, "watch");
			break;
		}
		struct pollfd p[2] = { { .fd = irnet_client_fd(cl), .events = POLLIN },
				       { .fd = sfd, .events = POLLIN } };

		if (poll(p, 2, -1) < 0 && errno != EINTR) {
			fprintf(stderr, "irdactl: poll: %s\n", strerror(errno));
			break;
		}
		if (p[1].revents) {
			rc = 0;
			break;
		}
	}
	close(sfd);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct irnet_client *cl;
	char err[512], path[256];
	int rc;

	if (parse(argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (o.socket && !strchr(o.socket, '/')) {
		/* -s is always a path: "a.sock" is ./a.sock, not a port name. */
		if (snprintf(path, sizeof(path), "./%s", o.socket) >= (int)sizeof(path)) {
			fprintf(stderr, "irdactl: -s %s: too long\n", o.socket);
			return EXIT_USAGE;
		}
	} else if (irnet_client_socket_path(o.where, path, sizeof(path), err, sizeof(err)) < 0) {
		fprintf(stderr, "irdactl: %s\n", err);
		return EXIT_USAGE;
	}
	o.where = path;
	if (irnet_client_open(path, "irdactl", &cl, err, sizeof(err)) < 0) {
		fprintf(stderr, "irdactl: cannot reach irdad: %s\n", err);
		return EXIT_JOB;
	}
	if (strcmp(o.cmd, "status") == 0)
		rc = cmd_status(&o, cl);
	else if (strcmp(o.cmd, "stations") == 0)
		rc = cmd_stations(&o, cl);
	else if (strcmp(o.cmd, "ias") == 0)
		rc = cmd_ias(&o, cl);
	else
		rc = cmd_watch(&o, cl);
	irnet_client_close(cl);
	return rc;
}
