/*
 * serial.h: the port interface (struct port) and the real serial port.
 *
 * Owns: the abstract port the IrDA host drives (bytes in and out, UART
 * speed, DTR/RTS, draining, waiting) and its implementation on a Linux
 * tty: opening with O_NOCTTY|O_NONBLOCK, a UUCP lock file plus TIOCEXCL,
 * raw 8N1 without flow control, speed changes checked by reading the
 * termios back, tcdrain plus a margin for USB-serial bridges, modem
 * lines, and restoring the tty's termios and lines on close.
 *
 * Does not own: framing (SIR), dongle command sequences (dongle.h), the
 * event loop (eloop.h: the host registers serial_fd() there).  The other
 * implementation of struct port is the recording mock (mockport.h).
 *
 * The lock file is removed on close.  A process that gives up root after
 * serial_open hands it to its new user first (serial_lock_chown): the
 * lock directory is sticky, so only the file's owner may unlink it (see
 * privdrop.h for the sequence and the trade-off).
 *
 * On a pseudo-terminal (the emulated wire, irwire) the modem-line ioctls
 * fail: the port then keeps the lines it was asked for in a shadow copy,
 * says so once at debug level, and carries on.
 *
 * Errors: every operation returns 0 (or a byte count) or -errno, and
 * leaves a message naming the device in port_error().
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_SERIAL_H
#define IRNET_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "log.h"

/* Modem line bits, as in get_lines. */
#define PORT_LINE_DTR 0x01u
#define PORT_LINE_RTS 0x02u
#define PORT_LINE_CTS 0x04u
#define PORT_LINE_DSR 0x08u
#define PORT_LINE_DCD 0x10u
#define PORT_LINE_RI  0x20u

struct port;

struct port_ops {
	/* Non-blocking: returns bytes written (maybe fewer than len,
	 * maybe 0 when the output buffer is full) or -errno. */
	ssize_t (*write)(struct port *p, const void *buf, size_t len);
	/* Waits up to timeout_us (0: do not wait) for input; returns the
	 * bytes read, 0 on timeout, or -errno. */
	ssize_t (*read)(struct port *p, void *buf, size_t len,
			uint32_t timeout_us);
	int (*set_speed)(struct port *p, uint32_t baud);
	int (*set_lines)(struct port *p, bool dtr, bool rts);
	/* PORT_LINE_* bits. */
	int (*get_lines)(struct port *p, unsigned *lines);
	/* Returns once everything written has left the port. */
	int (*drain)(struct port *p);
	/* Discards received bytes not yet read. */
	int (*flush_input)(struct port *p);
	/* Waits: the real port sleeps, the mock advances its clock. */
	void (*sleep_us)(struct port *p, uint32_t us);
	/* The port's clock in microseconds (monotonic, or virtual). */
	uint64_t (*now_us)(struct port *p);
	void (*close)(struct port *p);
};

/* The part every implementation embeds first. */
struct port {
	const struct port_ops *ops;
	char name[64];          /* the device, for messages */
	uint32_t baud;          /* the current UART rate */
	const struct logger *log;
	char error[256];        /* the last error, naming the device */
};

/* Records an error message (prefixed with the port's name) and returns
 * -err, so that `return port_fail(p, e, "...")` reads naturally. */
