/*
 * irdiscover: lists the IrDA stations in range of a serial port (IrLAP
 * XID discovery), or answers discovery as a named station (--listen).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "dongle.h"
#include "eloop.h"
#include "hostcli.h"
#include "irnet_client.h"
#include "irnet_names.h"
#include "irlap.h"
#include "stack.h"
#include "station.h"
#include "ttp.h"

#define EXIT_JOB HOSTCLI_EXIT_JOB
#define EXIT_USAGE HOSTCLI_EXIT_USAGE
#define MAX_SERVICES 4

/* What irdiscover asks each station's IAS (class, attribute). */
static const struct ias_ask {
	const char *class_name, *attr;
} ias_asks[] = {
	{ "Device", "DeviceName" },
	{ "IrDA:IrCOMM", "Parameters" },
	{ "IrDA:IrCOMM", "IrDA:TinyTP:LsapSel" },
	{ "IrLPT", "IrDA:IrLMP:LsapSel" },
	{ "IrNetv1", "IrDA:TinyTP:LsapSel" },
	{ "OBEX", "IrDA:TinyTP:LsapSel" },
	{ "IrSpray", "IrDA:TinyTP:LsapSel" },
};
#define N_ASKS (sizeof(ias_asks) / sizeof(ias_asks[0]))

/* One answer: ret is the IAS return code or -errno; text the value. */
struct ias_answer {
	int ret;
	enum ias_type type;
	int32_t integer;
	char text[IAS_OCTETS_MAX * 2 + 1];
};

struct opts {
	struct hostcli h;      /* device, dongle, speed, ..., and what start-up made */
	const char *hints;
	uint8_t hint_bytes[2]; /* --hints, parsed */
	unsigned slots, timeout_s;
	bool json, listen, connect, ias;
	const char *services[MAX_SERVICES];
	size_t nservices;
	const char *daemon;    /* --daemon SOCKET */
	bool no_daemon;        /* --no-daemon */
};

struct app {
	struct opts o;
	struct eloop *loop;
	struct stack *stk;
	struct station *st;
	struct eloop_timer deadline;
	struct irlap_peer peers[IRLAP_MAX_PEERS];
	size_t npeers;
	unsigned rounds;
	uint64_t t0, found_us;
	/* --connect */
	struct eloop_timer hold;
	bool linked, link_done;
	uint32_t link_daddr;
	struct qos_result qos;
	uint64_t link_us;        /* from the connect request to CONNECT_CONF */
	uint64_t connect_at;
	bool link_ended;         /* a DISCONNECT event came */
	/* IAS: the answers per station, where the walk is */
	struct ias_answer answers[IRLAP_MAX_PEERS][N_ASKS];
	bool ias_running, ias_wait_down, ias_done, ias_failed;
	size_t ias_peer, ias_ask;
	/* --listen --service */
	struct ttp_listener *listeners[MAX_SERVICES];
};

static void usage(FILE *f)
{
	fputs("usage: irdiscover {-D DEVICE | --daemon SOCKET} [--slots N] [--timeout S]\n"
	      "                  [--hints LIST] [--json] [--no-daemon]\n"
	      "                  [--connect] [--no-ias] [--listen [--service CLASS]...]\n"
	      "                  [--dongle TYPE[:OPTS]] [--speed BAUD] [--min-turnaround US]\n"
	      "                  [--nickname NAME] [--pcap FILE] [--user USER]\n"
	      "                  [--lock-dir DIR] [--no-seccomp] [-v]\n"
	      "Lists the IrDA stations in range of a serial port (IrLAP discovery).\n"
	      "  -D, -d, --device DEVICE  the serial port (or pty); -D as in irspray\n"
	      "  --slots N             discovery slots: 1, 6, 8 or 16 (default 8)\n"
	      "  --timeout S           give up after S seconds (default 5)\n"
	      "  --hints LIST          our service hints, e.g. computer,ircomm (default computer)\n"
	      "  --json                print the result as JSON\n"
	      "  --connect             then connect to the first station found at up to\n"
	      "                        --speed, hold the link 0.5 s, disconnect\n"
	      "  --no-ias              do not ask the stations' IAS for their services\n"
	      "  --listen              answer discovery (and accept links) until SIGINT/SIGTERM\n"
	      "  --service CLASS       with --listen: offer CLASS in our IAS with a TinyTP LSAP\n"
	      "                        (up to 4 times)\n"
	      "  --daemon SOCKET       ask irdad's control socket instead of opening the port;\n"
	      "                        also when -D's /run/irnet/PORT.sock takes a session\n"
	      "  --no-daemon           open the port even when irdad serves it\n", f);
	hostcli_usage(f);
	fputs("Exit: 0 found a station (and --connect: the link worked; and its IAS answered)\n"
	      "(--listen: ended by a signal), 1 none found, an IAS failure or an I/O failure,\n"
	      "2 usage error.\n", f);
}

static bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	struct cursor c;

	cursor_init(&c, s, strlen(s));
	return cursor_parse_u64(&c, out) && cursor_at_end(&c) && *out <= max;
}

static bool parse_hints(const char *list, uint8_t hints[2], char *bad, size_t badlen)
{
	struct cursor c, word;
	uint16_t all = 0;

	cursor_init(&c, list, strlen(list));
	while (!cursor_at_end(&c)) {
		const uint8_t *start = c.data + c.pos;
		size_t n = 0;
		uint16_t bit;
		uint8_t ch;

		while (cursor_peek_u8(&c, &ch) && ch != ',') {
			cursor_skip(&c, 1);
			n++;
		}
		cursor_init(&word, start, n);
		bit = irnet_hint_by_name((const char *)start, n);
		if (!bit) {
			if (!cursor_to_cstr(&word, bad, badlen))
				snprintf(bad, badlen, "(too long)");
			return false;
		}
		all |= bit;
		cursor_skip(&c, 1);
	}
	hints[0] = (uint8_t)(all >> 8);
	hints[1] = (uint8_t)all;
	return true;
}

/* Nicknames are outside data: printable ASCII kept, the rest as \xNN. */
static void nickname_text(const struct irlap_discovery_info *in, char *buf, size_t cap)
{
	irnet_bytes_text(in->nickname, in->nickname_len < IRLAP_NICKNAME_MAX ? in->nickname_len :
			 IRLAP_NICKNAME_MAX, buf, cap);
}

static void hints_words(const struct irlap_discovery_info *in,
			void (*add)(void *ctx, const char *w), void *ctx)
{
	uint16_t bits = irnet_hints_from_bytes(in->hints, in->nhints);

	for (size_t i = 0; i < irnet_hint_names_n; i++)
		if (bits & irnet_hint_names[i].bit)
			add(ctx, irnet_hint_names[i].name);
}

static void add_text(void *ctx, const char *w)
{
	char *buf = ctx;
	size_t len = strlen(buf);

	snprintf(buf + len, 200 - len, "%s%s", len ? "," : "", w);
}

static void add_json(void *ctx, const char *w)
{
	json_object_array_add(ctx, json_object_new_string(w));
}

static void hint_hex(const struct irlap_discovery_info *in, char *buf, size_t cap)
{
	if (in->nhints > 1)
		snprintf(buf, cap, "%02x%02x", in->hints[0], in->hints[1]);
	else
		snprintf(buf, cap, "%02x", in->hints[0]);
}

static const char *ias_error(int ret)
{
	switch (ret) {
	case -ETIMEDOUT: return "no answer";
	case -ECONNRESET: return "connection refused or lost";
	case -EINVAL: return "malformed answer";
	case IAS_NO_SUCH_ATTRIBUTE: return "no such attribute";
	case IAS_LIST_TOO_LONG: return "list too long";
	case IAS_UNSUPPORTED: return "unsupported";
	default: return ret < 0 ? strerror(-ret) : "error";
	}
}

/* The station's answers as text lines under its line. */
static void print_services(const struct app *a, size_t peer)
{
	if (!a->o.ias)
		return;
	for (size_t q = 0; q < N_ASKS; q++) {
		const struct ias_answer *ans = &a->answers[peer][q];
		const struct ias_ask *k = &ias_asks[q];

		if (ans->ret == IAS_NO_SUCH_CLASS)
			continue;
		if (ans->ret != IAS_SUCCESS)
			printf("    IAS %s %s: %s\n", k->class_name, k->attr, ias_error(ans->ret));
		else if (strcmp(k->class_name, "Device") == 0)
			printf("    device name: %s\n", ans->text);
		else
			printf("    service: %s %s=%s\n", k->class_name, k->attr, ans->text);
	}
}

