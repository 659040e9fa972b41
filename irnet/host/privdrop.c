/*
 * privdrop.c: dropping root and the seccomp allow-list.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privdrop.h"

int privdrop_lookup(const char *user, uid_t *uid, gid_t *gid, char *err, size_t errlen)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	char *end;
	unsigned long n;
	int r;

	if (!user)
		user = "nobody";
	r = getpwnam_r(user, &pw, buf, sizeof(buf), &res);
	if (r == 0 && res) {
		*uid = pw.pw_uid;
		*gid = pw.pw_gid;
		return 0;
	}
	errno = 0;
	n = strtoul(user, &end, 10);
	if (user[0] >= '0' && user[0] <= '9' && *end == '\0' && errno == 0 &&
	    n < (unsigned long)(uid_t)-1) {
		*uid = (uid_t)n;
		*gid = (gid_t)n;
		if (getpwuid_r(*uid, &pw, buf, sizeof(buf), &res) == 0 && res)
			*gid = pw.pw_gid;
		return 0;
	}
	snprintf(err, errlen, "user '%s': %s", user, r ? strerror(r) : "no such user");
	return -ENOENT;
}

int privdrop_user(const char *user, const struct logger *log, char *err, size_t errlen)
{
	return privdrop_user_keeping(user, 0, log, err, errlen);
}

int privdrop_user_keeping(const char *user, gid_t keep_gid, const struct logger *log, char *err,
			  size_t errlen)
{
	uid_t uid, ruid, euid, suid;
	gid_t gid, rgid, egid, sgid;
	int r;

	if (!user)
		user = "nobody";
	if (geteuid() != 0) {
		log_msg(log, LOG_LEVEL_DEBUG, "privdrop: not root (uid %u): keeping uid",
			(unsigned)geteuid());
		return 0;
	}
	r = privdrop_lookup(user, &uid, &gid, err, errlen);
	if (r < 0)
		return r;
	if (uid == 0) {
		snprintf(err, errlen, "user '%s' is root: refusing to run as root", user);
		return -EINVAL;
	}
	if (setgroups(keep_gid ? 1 : 0, keep_gid ? &keep_gid : NULL) < 0 ||
	    setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0) {
		r = -errno;
		snprintf(err, errlen, "becoming user '%s' (uid %u gid %u): %s", user,
			 (unsigned)uid, (unsigned)gid, strerror(errno));
		return r;
	}
	if (getresuid(&ruid, &euid, &suid) < 0 || getresgid(&rgid, &egid, &sgid) < 0 ||
	    ruid == 0 || euid == 0 || suid == 0 || rgid == 0 || egid == 0 || sgid == 0 ||
	    getgroups(0, NULL) != (keep_gid ? 1 : 0) || setuid(0) == 0) {
		snprintf(err, errlen, "user '%s': privileges not fully dropped", user);
		return -EPERM;
	}
	log_msg(log, LOG_LEVEL_DEBUG, "privdrop: now uid %u gid %u ('%s')%s", (unsigned)uid,
		(unsigned)gid, user, keep_gid ? ", keeping the device's group" : "");
	return 0;
}

/* What a running host does: I/O on open descriptors, the loop, timers,
 * signals, termios and modem-line ioctls, memory, and exiting.  Closing
 * the port restores termios (ioctl), reads its lock file back (an open
 * for reading only, see allow_open_in_mode) and unlinks it (which works
 * after a drop once serial_lock_chown gave the file to the user). */
