/*
 * tool_signals.h: SIGINT and SIGTERM as a descriptor, for the tools that
 * wait with their own poll (irdactl watch, irspray --listen --daemon)
 * rather than an eloop: blocked, then read from a signalfd.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_TOOL_SIGNALS_H
#define IRNET_TOOL_SIGNALS_H

#include <signal.h>
#include <sys/signalfd.h>

/* The signalfd, or -1 with errno. */
static inline int tool_signals_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC);
}

#endif