static json_object *services_json(const struct app *a, size_t peer)
{
	json_object *arr = json_object_new_array();

	for (size_t q = 0; q < N_ASKS; q++) {
		const struct ias_answer *ans = &a->answers[peer][q];
		json_object *o;

		if (ans->ret == IAS_NO_SUCH_CLASS || strcmp(ias_asks[q].class_name, "Device") == 0)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "class", json_object_new_string(ias_asks[q].class_name));
		json_object_object_add(o, "attribute", json_object_new_string(ias_asks[q].attr));
		if (ans->ret != IAS_SUCCESS)
			json_object_object_add(o, "error", json_object_new_string(ias_error(ans->ret)));
		else if (ans->type == IAS_INTEGER)
			json_object_object_add(o, "value", json_object_new_int(ans->integer));
		else
			json_object_object_add(o, "value", json_object_new_string(ans->text));
		json_object_array_add(arr, o);
	}
	return arr;
}

static void print_result(const struct app *a)
{
	char nick[IRLAP_NICKNAME_MAX * 4 + 1], hints[200], hex[8], addr[16];

	if (!a->o.json) {
		for (size_t i = 0; i < a->npeers; i++) {
			const struct irlap_peer *p = &a->peers[i];

			nickname_text(&p->info, nick, sizeof(nick));
			hints[0] = '\0';
			hints_words(&p->info, add_text, hints);
			hint_hex(&p->info, hex, sizeof(hex));
			printf("0x%08x  %-20s  charset=%s  hints=%s (%s)\n", p->daddr, nick,
			       irnet_charset_name(p->info.charset), hints[0] ? hints : "none", hex);
			print_services(a, i);
		}
		if (a->o.connect && a->link_done)
			printf("link to 0x%08x: %u bps, data size %u, window %u, up in %llu ms\n",
			       a->link_daddr, a->qos.baud, a->qos.tx_data_size, a->qos.tx_window,
			       (unsigned long long)(a->link_us / 1000));
		return;
	}
	json_object *root = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(root, "device", json_object_new_string(a->o.h.device));
	json_object_object_add(root, "rounds", json_object_new_int((int)a->rounds));
	json_object_object_add(root, "elapsed_ms", json_object_new_int64(
		(int64_t)((a->npeers ? a->found_us : eloop_now_us()) - a->t0) / 1000));
	for (size_t i = 0; i < a->npeers; i++) {
		const struct irlap_peer *p = &a->peers[i];
		json_object *o = json_object_new_object(), *h = json_object_new_array();

		snprintf(addr, sizeof(addr), "0x%08x", p->daddr);
		nickname_text(&p->info, nick, sizeof(nick));
		hint_hex(&p->info, hex, sizeof(hex));
		hints_words(&p->info, add_json, h);
		json_object_object_add(o, "address", json_object_new_string(addr));
		json_object_object_add(o, "nickname", json_object_new_string(nick));
		json_object_object_add(o, "charset", json_object_new_string(irnet_charset_name(p->info.charset)));
		json_object_object_add(o, "hint_bytes", json_object_new_string(hex));
		json_object_object_add(o, "hints", h);
		if (a->o.ias) {
			const struct ias_answer *dn = &a->answers[i][0];

			if (dn->ret == IAS_SUCCESS)
				json_object_object_add(o, "device_name",
						       json_object_new_string(dn->text));
			json_object_object_add(o, "services", services_json(a, i));
		}
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "stations", arr);
	if (a->o.connect && a->link_done) {
		json_object *l = json_object_new_object();

		snprintf(addr, sizeof(addr), "0x%08x", a->link_daddr);
		json_object_object_add(l, "address", json_object_new_string(addr));
		json_object_object_add(l, "baud", json_object_new_int64(a->qos.baud));
		json_object_object_add(l, "data_size", json_object_new_int64(a->qos.tx_data_size));
		json_object_object_add(l, "window", json_object_new_int64(a->qos.tx_window));
		json_object_object_add(l, "connect_ms", json_object_new_int64((int64_t)(a->link_us / 1000)));
		json_object_object_add(root, "link", l);
	}
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
}

static int discover(struct app *a)
{
	struct irlap_request req = { .type = IRLAP_REQ_DISCOVER, .slots = (uint8_t)a->o.slots };

	a->rounds++;
	return stack_lap_request(a->stk, &req);
}

