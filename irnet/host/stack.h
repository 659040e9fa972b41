/*
 * stack.h: the whole IrDA stack for a program, on one port and one loop.
 *
 * Owns: the glue of a real-time station (station.h) with the IrLMP
 * multiplexer (irlmp.h) and an IAS server (ias.h) whose information
 * base holds the Device object (the station's nickname); the station's
 * events go to irlmp_lap_event and then to the program, IrLAP pulls its
 * I-frame data from irlmp_pull, IrLMP's requests go to station_request,
 * and a second eloop timer follows irlmp_deadline (docs/irnet-host.md).
 *
 * Does not own: the loop, the port (the caller opens it, possibly before
 * dropping privileges, and closes it after stack_free), discovery (the
 * program asks with stack_lap_request), IAS clients and TinyTP
 * connections (the program opens them on stack_irlmp() with the time
 * stack_now() and calls stack_sync() after it did anything that may
 * move IrLMP's deadline).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_STACK_H
#define IRNET_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "eloop.h"
#include "ias.h"
#include "irlap.h"
#include "irlmp.h"
#include "station.h"

struct stack;

struct stack_config {
	/* The station's configuration; its app is replaced by the glue's.
	 * The IAS Device name is ias_name, or lap.info's nickname. */
	struct station_config station;
	struct irlmp_config lmp;     /* irlmp_config_defaults(), then edited */
	/* A line that carries whole frames (a USB dongle) instead of the
	 * port (stack_new's port is then NULL); NULL: the port. */
	const struct station_frame_line *framed;
	/* The IAS Device object's DeviceName; NULL: the nickname. */
	const char *ias_name;
	/* The program's view (all optional): every IrLAP event, after
	 * IrLMP saw it, and the port's failure. */
	void (*event)(void *ctx, const struct irlap_event *ev);
	void (*failed)(void *ctx, int err, const char *msg);
	void *ctx;
	void *failed_ctx;            /* failed's context; NULL: ctx */
};

/* Builds station (on port, or on cfg->framed), IrLMP, the IAS base and
 * its server on LSAP 0.
 * Returns 0 and *out, or -errno with a message in err. */
int stack_new(struct eloop *loop, struct port *port, const struct stack_config *cfg,
	      struct stack **out, char *err, size_t errlen);
/* Closes IrLMP (open connections get their DISCONNECT events), the IAS
 * server and the station.  Does not close the port. */
void stack_free(struct stack *s);

/* An IrLAP request (discovery, ...) at the loop's time. */
int stack_lap_request(struct stack *s, const struct irlap_request *req);
/* Re-arms the IrLMP timer at irlmp_deadline(). */
void stack_sync(struct stack *s);
uint64_t stack_now(const struct stack *s);

struct irlmp *stack_irlmp(struct stack *s);
struct ias_db *stack_ias(struct stack *s);
struct station *stack_station(struct stack *s);

/* Registers class_name with one integer attribute "IrDA:TinyTP:LsapSel"
 * (or attr if not NULL).  Returns the object id or -errno. */
int stack_register_lsap(struct stack *s, const char *class_name, const char *attr,
			uint8_t lsap);

#endif
