/*
 * pppd_compat.h: the only file that includes pppd's headers.  It gives
 * irnet_plugin.c one set of names for pppd 2.4.9 (Debian 12's ppp-dev,
 * everything in <pppd/pppd.h>) and pppd 2.5.x (a public API with ppp_*
 * names and the rest private, though still exported by the pppd binary,
 * which links with -Wl,-E, as pppd's own plugins rely on).
 *
 * configure defines IRNET_PPPD_API to 24 or 25 from the headers it found
 * (pppd.pc for 2.5, patchlevel.h for 2.4).  The private 2.5 symbols used
 * here are declared below exactly as pppd 2.5.0-2.5.2 define them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_PPPD_COMPAT_H
#define IRNET_PPPD_COMPAT_H

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>

/* config.h's VERSION is ours; pppd 2.4's patchlevel.h defines its own. */
#undef VERSION

#if IRNET_PPPD_API == 25

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <pppd/pppd.h>
#include <pppd/options.h>
#pragma GCC diagnostic pop

#define IRNET_PPPD_VERSION PPPD_VERSION
#include <sys/param.h> /* MAXPATHLEN, which 2.4's pppd.h brought */
#define option_error ppp_option_error

/* Private in 2.5 (pppd-private.h), exported by the binary. */
extern char *connect_script, *disconnect_script, *initializer;
extern int log_to_fd;
int get_pty(int *master_fdp, int *slave_fdp, char *slave_name, int uid);
void set_up_tty(int fd, int local);
int tty_establish_ppp(int fd);
void tty_disestablish_ppp(int fd);
void tty_send_config(int mtu, uint32_t asyncmap, int pcomp, int accomp);
void tty_recv_config(int mru, uint32_t asyncmap, int pcomp, int accomp);
int device_script(char *cmd, int in, int out, int dont_wait);
int lock(char *dev);
int relock(int pid);
void unlock(void);

#define irnet_add_options(o) ppp_add_options(o)
#define irnet_add_pidchange(fn) ppp_add_notify(NF_PID_CHANGE, (fn), NULL)
#define irnet_set_status(s) ppp_set_status(s)
#define irnet_got_sigterm() ppp_signaled(SIGTERM)
#define irnet_got_sighup() ppp_signaled(SIGHUP)
#define irnet_safe_fork(i, o, e) ppp_safe_fork((i), (o), (e))
#define irnet_setenv(n, v) ppp_script_setenv((n), (v), 0)
#define irnet_set_devnam(n) ppp_set_devnam(n)
#define irnet_set_pppdevnam(n) ppp_set_pppdevnam(n)
#define irnet_set_modem(b) ppp_set_modem(b)

#else /* pppd 2.4 */

#include <pppd/pppd.h>
#include <pppd/patchlevel.h>

#define IRNET_PPPD_VERSION VERSION

/* Exported by pppd 2.4.9, not declared in its header. */
extern int got_sighup;

#include <string.h>
#define irnet_add_options(o) add_options(o)
#define irnet_add_pidchange(fn) add_notifier(&pidchange, (fn), NULL)
#define irnet_set_status(s) (status = (s))
#define irnet_got_sigterm() (got_sigterm != 0)
#define irnet_got_sighup() (got_sighup != 0)
#define irnet_safe_fork(i, o, e) safe_fork((i), (o), (e))
#define irnet_setenv(n, v) script_setenv((n), (v), 0)
#define irnet_set_devnam(n) strlcpy(devnam, (n), sizeof(devnam))
#define irnet_set_pppdevnam(n) strlcpy(ppp_devnam, (n), sizeof(ppp_devnam))
#define irnet_set_modem(b) (modem = (b))

#endif

#endif