/* Bytes of an answer's value as text: printable ASCII kept, the rest
 * \xNN (strings), or hex (octets). */
static void answer_text(struct ias_answer *ans, const struct ias_value *v)
{
	ans->type = v->type;
	ans->integer = v->integer;
	ans->text[0] = '\0';
	if (v->type == IAS_INTEGER) {
		snprintf(ans->text, sizeof(ans->text), "%d", (int)v->integer);
		return;
	}
	if (v->type == IAS_STRING) {
		irnet_bytes_text(v->bytes, v->len, ans->text, sizeof(ans->text));
		return;
	}
	for (size_t i = 0; i < v->len && 2 * i + 2 < sizeof(ans->text); i++)
		snprintf(ans->text + 2 * i, sizeof(ans->text) - 2 * i, "%02x", v->bytes[i]);
}

static void ias_next(struct app *a);

static void on_ias(void *ctx, int ret, const struct ias_response *resp)
{
	struct app *a = ctx;
	struct ias_answer *ans = &a->answers[a->ias_peer][a->ias_ask];

	ans->ret = ret;
	if (ret == IAS_SUCCESS)
		answer_text(ans, &resp->value);
	if (a->o.h.verbose)
		fprintf(stderr, "irdiscover: IAS 0x%08x %s %s: %s\n", a->peers[a->ias_peer].daddr,
			ias_asks[a->ias_ask].class_name, ias_asks[a->ias_ask].attr,
			ret == IAS_SUCCESS ? ans->text : ret == IAS_NO_SUCH_CLASS ?
			"no such class" : ias_error(ret));
	a->ias_ask++;
	if (ret < 0) {
		/* The link or the peer's IAS is gone: the rest would wait
		 * out the same failure. */
		a->ias_failed = true;
		for (size_t q = a->ias_ask; q < N_ASKS; q++)
			a->answers[a->ias_peer][q].ret = ret;
		a->ias_ask = N_ASKS;
	}
	ias_next(a);
}

/* Asks the next question; after the last one of a station, waits for
 * IrLMP to close the idle link before going on to the next station. */
static void ias_next(struct app *a)
{
	struct irlmp *lm = stack_irlmp(a->stk);

	while (a->ias_peer < a->npeers) {
		if (a->ias_ask < N_ASKS) {
			const struct ias_ask *k = &ias_asks[a->ias_ask];

			a->ias_wait_down = false;
			if (!ias_query_start(lm, a->peers[a->ias_peer].daddr, k->class_name, k->attr,
					     on_ias, a, stack_now(a->stk))) {
				a->answers[a->ias_peer][a->ias_ask].ret = -ENOMEM;
				a->ias_failed = true;
				a->ias_ask++;
				continue;
			}
			stack_sync(a->stk);
			return;
		}
		if (irlmp_get_lap_state(lm) != IRLMP_LAP_STANDBY) {
			a->ias_wait_down = true;
			return;
		}
		a->ias_peer++;
		a->ias_ask = 0;
	}
	a->ias_running = false;
	a->ias_done = true;
	eloop_terminate(a->loop);
}

/* Discovery (and --connect) done: the IAS walk, or the end. */
static void after_discovery(struct app *a)
{
	if (!a->o.ias) {
		eloop_terminate(a->loop);
		return;
	}
	a->ias_running = true;
	eloop_timer_arm_in(a->loop, &a->deadline, (uint64_t)a->o.timeout_s * 1000000u);
	ias_next(a);
}

static void start_connect(struct app *a)
{
	int r;

	a->connect_at = eloop_now_us();
	r = stack_lap_request(a->stk, &(struct irlap_request){ .type = IRLAP_REQ_CONNECT,
							   .daddr = a->peers[0].daddr });
	if (r < 0) {
		fprintf(stderr, "irdiscover: %s: connect to 0x%08x: %s\n", a->o.h.device,
			a->peers[0].daddr, strerror(-r));
		eloop_terminate(a->loop);
	}
}

/* The link has been up long enough for a few polls at the new rate. */
static void on_hold(struct eloop *loop, void *ctx)
{
	struct app *a = ctx;
	int r;

	(void)loop;
	r = stack_lap_request(a->stk, &(struct irlap_request){ .type = IRLAP_REQ_DISCONNECT });
	if (r < 0) {
		fprintf(stderr, "irdiscover: %s: disconnect: %s\n", a->o.h.device, strerror(-r));
		eloop_terminate(a->loop);
	}
}

