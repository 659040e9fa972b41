/*
 * spray_xfer.c: irspray's pattern, checks and report (see spray_xfer.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "spray_xfer.h"

#include <stdio.h>

const char *const spray_class[2][2] = {
	{ "IrSpray", "IrSpray:Discard" },
	{ "IrSpray:Stream", "IrSpray:Stream:Discard" },
};

bool spray_stream_is_stream(const struct spray_opts *o, unsigned i)
{
	return o->mixed ? i % 2 == 1 : o->stream;
}

const char *spray_class_for(const struct spray_opts *o, bool stream)
{
	return o->class_name ? o->class_name : spray_class[stream][o->unidir];
}

void spray_counts_init(const struct spray_opts *o, struct spray_counts *c, bool stream)
{
	*c = (struct spray_counts){ .stream = stream, .tx_goal = o->count * o->size,
				    .rx_goal = o->unidir ? 0 : o->count * o->size };
}

uint8_t spray_byte(uint64_t i)
{
	return (uint8_t)(i * 7u + (i >> 11) + (i >> 19));
}

void spray_fill(uint8_t *buf, size_t n, uint64_t off)
{
	for (size_t k = 0; k < n; k++)
		buf[k] = spray_byte(off + k);
}

size_t spray_next_write(const struct spray_counts *c, uint64_t size, size_t max)
{
	size_t n = (size_t)size;

	if (c->stream) {
		n -= (size_t)(c->tx % size);  /* the rest of this write */
		if (n > max)
			n = max;
	}
	return n;
}

void spray_take(struct spray_counts *c, const uint8_t *buf, size_t n, uint64_t now_us,
		bool *bad)
{
	for (size_t k = 0; k < n && !*bad; k++) {
		if (buf[k] != spray_byte(c->rx + k)) {
			fprintf(stderr, "irspray: data mismatch at byte %llu of a stream: "
				"0x%02x, expected 0x%02x\n", (unsigned long long)(c->rx + k), buf[k],
				spray_byte(c->rx + k));
			*bad = true;
		}
	}
	c->rx += n;
	c->t_rx_end = now_us;
}

uint64_t spray_span_us(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

void spray_report(const char *what, uint64_t bytes, uint64_t us)
{
	double s = (double)us / 1e6;

	printf("%s %llu bytes in %.3f seconds (%.2f kbytes/s)\n", what,
	       (unsigned long long)bytes, s, s > 0 ? (double)bytes / 1024.0 / s : 0.0);
}

void spray_report_served(const struct spray_counts *c)
{
	uint64_t span = spray_span_us(c->t_start, c->t_rx_end);

	if (c->echo)
		spray_report("Transmitted", c->tx, span);
	spray_report("Received", c->rx, span);
	fflush(stdout);
}

void spray_summary(const struct spray_counts *c, unsigned n, bool unidir, uint64_t span,
		   uint32_t baud, const char *tat)
{
	uint64_t total = 0;
	double line = (double)baud / 10.0, rate;

	for (unsigned i = 0; i < n; i++) {
		spray_report("Transmitted", c[i].tx, spray_span_us(c[i].t_start, c[i].t_tx_end));
		total += c[i].tx;
		if (!unidir) {
			spray_report("Received", c[i].rx, spray_span_us(c[i].t_start, c[i].t_rx_end));
			total += c[i].rx;
		}
	}
	spray_report("Total", total, span);
	rate = span ? (double)total / ((double)span / 1e6) : 0.0;
	printf("Efficiency %.1f%% of the line (%.0f bytes/s payload, %u baud = %.0f bytes/s)\n",
	       100.0 * rate / line, rate, baud, line);
	printf("Min turnaround %s\n", tat);
}

void spray_lost(const char *where, unsigned index, const struct spray_counts *c, bool accepted,
		bool unidir, const char *why)
{
	char back[80] = "";

	if (!unidir)
		snprintf(back, sizeof(back), ", %llu of %llu came back",
			 (unsigned long long)c->rx, (unsigned long long)c->rx_goal);
	fprintf(stderr, "irspray: %s: stream %u (%s) was closed%s (%s): %llu of %llu bytes "
		"sent%s\n", where, index, spray_mode_name(c->stream),
		accepted ? "" : " before it was accepted", why, (unsigned long long)c->tx,
		(unsigned long long)c->tx_goal, back);
}
