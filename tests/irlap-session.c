/*
 * irlap-session.c: writes a pcap capture of a whole IrLAP session made
 * by the in-process simulator, for tests/irlap-tshark.tap: discovery,
 * connection with QoS negotiation, 20 KiB of data each way, disconnect.
 * The capture is station 0's view (4 = sent, 0 = received).
 *
 * Usage: irlap-session OUT.pcap [BAUD]
 * Exit: 0 the session completed, 1 it did not, 2 usage or file error.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irlap.h"
#include "pcap_file.h"
#include "sim.h"

#define DATA_LEN (20 * 1024)
#define LMP_HEADER 2

struct session {
	struct sim *sim;
	uint8_t tx[2][DATA_LEN];
	size_t tx_pos[2], rx_len[2];
	bool connected[2], discovered, failed;
	uint32_t peer;
};

static void on_event(void *ctx, int st, const struct irlap_event *ev)
{
	struct session *s = ctx;

	switch (ev->type) {
	case IRLAP_EV_DISCOVERY:
		s->discovered = true;
		if (ev->npeers == 1)
			s->peer = ev->peers[0].daddr;
		break;
	case IRLAP_EV_CONNECT_IND: {
		struct irlap_request r = { .type = IRLAP_REQ_ACCEPT };
		if (sim_request(s->sim, st, &r) != 0)
			s->failed = true;
		break;
	}
	case IRLAP_EV_CONNECT_CONF:
		s->connected[st] = true;
		break;
	case IRLAP_EV_DISCONNECT:
		s->connected[st] = false;
		break;
	case IRLAP_EV_DATA:
		if (ev->len < LMP_HEADER || s->rx_len[st] + ev->len - LMP_HEADER > DATA_LEN ||
		    memcmp(ev->data + LMP_HEADER, s->tx[!st] + s->rx_len[st], ev->len - LMP_HEADER) != 0)
			s->failed = true;
		else
			s->rx_len[st] += ev->len - LMP_HEADER;
		break;
	default:
		break;
	}
}

/* Each I-frame carries an IrLMP data header (LSAP 0x11 to 0x12 and
 * back) so that tshark dissects the payload as IrLMP user data, as it
 * would a real stack's. */
static size_t on_pull(void *ctx, int st, uint8_t *buf, size_t max)
{
	struct session *s = ctx;
	size_t n = DATA_LEN - s->tx_pos[st];

	if (n == 0 || max <= LMP_HEADER)
		return 0;
	if (n > max - LMP_HEADER)
		n = max - LMP_HEADER;
	buf[0] = st ? 0x11 : 0x12;
	buf[1] = st ? 0x12 : 0x11;
	memcpy(buf + LMP_HEADER, s->tx[st] + s->tx_pos[st], n);
	s->tx_pos[st] += n;
	return n + LMP_HEADER;
}

static bool discovered(void *ctx) { return ((struct session *)ctx)->discovered; }
static bool up(void *ctx)
{
	struct session *s = ctx;
	return s->connected[0] && s->connected[1];
}
static bool done(void *ctx)
{
	struct session *s = ctx;
	return s->rx_len[0] == DATA_LEN && s->rx_len[1] == DATA_LEN;
}
static bool down(void *ctx)
{
	struct session *s = ctx;
	return !s->connected[0] && !s->connected[1] &&
	       irlap_get_state(sim_station(s->sim, 0)) == IRLAP_NDM &&
	       irlap_get_state(sim_station(s->sim, 1)) == IRLAP_NDM;
}

static int run(struct session *s)
{
	struct irlap_request r = { .type = IRLAP_REQ_DISCOVER, .slots = 6 };

	if (sim_request(s->sim, 0, &r) != 0 ||
	    !sim_run_while_not(s->sim, discovered, s, 5000000) || !s->peer) {
		fprintf(stderr, "irlap-session: discovery found no peer\n");
		return 1;
	}
	r = (struct irlap_request){ .type = IRLAP_REQ_CONNECT, .daddr = s->peer };
	if (sim_request(s->sim, 0, &r) != 0 ||
	    !sim_run_while_not(s->sim, up, s, sim_now(s->sim) + 5000000)) {
		fprintf(stderr, "irlap-session: no connection\n");
		return 1;
	}
	r.type = IRLAP_REQ_DATA_READY;
	sim_request(s->sim, 0, &r);
	if (!sim_run_while_not(s->sim, done, s, sim_now(s->sim) + 120000000) || s->failed) {
		fprintf(stderr, "irlap-session: data did not arrive intact\n");
		return 1;
	}
	r.type = IRLAP_REQ_DISCONNECT;
	if (sim_request(s->sim, 0, &r) != 0 ||
	    !sim_run_while_not(s->sim, down, s, sim_now(s->sim) + 5000000)) {
		fprintf(stderr, "irlap-session: disconnect did not complete\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct session s;
	struct irlap_config st[2];
	struct sim_config cfg = { .app = { .event = on_event, .pull = on_pull, .ctx = &s } };
	unsigned long baud = 115200;
	FILE *out;
	int rc;

	if (argc < 2 || argc > 3 || strcmp(argv[1], "--help") == 0) {
		fprintf(argc >= 2 ? stdout : stderr, "usage: irlap-session OUT.pcap [BAUD]\n");
		return argc >= 2 ? 0 : 2;
	}
	if (argc == 3) {
		char *end;
		errno = 0;
		baud = strtoul(argv[2], &end, 10);
		if (errno || *end || qos_baud_bit((uint32_t)baud) < 0) {
			fprintf(stderr, "irlap-session: bad baud rate '%s'\n", argv[2]);
			return 2;
		}
	}
	out = fopen(argv[1], "wb");
	if (!out) {
		fprintf(stderr, "irlap-session: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		irlap_config_defaults(&st[i], (uint32_t)baud, 1000);
		st[i].daddr = i ? 0x5a5a0002 : 0x5a5a0001;
		st[i].seed = (uint64_t)i + 1;
		st[i].info.nickname_len = 5;
		memcpy(st[i].info.nickname, i ? "beta " : "alpha", 5);
		for (size_t k = 0; k < DATA_LEN; k++)
			s.tx[i][k] = (uint8_t)(k * (i ? 13 : 7) + i);
	}
	cfg.wire.turnaround_us = 200;
	cfg.wire.seed = 3;
	cfg.pcap_sink = pcap_file_sink;
	cfg.pcap_ctx = out;
	s.sim = sim_new(&cfg, st);
	if (!s.sim) {
		fprintf(stderr, "irlap-session: cannot set up the simulator\n");
		fclose(out);
		return 2;
	}
	rc = run(&s);
	sim_free(s.sim);
	if (fclose(out) != 0) {
		fprintf(stderr, "irlap-session: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	return rc;
}