static void on_event(void *ctx, const struct irlap_event *ev)
{
	struct app *a = ctx;
	char nick[IRLAP_NICKNAME_MAX * 4 + 1];

	switch (ev->type) {
	case IRLAP_EV_DISCOVERY:
		if (a->o.listen)
			break;
		if (!ev->failed && ev->npeers > 0) {
			a->npeers = ev->npeers > IRLAP_MAX_PEERS ? IRLAP_MAX_PEERS : ev->npeers;
			memcpy(a->peers, ev->peers, a->npeers * sizeof(a->peers[0]));
			a->found_us = eloop_now_us();
			if (a->o.connect)
				start_connect(a);
			else
				after_discovery(a);
		} else if (discover(a) < 0) {
			eloop_terminate(a->loop);
		}
		break;
	case IRLAP_EV_DISCOVERED_BY:
		nickname_text(&ev->peer->info, nick, sizeof(nick));
		printf("discovered by 0x%08x %s\n", ev->peer->daddr, nick);
		fflush(stdout);
		break;
	case IRLAP_EV_CONNECT_IND:
		/* IrLMP answered it (it takes a link when it has none). */
		if (a->o.listen) {
			printf("connect from 0x%08x\n", ev->daddr);
			fflush(stdout);
		}
		break;
	case IRLAP_EV_CONNECT_CONF:
		if (a->o.listen || a->ias_running) {
			if (a->o.listen)
				printf("connected to 0x%08x at %u bps\n", ev->daddr, ev->qos->baud);
			fflush(stdout);
			break;
		}
		a->linked = true;
		a->link_daddr = ev->daddr;
		a->qos = *ev->qos;
		a->link_us = eloop_now_us() - a->connect_at;
		eloop_timer_arm_in(a->loop, &a->hold, 500000);
		break;
	case IRLAP_EV_DISCONNECT:
		if (a->o.listen) {
			printf("disconnected: %s\n", irlap_reason_name(ev->reason));
			fflush(stdout);
			break;
		}
		if (a->ias_running) {
			if (a->ias_wait_down)
				ias_next(a);
			break;
		}
		a->link_ended = true;
		a->link_done = a->linked && ev->reason == IRLAP_REASON_USER;
		if (!a->link_done) {
			fprintf(stderr, "irdiscover: %s: link to 0x%08x: %s\n", a->o.h.device,
				a->peers[0].daddr, irlap_reason_name(ev->reason));
			eloop_terminate(a->loop);
		} else {
			after_discovery(a);
		}
		break;
	default:
		break;
	}
}