static const char *const allowed[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "close",
	"ppoll", "poll", "select", "pselect6", "epoll_wait", "epoll_pwait",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday", "time",
	"ioctl", "fcntl", "fstat", "newfstatat", "lseek", "statx",
	"rt_sigprocmask", "rt_sigreturn", "rt_sigaction", "rt_sigtimedwait",
	"signalfd4", "sigaltstack", "getpid", "gettid", "tgkill",
	"brk", "mmap", "munmap", "mremap", "madvise", "mprotect", "futex",
	"getrandom", "unlink", "unlinkat", "restart_syscall",
	/* libusb's transfer timeouts (a USB dongle) */
	"timerfd_settime", "timerfd_gettime",
	"exit", "exit_group",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Allows each call in names without conditions; why goes in the message
 * (e.g. " (sanitizer runtime)"). */
static int allow_names(scmp_filter_ctx ctx, const char *const *names, size_t n,
		       const char *why, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);
		int r;

		/* Some names do not exist on every architecture. */
		if (nr == __NR_SCMP_ERROR)
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (r < 0) {
			snprintf(err, errlen, "seccomp: allowing %s%s: %s", names[i], why,
				 strerror(-r));
			return r;
		}
	}
	return 0;
}

#if PRIVDROP_SANITIZER_BUILD
/* The sanitizer runtimes' own calls, measured on x86_64 with gcc 12
 * (ASan+UBSan, configure --enable-sanitizers) by running irdiscover,
 * irspray and forked children with leaks, use-after-free and UBSan
 * errors under a logging filter.  Without them the process dies of
 * SIGSYS at exit or in the middle of a report, and the report is lost.
 *
 * LeakSanitizer at exit stops the world: it clones a tracer task that
 * ptrace-attaches to the process's threads to read their registers:
 *   clone        the tracer (CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_UNTRACED)
 *   ptrace       the tracer attaching, reading registers, detaching
 *   wait4        the tracer waiting for each thread to stop; the
 *                process reaping the tracer
 *   sched_yield  the process waiting for the tracer to start
 *   getppid      the tracer checking that the process still exists
 *   getdents64   the tracer listing /proc/self/task (the directory is
 *   getdents     opened read-only, which the filter allows anyway)
 *   prctl        options in sanitizer_prctl_options below
 * Reports (ASan, LeakSanitizer, UBSan) symbolize their stacks:
 *   readlink     /proc/self/exe and the libraries' symlinks
 *   readlinkat   the same where there is no readlink (aarch64, which
 *                also has getdents64 only)
 * and UBSan, printing the memory around a bad pointer, first checks it
 * is readable by writing it into a pipe:
 *   pipe2
 * Never in a normal build: there the list above is the whole filter.
 *
 * clang's runtime (compiler-rt 14) gets through its leak check with these
 * too, but symbolizes by running llvm-symbolizer (stat, fork, execve, and
 * then that program's own calls under the inherited filter), which this
 * filter will not allow: under clang, run with symbolize=0 in
 * ASAN_OPTIONS/UBSAN_OPTIONS (addresses and build ids in the report), or
 * with --no-seccomp. */
static const char *const sanitizer_allowed[] = {
	"clone", "ptrace", "wait4", "sched_yield", "getppid",
	"getdents64", "getdents", "readlink", "readlinkat", "pipe2",
};

/* prctl only for what LeakSanitizer does with it: a dropped process is
 * not dumpable, which forbids the ptrace above, so it reads the flag,
 * sets it for the check and restores it (GET/SET_DUMPABLE); it lets the
 * tracer trace it under Yama (SET_PTRACER); the tracer asks to die with
 * the process (SET_PDEATHSIG). */
static const scmp_datum_t sanitizer_prctl_options[] = {
	PR_GET_DUMPABLE, PR_SET_DUMPABLE, PR_SET_PTRACER, PR_SET_PDEATHSIG,
};

/* A helper under its own list (privdrop_seccomp_only) has none of the
 * host's calls; the runtime's _exit (ASan's interceptor) takes its
 * alternate signal stack down first (sigaltstack, munmap): measured
 * with the port opener exiting, which died of SIGSYS without them. */
static const char *const sanitizer_exit_calls[] = { "sigaltstack", "munmap" };

static int allow_sanitizer_calls(scmp_filter_ctx ctx, char *err, size_t errlen)
{
	int r = allow_names(ctx, sanitizer_allowed, COUNT(sanitizer_allowed),
			    " (sanitizer runtime)", err, errlen);

	for (size_t i = 0; r == 0 && i < COUNT(sanitizer_prctl_options); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
				     SCMP_A0(SCMP_CMP_EQ, sanitizer_prctl_options[i], 0));
		if (r < 0)
			snprintf(err, errlen, "seccomp: allowing prctl (sanitizer runtime): %s",
				 strerror(-r));
	}
	return r;
}
#endif

