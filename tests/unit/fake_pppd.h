/*
 * fake_pppd.h: the test's stand-in for pppd on one end of an IrNET
 * endpoint (test_irnet_ep, bench_irnet_ep): it writes PPP frames in
 * async HDLC on a descriptor (a pty slave or a socket) and decodes what
 * it reads, checking the frames against the ones expected, in order.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TEST_FAKE_PPPD_H
#define IRNET_TEST_FAKE_PPPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "eloop.h"
#include "ppp_hdlc.h"

struct fake_frame {
	uint8_t *data;
	size_t len;
	bool bad;      /* sent with a damaged FCS (the data must be letters) */
};

struct fake_pppd {
	struct eloop *loop;
	int fd;
	bool reading;
	struct ppp_hdlc_encoder enc;
	struct ppp_hdlc_decoder *dec;
	uint8_t *out;                   /* encoded frames to write */
	size_t out_len, out_off;
	const struct fake_frame *expect; /* the frames to receive, in order */
	size_t nexpect, got;
	bool mismatch;
	uint64_t bytes_got;             /* frame bytes received */
	uint64_t last_frame_us;         /* when the last one came */
	size_t raw_controls;            /* control characters received unescaped */
	bool eof;
	FILE *rec;                      /* if set: what was read, as a pppd record file */
};

/* Sends with this ACCM (the decoder keeps every byte). */
void fake_pppd_setup(struct fake_pppd *p, struct eloop *loop, uint32_t accm);
/* Encodes frames onto the output (damaged ones spoilt after encoding). */
void fake_pppd_queue(struct fake_pppd *p, const struct fake_frame *f, size_t n);
/* Takes fd (non-blocking), writes what is queued, reads if asked to. */
void fake_pppd_start(struct fake_pppd *p, int fd, bool reading);
void fake_pppd_read_on(struct fake_pppd *p);
void fake_pppd_write(struct fake_pppd *p);
/* Closes fd, frees the buffers. */
void fake_pppd_free(struct fake_pppd *p);
/* Opens a pty slave as pppd would: raw, non-blocking. */
int fake_pppd_open_slave(const char *path);

#endif