static void on_timeout(struct eloop *loop, void *ctx)
{
	(void)ctx;
	eloop_terminate(loop);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		HOSTCLI_LONG_OPTIONS,
		{ "device", required_argument, NULL, 'd' },
		{ "slots", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "hints", required_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "listen", no_argument, NULL, 'l' },
		{ "connect", no_argument, NULL, 'c' },
		{ "no-ias", no_argument, NULL, 'I' },
		{ "service", required_argument, NULL, 'R' },
		{ "daemon", required_argument, NULL, 'A' },
		{ "no-daemon", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char bad[64];
	uint64_t v;
	int c;

	*o = (struct opts){ .hints = "computer", .slots = 8, .timeout_s = 5, .ias = true };
	hostcli_init(&o->h, "irdiscover", "irdiscover");
	while ((c = getopt_long(argc, argv, "D:d:vh", lo, NULL)) != -1) {
		int taken = hostcli_option(&o->h, c, optarg);

		if (taken < 0)
			return -1;
		if (taken)
			continue;
		switch (c) {
		case 'D':
		case 'd': o->h.device = optarg; break;
		case 'H': o->hints = optarg; break;
		case 'j': o->json = true; break;
		case 'l': o->listen = true; break;
		case 'c': o->connect = true; break;
		case 'I': o->ias = false; break;
		case 'A': o->daemon = optarg; break;
		case 'N': o->no_daemon = true; break;
		case 'R':
			if (o->nservices == MAX_SERVICES) {
				fprintf(stderr, "irdiscover: --service %s: at most %d services\n",
					optarg, MAX_SERVICES);
				return -1;
			}
			if (strlen(optarg) == 0 || strlen(optarg) > IAS_NAME_MAX) {
				fprintf(stderr, "irdiscover: --service '%s': a class name is 1..%d bytes\n",
					optarg, IAS_NAME_MAX);
				return -1;
			}
			o->services[o->nservices++] = optarg;
			break;
		case 'h': usage(stdout); exit(0);
		case 'S':
			if (!parse_uint(optarg, 16, &v) || (v != 1 && v != 6 && v != 8 && v != 16)) {
				fprintf(stderr, "irdiscover: --slots %s: must be 1, 6, 8 or 16\n", optarg);
				return -1;
			}
			o->slots = (unsigned)v;
			break;
		case 't':
			if (!parse_uint(optarg, 3600, &v) || v == 0) {
				fprintf(stderr, "irdiscover: --timeout %s: must be 1..3600 seconds\n", optarg);
				return -1;
			}
			o->timeout_s = (unsigned)v;
			break;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "irdiscover: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->listen && o->connect) {
		fprintf(stderr, "irdiscover: --listen and --connect exclude each other\n");
		return -1;
	}
	if (o->nservices && !o->listen) {
		fprintf(stderr, "irdiscover: --service %s: only with --listen\n", o->services[0]);
		return -1;
	}
	if (!parse_hints(o->hints, o->hint_bytes, bad, sizeof(bad))) {
		fprintf(stderr, "irdiscover: --hints %s: unknown hint '%s'\n", o->hints, bad);
		return -1;
	}
	if (o->daemon && (o->no_daemon || o->listen || o->connect)) {
		fprintf(stderr, "irdiscover: --daemon: not with %s\n", o->no_daemon ? "--no-daemon" :
			o->listen ? "--listen (irdad answers discovery itself)" : "--connect");
		return -1;
	}
	if (o->daemon && !o->h.device)
		o->h.device = o->daemon;   /* for the checks and the messages */
	return hostcli_check(&o->h, "-D (or -d)");
}

/* --service: connections are taken and their data dropped. */
static void on_service(void *ctx, const struct ttp_event *ev)
{
	uint8_t buf[4096];

	(void)ctx;
	if (ev->type == TTP_EV_READABLE)
		while (ttp_recv(ev->ttp, buf, sizeof(buf)) > 0)
			continue;
}

static int offer_services(struct app *a)
{
	struct ttp_config tc;

	ttp_config_defaults(&tc);
	for (size_t i = 0; i < a->o.nservices; i++) {
		const char *name = a->o.services[i];
		int r;

		a->listeners[i] = ttp_listen(stack_irlmp(a->stk), IRLMP_LSAP_ANY, &tc, on_service, a);
		if (!a->listeners[i]) {
			fprintf(stderr, "irdiscover: --service %s: no free LSAP\n", name);
			return -1;
		}
		r = stack_register_lsap(a->stk, name, NULL, ttp_listener_lsap(a->listeners[i]));
		if (r < 0) {
			fprintf(stderr, "irdiscover: --service %s: %s\n", name,
				r == -EEXIST ? "given twice" : strerror(-r));
			return -1;
		}
	}
	return 0;
}

/* Our hints (--hints) in the station's discovery information. */
static void set_hints(const struct opts *o, struct station_config *sc)
{
	sc->lap.info.hints[0] = o->hint_bytes[0];
	sc->lap.info.hints[1] = o->hint_bytes[1];
	if (o->hint_bytes[1]) {
		sc->lap.info.hints[0] |= 0x80;   /* extension: a second byte follows */
		sc->lap.info.nhints = 2;
	} else {
		sc->lap.info.nhints = 1;
	}
}

/* The listing is over (owning the port or through irdad): prints it and
 * says what is missing.  Returns the exit code. */
static int finish_listing(struct app *a)
{
	int rc;

	print_result(a);
	if (a->o.h.verbose)
		fprintf(stderr, "irdiscover: %zu station(s) after %u round(s), %llu ms\n",
			a->npeers, a->rounds,
			(unsigned long long)((eloop_now_us() - a->t0) / 1000));
	if (a->npeers == 0 && !a->o.json)
		fprintf(stderr, "irdiscover: %s: no station in range within %u s\n",
			a->o.h.device, a->o.timeout_s);
	rc = a->npeers && (!a->o.connect || a->link_done) ? 0 : EXIT_JOB;
	if (a->npeers && a->o.ias && (!a->ias_done || a->ias_failed)) {
		fprintf(stderr, "irdiscover: %s: IAS %s\n", a->o.h.device,
			a->ias_done ? "query failed" : "not done in time");
		rc = EXIT_JOB;
	}
	if (a->o.connect && a->npeers && !a->link_ended)
		fprintf(stderr, "irdiscover: %s: link not done within %u s\n", a->o.h.device,
			a->o.timeout_s);
	return rc;
}

/* --daemon: an IAS answer from irdad as the stack would have given it.
 * irdad says ENOENT for both "no such class" and "no such attribute"
 * and tells them apart only in its text. */
static void daemon_answer(struct ias_answer *ans, int r, const char *why,
			  const struct irnet_ias_value *v, size_t n)
{
	struct ias_value iv = { .type = IAS_MISSING };

	if (r == -ENOENT)
		ans->ret = strstr(why, "no such attribute") ? IAS_NO_SUCH_ATTRIBUTE :
			   strstr(why, "no such class") ? IAS_NO_SUCH_CLASS : IAS_UNSUPPORTED;
	else if (r == -EHOSTUNREACH)
		ans->ret = strstr(why, "no answer") ? -ETIMEDOUT : -ECONNRESET;
	else
		ans->ret = r < 0 ? r : IAS_SUCCESS;
	if (ans->ret != IAS_SUCCESS)
		return;
	if (n > 0) {
		iv = (struct ias_value){ .type = v->type == IRDAD_IAS_INT ? IAS_INTEGER :
					 v->type == IRDAD_IAS_OCTETS ? IAS_OCTETS :
					 v->type == IRDAD_IAS_STRING ? IAS_STRING : IAS_MISSING,
					 .integer = (int32_t)v->integer, .charset = v->charset,
					 .bytes = v->bytes, .len = v->len };
	}
	answer_text(ans, &iv);
}

/* --daemon: discovery (fresh, again until one station answers or the
 * timeout) and the IAS walk through irdad; the result as without it. */
static int daemon_listing(struct app *a, struct irnet_client *cl, const char *where)
{
	static struct irnet_station st[IRLAP_MAX_PEERS];
	static struct irnet_ias_value v[1];
	uint64_t deadline;
	size_t n = 0;

	a->t0 = eloop_now_us();
	deadline = a->t0 + (uint64_t)a->o.timeout_s * 1000000u;
	while (n == 0 && eloop_now_us() < deadline) {
		a->rounds++;
		if (irnet_client_discover(cl, true, st, IRLAP_MAX_PEERS, &n,
					  (int)((deadline - eloop_now_us()) / 1000) + 1) < 0) {
			fprintf(stderr, "irdiscover: %s: discovery: %s\n", where,
				irnet_client_error(cl));
			return EXIT_JOB;
		}
	}
	a->npeers = n > IRLAP_MAX_PEERS ? IRLAP_MAX_PEERS : n;
	a->found_us = eloop_now_us();
	for (size_t i = 0; i < a->npeers; i++) {
		struct irlap_discovery_info *in = &a->peers[i].info;

		a->peers[i].daddr = st[i].addr;
		in->hints[0] = (uint8_t)(st[i].hints >> 8);
		in->hints[1] = (uint8_t)st[i].hints;
		in->nhints = in->hints[0] & 0x80 ? 2 : 1;
		in->charset = st[i].charset;
		in->nickname_len = (uint8_t)(st[i].nickname_len < IRLAP_NICKNAME_MAX ?
					     st[i].nickname_len : IRLAP_NICKNAME_MAX);
		memcpy(in->nickname, st[i].nickname, in->nickname_len);
	}
	deadline = eloop_now_us() + (uint64_t)a->o.timeout_s * 1000000u;
	for (size_t i = 0; a->o.ias && i < a->npeers; i++) {
		for (size_t q = 0; q < N_ASKS; q++) {
			struct ias_answer *ans = &a->answers[i][q];
			uint64_t now = eloop_now_us();
			size_t nv = 0;
			int r;

			if (now >= deadline)
				return finish_listing(a);
			r = irnet_client_ias_query(cl, a->peers[i].daddr, ias_asks[q].class_name,
						   ias_asks[q].attr, v, 1, &nv,
						   (int)((deadline - now) / 1000) + 1);
			daemon_answer(ans, r, irnet_client_error(cl), v, nv);
			if (a->o.h.verbose)
				fprintf(stderr, "irdiscover: IAS 0x%08x %s %s: %s\n", a->peers[i].daddr,
					ias_asks[q].class_name, ias_asks[q].attr,
					r < 0 ? irnet_client_error(cl) : ans->text);
			if (ans->ret < 0) {
				/* As owning the port: the rest would fail alike. */
				a->ias_failed = true;
				for (size_t k = q + 1; k < N_ASKS; k++)
					a->answers[i][k].ret = ans->ret;
				break;
			}
		}
	}
	a->ias_done = true;
	return finish_listing(a);
}

int main(int argc, char **argv)
{
	struct app a;
	struct stack_config cfg;
	char err[400];
	int rc, r;

	memset(&a, 0, sizeof(a));
	if (parse_args(argc, argv, &a.o) < 0)
		return EXIT_USAGE;
	{
		struct irnet_client *cl;
		char where[256];

		r = hostcli_daemon_session(&a.o.h, a.o.daemon, a.o.no_daemon, &cl, where,
					   sizeof(where));
		if (r < 0)
			return EXIT_JOB;
		if (r > 0) {
			if (a.o.listen || a.o.connect) {
				fprintf(stderr, "irdiscover: %s: irdad serves this port: %s is not "
					"done through it (--no-daemon: only once irdad is stopped)\n",
					where, a.o.listen ? "--listen" : "--connect");
				irnet_client_close(cl);
				return EXIT_USAGE;
			}
			rc = daemon_listing(&a, cl, where);
			irnet_client_close(cl);
			return rc;
		}
	}
	rc = hostcli_start(&a.o.h, &cfg);
	if (rc)
		goto out;
	rc = EXIT_JOB;
	set_hints(&a.o, &cfg.station);
	a.loop = a.o.h.loop;
	/* A lister closes the link soon after its last question. */
	if (!a.o.listen && !a.o.connect)
		cfg.lmp.idle_timeout_us = 100000;
	cfg.event = on_event;
	cfg.ctx = &a;
	r = stack_new(a.loop, a.o.h.port, &cfg, &a.stk, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "irdiscover: %s\n", err);
		goto out;
	}
	a.st = stack_station(a.stk);
	if (offer_services(&a) < 0)
		goto out;
	a.t0 = eloop_now_us();
	if (a.o.listen) {
		printf("listening on %s as %s\n", a.o.h.device, a.o.h.nickname);
		fflush(stdout);
	} else {
		eloop_timer_init(&a.deadline, on_timeout, &a);
		eloop_timer_init(&a.hold, on_hold, &a);
		eloop_timer_arm_in(a.loop, &a.deadline, (uint64_t)a.o.timeout_s * 1000000u);
		r = discover(&a);
		if (r < 0) {
			fprintf(stderr, "irdiscover: %s: discovery: %s\n", a.o.h.device, strerror(-r));
			goto out;
		}
	}
	r = eloop_run(a.loop);
	if (r < 0 || a.o.h.port_failed) {
		if (r < 0)
			fprintf(stderr, "irdiscover: event loop: %s\n", strerror(-r));
		goto out;
	}
	if (a.o.listen) {
		rc = 0;
	} else {
		rc = finish_listing(&a);
		if (a.o.h.verbose) {
			const struct station_counters *c = station_counters(a.st);

			fprintf(stderr, "irdiscover: frames tx %llu rx %llu, echo dropped %llu bytes, "
				"%llu speed switches (last %llu us)\n",
				(unsigned long long)c->tx_frames, (unsigned long long)c->rx_frames,
				(unsigned long long)c->echo_dropped,
				(unsigned long long)c->speed_switches,
				(unsigned long long)c->last_switch_us);
		}
	}
out:
	for (size_t i = 0; i < MAX_SERVICES; i++)
		ttp_listener_free(a.listeners[i]);
	stack_free(a.stk);
	if (a.loop) {
		eloop_timer_cancel(a.loop, &a.deadline);
		eloop_timer_cancel(a.loop, &a.hold);
	}
	return hostcli_finish(&a.o.h, rc);
}