/* open/openat of an existing file in one access mode only (O_RDONLY or
 * O_RDWR): the flags, masked with the access mode and the creating bits,
 * must equal it, so nothing is created, truncated or appended to. */
static int allow_open_in_mode(scmp_filter_ctx ctx, scmp_datum_t mode)
{
	const scmp_datum_t mask = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
	int nr, r;

	nr = seccomp_syscall_resolve_name("openat");
	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, mask, mode));
	nr = seccomp_syscall_resolve_name("open");
	if (r == 0 && nr != __NR_SCMP_ERROR)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, mask, mode));
	return r;
}

/* What a filter lets through beside its list of calls. */
enum open_rule { OPEN_READ_ONLY, OPEN_READ_WRITE };

/* Builds and loads a filter: the calls in base and extra, the open rule,
 * ioctl only with the requests in ioctls when nioctl (else as listed),
 * and in a sanitizer build the runtime's calls.  what names the list in
 * the debug line. */
static int load_filter(const struct logger *log, const char *what,
		       const char *const *base, size_t nbase, const char *const *extra,
		       size_t n, const unsigned long *ioctls, size_t nioctl, enum open_rule open,
		       char *err, size_t errlen)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int r = 0;

	if (!ctx) {
		snprintf(err, errlen, "seccomp: cannot create a filter");
		return -ENOMEM;
	}
	r = allow_names(ctx, base, nbase, "", err, errlen);
	if (r == 0 && n)
		r = allow_names(ctx, extra, n, " (the program's own)", err, errlen);
	for (size_t i = 0; r == 0 && i < nioctl; i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)ioctls[i], 0));
		if (r < 0)
			snprintf(err, errlen, "seccomp: allowing ioctl 0x%lx: %s", ioctls[i],
				 strerror(-r));
	}
	if (r < 0)
		goto out;
	r = allow_open_in_mode(ctx, open == OPEN_READ_WRITE ? O_RDWR : O_RDONLY);
	if (r < 0) {
		snprintf(err, errlen, "seccomp: allowing %s open: %s",
			 open == OPEN_READ_WRITE ? "read-write" : "read-only", strerror(-r));
		goto out;
	}
#if PRIVDROP_SANITIZER_BUILD
	r = allow_sanitizer_calls(ctx, err, errlen);
	if (r == 0 && base != allowed)
		r = allow_names(ctx, sanitizer_exit_calls, COUNT(sanitizer_exit_calls),
				" (sanitizer runtime)", err, errlen);
	if (r < 0)
		goto out;
#endif
	r = seccomp_load(ctx);
	if (r < 0)
		snprintf(err, errlen, "seccomp: loading the filter: %s", strerror(-r));
	else
		log_msg(log, LOG_LEVEL_DEBUG, "privdrop: seccomp %s of %zu calls loaded%s", what,
			nbase + n + nioctl, PRIVDROP_SANITIZER_BUILD ? " (and the sanitizer runtime's)" : "");
out:
	seccomp_release(ctx);
	return r;
}

int privdrop_seccomp(const struct logger *log, char *err, size_t errlen)
{
	return privdrop_seccomp_with(log, NULL, 0, err, errlen);
}

int privdrop_seccomp_with(const struct logger *log, const char *const *extra, size_t n,
			  char *err, size_t errlen)
{
	return load_filter(log, "allow-list", allowed, COUNT(allowed), extra, n, NULL, 0,
			   OPEN_READ_ONLY, err, errlen);
}

int privdrop_seccomp_only(const char *const *calls, size_t n, const unsigned long *ioctls,
			  size_t nioctl, char *err, size_t errlen)
{
	return load_filter(NULL, "own list", calls, n, NULL, 0, ioctls, nioctl, OPEN_READ_WRITE,
			   err, errlen);
}
