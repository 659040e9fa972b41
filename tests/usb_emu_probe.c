/*
 * usb_emu_probe: the check-only client of tests/usb-emu.sh.  Run under
 * irusb-emu, it opens the emulated MCS7780 at bus 1 address 2 through
 * the libusb host adapter (irnet/host/usb_host.h) as a program would,
 * waits for OPENED, sends one IrLAP discovery XID command (1 slot, slot
 * 0) and waits for an XID response, which it prints:
 *
 *   xid response from 0x<its address> nickname <its nickname>: <the frame in hex>
 *
 * The command goes out again each second until an answer comes (a frame
 * can meet the listener's own media-busy wait); the whole run is bounded
 * by --timeout SECONDS (default 10), which only bounds a failure.
 * --wait-gone: after the answer, print "gone" once the device is
 * unplugged (irusb-emu's SIGUSR1) and succeed then.  --retry-open: try
 * the open again every 50 ms while the device is not there (plugged
 * back by SIGUSR2), in the same libusb context.  --then-speed BAUD: after
 * the answer, set the chip to BAUD and send the XID command once more
 * (nobody answers it there: it is for irusb-emu's speed switch); succeed
 * when it has left ("sent at BAUD").  Exit 0 on success, 1 on a failure or an error, 2 on
 * bad usage.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eloop.h"
#include "irlap_frame.h"
#include "usb_host.h"

#define RESEND_US 1000000u

struct probe {
	struct eloop *loop;
	struct usb_host_dev *dev;
	bool opened, answered, closed, failed, gone;
	bool wait_gone;
	uint32_t then_speed;
	bool speed_set, resent;
	uint8_t xid[32];
	size_t xid_len;
	struct eloop_timer resend;
};

static void send_xid(struct probe *p)
{
	struct usb_tx_frame tx = { .data = p->xid, .len = p->xid_len };
	int r;

	if (usb_host_can_send(p->dev)) {
		r = usb_host_send(p->dev, &tx);
		if (r < 0)
			fprintf(stderr, "usb_emu_probe: send: %s\n", strerror(-r));
	}
	eloop_timer_arm_in(p->loop, &p->resend, RESEND_US);
}

static void on_resend(struct eloop *loop, void *ctx)
{
	(void)loop;
	send_xid(ctx);
}

static void on_frame(void *ctx, const struct usb_rx_frame *f)
{
	struct probe *p = ctx;
	struct irlap_frame fr;
	struct irlap_xid x;

	if (p->answered || irlap_frame_parse(f->data, f->len, &fr) < 0 ||
	    fr.type != IRLAP_F_XID_RSP || irlap_xid_parse(&fr, &x) < 0)
		return;
	printf("xid response from 0x%08x nickname %.*s:", (unsigned)x.saddr,
	       x.has_info ? (int)x.info.nickname_len : 0, (const char *)x.info.nickname);
	for (size_t i = 0; i < f->len; i++)
		printf(" %02x", f->data[i]);
	printf("\n");
	fflush(stdout);
	p->answered = true;
	if (p->then_speed) {
		eloop_timer_cancel(p->loop, &p->resend);
		if (usb_host_set_speed(p->dev, p->then_speed) < 0)
			p->failed = true;
	}
}

static bool finished(const struct probe *p)
{
	if (p->then_speed)
		return p->failed || p->resent;
	return p->failed || p->gone || (p->answered && !p->wait_gone);
}

static void on_event(void *ctx, enum usb_dongle_event ev, int err)
{
	struct probe *p = ctx;

	switch (ev) {
	case USB_EVENT_OPENED: {
		struct usb_host_found found;

		p->opened = true;
		printf("opened\n");
		if (usb_host_describe(p->dev, &found) == 0 && found.family)
			printf("family %s\n", found.family->name);
		fflush(stdout);
		send_xid(p);
		break;
	}
	case USB_EVENT_SPEED: {
		struct usb_tx_frame tx = { .data = p->xid, .len = p->xid_len };

		if (usb_host_send(p->dev, &tx) < 0)
			p->failed = true;
		p->speed_set = true;
		break;
	}
	case USB_EVENT_TX_DONE:
		/* the frame sent at the new speed (one at 9600 may end first) */
		if (p->speed_set && !p->resent) {
			printf("sent at %u\n", (unsigned)p->then_speed);
			fflush(stdout);
			p->resent = true;
		}
		break;
	case USB_EVENT_GONE:
		if (p->wait_gone && p->answered) {
			printf("gone\n");
			fflush(stdout);
			p->gone = true;
			break;
		}
		/* fall through */
	case USB_EVENT_FAILED:
		fprintf(stderr, "usb_emu_probe: device %s: %s\n",
			ev == USB_EVENT_GONE ? "gone" : "failed", strerror(err < 0 ? -err : err));
		p->failed = true;
		break;
	case USB_EVENT_CLOSED:
		p->closed = true;
		break;
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	struct probe p = { 0 };
	struct irlap_xid x = { .cmd = true, .saddr = 0x12345678, .daddr = IRLAP_BROADCAST_DADDR,
			       .slots = 1, .slot = 0 };
	struct usb_host_open_args a = { .bus = 1, .address = 2,
					.clear_halt = USB_CLEAR_HALT_SWAPPED,
					.up = { on_frame, on_event, &p } };
	struct usb_host_ctx *ctx;
	double timeout = 10;
	bool retry_open = false;
	uint64_t give_up;
	int r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--wait-gone"))
			p.wait_gone = true;
		else if (!strcmp(argv[i], "--retry-open"))
			retry_open = true;
		else if (!strcmp(argv[i], "--then-speed") && i + 1 < argc)
			p.then_speed = (uint32_t)strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: usb_emu_probe [--timeout SECONDS] [--wait-gone] "
					"[--retry-open] [--then-speed BAUD]\n");
			return 2;
		}
	}
	give_up = eloop_now_us() + (uint64_t)(timeout * 1e6);
	p.xid_len = irlap_xid_build(p.xid, sizeof(p.xid), &x);
	p.loop = eloop_new(NULL);
	if (!p.loop)
		return 1;
	eloop_timer_init(&p.resend, on_resend, &p);
	r = usb_host_ctx_new(p.loop, NULL, &ctx);
	if (r < 0) {
		fprintf(stderr, "usb_emu_probe: libusb: %s\n", strerror(-r));
		return 1;
	}
	a.up.ctx = &p;
	/* the same context throughout: libusb learns of a device plugged
	 * after its enumeration from the "add" uevent only, so this checks
	 * that irusb-emu sends it */
	while ((r = usb_host_open(ctx, &a, &p.dev)) == -ENODEV && retry_open &&
	       eloop_now_us() < give_up) {
		usleep(50000);
		eloop_run_once(p.loop, 0);
	}
	if (r < 0) {
		fprintf(stderr, "usb_emu_probe: bus 1 address 2: %s\n", strerror(-r));
		usb_host_ctx_free(ctx);
		eloop_free(p.loop);
		return 1;
	}
	while (!finished(&p) && eloop_now_us() < give_up)
		eloop_run_once(p.loop, 100000);
	if (!finished(&p))
		fprintf(stderr, "usb_emu_probe: %s in %g s (%s)\n",
			p.answered ? "not unplugged" : "no XID response", timeout,
			p.opened ? "opened" : "never opened");
	eloop_timer_cancel(p.loop, &p.resend);
	usb_host_close(p.dev);
	give_up = eloop_now_us() + 5000000u;
	while (!p.closed && eloop_now_us() < give_up)
		eloop_run_once(p.loop, 100000);
	usb_host_free(p.dev);
	usb_host_ctx_free(ctx);
	eloop_free(p.loop);
	return p.answered && !p.failed && (p.gone || !p.wait_gone) ? 0 : 1;
}