int port_fail(struct port *p, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline const char *port_error(const struct port *p) { return p->error; }
static inline ssize_t port_write(struct port *p, const void *buf, size_t len)
{
	return p->ops->write(p, buf, len);
}
static inline ssize_t port_read(struct port *p, void *buf, size_t len,
				uint32_t timeout_us)
{
	return p->ops->read(p, buf, len, timeout_us);
}
static inline int port_set_speed(struct port *p, uint32_t baud)
{
	return p->ops->set_speed(p, baud);
}
static inline int port_set_lines(struct port *p, bool dtr, bool rts)
{
	return p->ops->set_lines(p, dtr, rts);
}
static inline int port_get_lines(struct port *p, unsigned *lines)
{
	return p->ops->get_lines(p, lines);
}
static inline int port_drain(struct port *p) { return p->ops->drain(p); }
static inline int port_flush_input(struct port *p)
{
	return p->ops->flush_input(p);
}
static inline void port_sleep_us(struct port *p, uint32_t us)
{
	p->ops->sleep_us(p, us);
}
static inline uint64_t port_now_us(struct port *p) { return p->ops->now_us(p); }
static inline void port_close(struct port *p)
{
	if (p)
		p->ops->close(p);
}

/* Writes all of buf, waiting for room (up to timeout_us in total for
 * each stall).  Returns 0 or -errno (-ETIMEDOUT). */
int port_write_all(struct port *p, const void *buf, size_t len,
		   uint32_t timeout_us);

/* The speed switch IrLAP asks for (digest 2.8): wait until every byte
 * written has left (drain, with the port's USB margin), then reprogram
 * the UART.  *took_us (may be NULL) receives the time both took. */
int serial_switch_speed(struct port *p, uint32_t baud, uint64_t *took_us);

/* Whether the UART rate is one the tty layer can set (a Bxxx constant);
 * serial_rates_text lists them for messages. */
bool serial_rate_supported(uint32_t baud);
const char *serial_rates_text(void);

/* --- the real serial port ------------------------------------------------ */

enum serial_usb {
	SERIAL_USB_AUTO,   /* look at sysfs */
	SERIAL_USB_NO,
	SERIAL_USB_YES,
};

/* Added after tcdrain on a USB-serial bridge when the caller does not
 * choose: the fixed wait Linux's irtty-sir used for adapters without
 * wait_until_sent.  It covers a bridge's FIFO for the short frames that
 * precede a speed switch (a UA: about 30 bytes, 31 ms at 9600) plus USB
 * scheduling. */
#define SERIAL_USB_DRAIN_MARGIN_US 60000u

struct serial_config {
	const char *lock_dir;      /* NULL: /var/lock; "": no lock file */
	uint32_t baud;             /* initial rate; 0: 9600 */
	enum serial_usb usb;
	/* extra wait after tcdrain; UINT32_MAX: the default (USB margin on
	 * USB bridges, 0 elsewhere) */
	uint32_t drain_margin_us;
	const char *sysfs_root;    /* NULL: /sys (tests point it elsewhere) */
	const struct logger *log;
	/* Optional: opens the device (resolved: its real path) in place of
	 * open(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), e.g. through a
	 * privileged helper after the drop (port_opener.h).  Returns the
	 * descriptor, non-blocking, or -errno. */
	int (*open_dev)(void *ctx, const char *resolved);
	void *open_ctx;
};

/* Fills in the defaults (lock in /var/lock, 9600, USB detected, default
 * margin). */
void serial_config_init(struct serial_config *cfg);

/* Opens and claims the device, puts it in raw 8N1 mode at cfg->baud.
 * Returns 0 and *out, or -errno with a message naming the device in err
 * (for a lock held by a live process: "... is locked by PID N ..."). */
int serial_open(const char *device, const struct serial_config *cfg,
		struct port **out, char *err, size_t errlen);

/* For the event loop; -1 if p is not from serial_open. */
int serial_fd(const struct port *p);
/* The margin serial_open settled on, and whether the device is a USB
 * bridge (as detected or as configured). */
uint32_t serial_drain_margin_us(const struct port *p);
bool serial_is_usb(const struct port *p);
/* Whether modem-line ioctls work (false on a pty). */
bool serial_has_modem_lines(const struct port *p);

/* Gives the port's UUCP lock file to uid:gid (fchown, only while it
 * still names this process), so that after dropping root to that user
 * the close can still unlink it from the sticky lock directory.  Does
 * nothing and returns 0 when the port has no lock file (lock_dir "", or
 * p not from serial_open).  Returns 0 or -errno with a message naming
 * the lock file in port_error(p). */
int serial_lock_chown(struct port *p, uid_t uid, gid_t gid);

/*
 * irwire's mark on its ptys (irwire(1), docs/irnet-host.md "Minimum
 * turnaround").  A pty's name says nothing about who holds its master,
 * so irwire writes a mark into the one property of a pty that a serial
 * line has no use for and that no serial program sets: its window size
 * (TIOCSWINSZ).  ws_row and ws_col hold the signature, ws_xpixel the
 * mark's version, ws_ypixel the minimum turnaround in microseconds the
 * stations on that wire need.  The mark lives on the tty, so it is there
 * for every process that opens the slave while irwire holds it, and it
 * is read only on a Unix98 pty slave: a real serial port never qualifies,
 * whatever its window size says.
 */
#define SERIAL_IRWIRE_MARK_ROWS 0x4972u     /* "Ir" */
#define SERIAL_IRWIRE_MARK_COLS 0x5769u     /* "Wi" */
#define SERIAL_IRWIRE_MARK_VERSION 1u

/* Puts the mark on the pty fd (either end) with min_tat_us (more than
 * 10000, IrLAP's largest, is taken as 10000).  Returns 0 or -errno. */
int serial_irwire_mark(int fd, uint32_t min_tat_us);
/* Whether fd is a pty slave carrying irwire's mark: 1 with the minimum
 * turnaround it names in *min_tat_us (at most 10000), 0 if not (any other
 * device, a pty without the mark, a mark of another version), or -errno
 * if fd cannot be examined (fstat failed). */
int serial_irwire_min_tat(int fd, uint32_t *min_tat_us);

/* Classifies a device's sysfs "subsystem" link target (the text of
 * readlink(/sys/class/tty/NAME/device/subsystem)): true when its last
 * path component is usb or usb-serial.  Outside data: bounded parse. */
bool serial_subsystem_is_usb(const void *link, size_t len);

#endif
