/*
 * test_privdrop.c: the seccomp allow-list against what a process really
 * does at its end, and the UUCP lock after a privilege drop.
 *
 * Every case runs in forked children, since a filter cannot be removed:
 *  - the calls only the sanitizer runtimes need are allowed in a
 *    sanitizer build and kill the child (SIGSYS) in a normal one, so the
 *    normal filter did not widen; prctl stays limited to the options
 *    LeakSanitizer uses in both;
 *  - in a sanitizer build, a child under the filter exits cleanly, and a
 *    leak, a use-after-free and an integer overflow after the filter
 *    still end in the sanitizer's report and a failing exit status, not
 *    in SIGSYS with the report lost;
 *  - as root: a child that opens a pty with its lock in a sticky
 *    directory, hands the lock to nobody, drops to nobody, installs the
 *    filter and closes the port leaves no lock file; without the handover
 *    the lock stays (the case the handover fixes);
 *  - a helper's own list (privdrop_seccomp_only, the port opener's):
 *    open of an existing file read-write and ioctl TCGETS get through;
 *    open read-only or creating, another ioctl, write and getpid (on the
 *    host's list, not on this one) kill the child.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "privdrop.h"
#include "serial.h"
#include "uucplock.h"

/* Runs fn(arg) in a child with its stderr going to the file errpath
 * (NULL: kept); returns the child's wait status. */
static int in_child(void (*fn)(int), int arg, const char *errpath)
{
	int status = 0;
	pid_t pid;

	/* the child may exit() and flush what the parent has buffered */
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (errpath) {
			int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(90);
		}
		fn(arg);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void filter_or_die(void)
{
	char err[200];

	if (privdrop_seccomp(NULL, err, sizeof(err)) < 0)
		_exit(91);
}

/* --- the allow-list: wider only in sanitizer builds ---------------------- */

enum probe {
	PROBE_READLINK,
	PROBE_READLINKAT,
	PROBE_PIPE2,
	PROBE_GETPPID,
	PROBE_SCHED_YIELD,
	PROBE_WAIT4,
	PROBE_GETDENTS64,
	PROBE_GETDENTS,
	PROBE_PTRACE,
	PROBE_CLONE,
	PROBE_PRCTL_DUMPABLE,
	PROBE_COUNT,
};

static const char *const probe_names[PROBE_COUNT] = {
	"readlink", "readlinkat", "pipe2", "getppid", "sched_yield", "wait4",
	"getdents64", "getdents", "ptrace", "clone", "prctl(PR_GET_DUMPABLE)",
};

/* One of the calls only the sanitizer runtime needs; exits 0 if the call
 * got through (whatever it returned: ptrace and clone are made to fail
 * harmlessly, with no such process and invalid flags). */
static void child_probe(int which)
{
	char buf[256];
	int fds[2];
	int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		_exit(92);
	filter_or_die();
	switch (which) {
	case PROBE_READLINK:
		(void)!readlink("/proc/self/exe", buf, sizeof(buf));
		break;
	case PROBE_READLINKAT:
		(void)!readlinkat(AT_FDCWD, "/proc/self/exe", buf, sizeof(buf));
		break;
	case PROBE_PIPE2:
		(void)!pipe2(fds, 0);
		break;
	case PROBE_GETPPID:
		(void)getppid();
		break;
	case PROBE_SCHED_YIELD:
		(void)sched_yield();
		break;
	case PROBE_WAIT4:
		(void)wait4(-1, NULL, WNOHANG, NULL);
		break;
	case PROBE_GETDENTS64:
		(void)syscall(SYS_getdents64, dir, buf, sizeof(buf));
		break;
	case PROBE_GETDENTS:
#ifdef SYS_getdents
		(void)syscall(SYS_getdents, dir, buf, sizeof(buf));
#else
		(void)syscall(SYS_getdents64, dir, buf, sizeof(buf));   /* the only one here */
#endif
		break;
	case PROBE_PTRACE:
		(void)ptrace(PTRACE_PEEKDATA, 0, NULL, NULL);
		break;
	case PROBE_CLONE:
		/* CLONE_THREAD without CLONE_SIGHAND: EINVAL */
		(void)syscall(SYS_clone, CLONE_THREAD, NULL, NULL, NULL, 0);
		break;
	case PROBE_PRCTL_DUMPABLE:
		(void)prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
		break;
	default:
		_exit(93);
	}
	_exit(0);
}

/* A prctl option no sanitizer uses: killed in every build. */
static void child_prctl_set_name(int unused)
{
	(void)unused;
	filter_or_die();
	(void)prctl(PR_SET_NAME, (unsigned long)"x", 0, 0, 0);
	_exit(0);
}

static void widens_only_for_sanitizers(void **state)
{
	int st;

	(void)state;
	for (int i = 0; i < PROBE_COUNT; i++) {
		st = in_child(child_probe, i, NULL);
		if (PRIVDROP_SANITIZER_BUILD) {
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				fail_msg("sanitizer build: %s not allowed (status 0x%x)",
					 probe_names[i], (unsigned)st);
		} else if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS) {
			fail_msg("normal build: %s not killed (status 0x%x)", probe_names[i],
				 (unsigned)st);
		}
	}
	st = in_child(child_prctl_set_name, 0, NULL);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

/* --- a helper's own list (privdrop_seccomp_only) ------------------------ */

enum own_probe {
	OWN_OPEN_RDWR,        /* allowed: an existing file, read-write */
	OWN_IOCTL_TCGETS,     /* allowed: the one ioctl */
	OWN_OPEN_RDONLY,      /* the rest is killed */
	OWN_OPEN_CREAT,
	OWN_IOCTL_TIOCMGET,
	OWN_WRITE,            /* on the host's list, not on this one */
	OWN_GETPID,
	OWN_COUNT,
};

static const char *const own_names[OWN_COUNT] = {
	"open O_RDWR", "ioctl TCGETS", "open O_RDONLY", "open O_RDWR|O_CREAT",
	"ioctl TIOCMGET", "write", "getpid",
};

/* Under a list like the port opener's: one call, then exit 0 if it got
 * through (the descriptors are opened before the filter). */
static void child_own_list(int which)
{
	static const char *const calls[] = { "close", "exit", "exit_group" };
	static const unsigned long ioctls[] = { TCGETS };
	char err[200], path[64];
	int lines, fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	snprintf(path, sizeof(path), "/tmp/test_privdrop.%d", (int)getpid());
	if (fd < 0 || privdrop_seccomp_only(calls, 3, ioctls, 1, err, sizeof(err)) < 0)
		_exit(91);
	switch (which) {
	case OWN_OPEN_RDWR: (void)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR); break;
	case OWN_IOCTL_TCGETS: (void)syscall(SYS_ioctl, fd, TCGETS, &(struct termios){ 0 }); break;
	case OWN_OPEN_RDONLY: (void)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY); break;
	case OWN_OPEN_CREAT: (void)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT, 0600); break;
	case OWN_IOCTL_TIOCMGET: (void)syscall(SYS_ioctl, fd, TIOCMGET, &lines); break;
	case OWN_WRITE: (void)syscall(SYS_write, fd, "x", 1); break;
	case OWN_GETPID: (void)syscall(SYS_getpid); break;
	}
	_exit(0);
}

static void own_list_only(void **state)
{
	(void)state;
	for (int i = 0; i < OWN_COUNT; i++) {
		int st = in_child(child_own_list, i, NULL);
		bool allowed = i == OWN_OPEN_RDWR || i == OWN_IOCTL_TCGETS;

		if (allowed && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
			fail_msg("%s not allowed (status 0x%x)", own_names[i], (unsigned)st);
		if (!allowed && (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS))
			fail_msg("%s not killed (status 0x%x)", own_names[i], (unsigned)st);
	}
}

/* --- sanitizer reports under the filter --------------------------------- */

#if PRIVDROP_SANITIZER_BUILD
/* gcc's runtime symbolizes a report in the process (libbacktrace);
 * clang's runs llvm-symbolizer, which the filter does not allow, so
 * under clang reports need symbolize=0 and name no functions. */
#if defined(__clang__)
#define SYMBOLIZES_IN_PROCESS 0
#else
#define SYMBOLIZES_IN_PROCESS 1
#endif

/* Keeps the compiler from dropping the faulty accesses below. */
static void *volatile sink;
static char *volatile freed;
static volatile int int_max = INT_MAX;

static void child_clean_exit(int unused)
{
	(void)unused;
	filter_or_die();
	exit(0);   /* not _exit: LeakSanitizer's check runs */
}

static void child_leaks(int unused)
{
	(void)unused;
	filter_or_die();
	/* several blocks: a stale copy of one pointer on the stack would
	 * hide only that one from the leak check */
	for (int i = 0; i < 16; i++)
		sink = malloc(96);
	sink = NULL;
	exit(0);
}

static void child_use_after_free(int unused)
{
	(void)unused;
	filter_or_die();
	freed = malloc(8);
	free(freed);
	freed[0] = 1;
	_exit(0);
}

static void child_int_overflow(int unused)
{
	(void)unused;
	filter_or_die();
	sink = (void *)(intptr_t)(int_max + (int)getpid());
	_exit(0);
}

/* The child's stderr, read back into buf. */
static const char *slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, cap - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* A report: the child exited (not killed by the filter) with a failing
 * status, and its stderr has every one of the words. */
static void expect_report(void (*fn)(int), const char *errpath, const char *what,
			  const char *word1, const char *word2)
{
	static char text[16384];
	int st = in_child(fn, 0, errpath);

	slurp(errpath, text, sizeof(text));
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 0 || !strstr(text, word1) ||
	    !strstr(text, word2))
		fail_msg("%s: status 0x%x, stderr:\n%s", what, (unsigned)st, text);
}

static void reports_survive_the_filter(void **state)
{
	char errpath[] = "/tmp/test_privdrop.err.XXXXXX";
	const char *opts = getenv("ASAN_OPTIONS");
	int fd = mkstemp(errpath);
	int st;

	(void)state;
	if (!SYMBOLIZES_IN_PROCESS &&
	    !(opts && strstr(opts, "symbolize=0") && getenv("UBSAN_OPTIONS") &&
	      strstr(getenv("UBSAN_OPTIONS"), "symbolize=0"))) {
		close(fd);
		unlink(errpath);
		skip();   /* clang: needs symbolize=0 in ASAN_OPTIONS and UBSAN_OPTIONS */
	}
	assert_true(fd >= 0);
	close(fd);
	/* LeakSanitizer's check at exit finds nothing and gets through */
	st = in_child(child_clean_exit, 0, errpath);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	if (!opts || !strstr(opts, "detect_leaks=0"))
		expect_report(child_leaks, errpath, "leak",
			      "ERROR: LeakSanitizer: detected memory leaks",
			      SYMBOLIZES_IN_PROCESS ? "child_leaks" : "SUMMARY: ");
	/* symbolized (gcc): the report names the function */
	expect_report(child_use_after_free, errpath, "use after free",
		      "ERROR: AddressSanitizer: heap-use-after-free",
		      SYMBOLIZES_IN_PROCESS ? "child_use_after_free" : "SUMMARY: ");
	expect_report(child_int_overflow, errpath, "integer overflow",
		      "runtime error: signed integer overflow", "test_privdrop.c");
	unlink(errpath);
}
#endif

/* --- the user's ids ----------------------------------------------------- */

static void looks_up_users(void **state)
{
	struct passwd pw, *res = NULL;
	char buf[4096], err[200];
	uid_t uid;
	gid_t gid;

	(void)state;
	assert_int_equal(getpwnam_r("nobody", &pw, buf, sizeof(buf), &res), 0);
	assert_non_null(res);
	assert_int_equal(privdrop_lookup("nobody", &uid, &gid, err, sizeof(err)), 0);
	assert_int_equal(uid, pw.pw_uid);
	assert_int_equal(gid, pw.pw_gid);
	/* NULL is nobody, as for privdrop_user */
	uid = 0;
	assert_int_equal(privdrop_lookup(NULL, &uid, &gid, err, sizeof(err)), 0);
	assert_int_equal(uid, pw.pw_uid);
	/* a number without a passwd entry: that uid, and the same gid */
	assert_int_equal(privdrop_lookup("54321", &uid, &gid, err, sizeof(err)), 0);
	assert_int_equal(uid, 54321);
	assert_int_equal(gid, 54321);
	assert_int_equal(privdrop_lookup("no-such-user-xyz", &uid, &gid, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no-such-user-xyz"));
}

/* --- the lock after a drop ---------------------------------------------- */

struct lockcase {
	char dir[64];        /* sticky, world-writable: like /var/lock */
	int master;
	char slave[64];
	char lockfile[PATH_MAX];
};

static struct lockcase lc;

static int remove_lockcase(void **state)
{
	char cmd[128];

	(void)state;
	if (lc.master > 0)
		close(lc.master);
	lc.master = -1;
	if (!lc.dir[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", lc.dir);
	lc.dir[0] = '\0';
	return system(cmd) == 0 ? 0 : -1;
}

/* As root: open the pty with its lock, hand the lock to nobody if asked
 * (chown != 0), drop to nobody, install the filter, close the port. */
static void child_open_drop_close(int chown)
{
	struct serial_config cfg;
	struct port *p = NULL;
	char err[256];
	uid_t uid;
	gid_t gid;

	serial_config_init(&cfg);
	cfg.lock_dir = lc.dir;
	if (serial_open(lc.slave, &cfg, &p, err, sizeof(err)) < 0)
		_exit(80);
	if (chown && (privdrop_lookup("nobody", &uid, &gid, err, sizeof(err)) < 0 ||
		      serial_lock_chown(p, uid, gid) < 0))
		_exit(81);
	if (privdrop_user("nobody", NULL, err, sizeof(err)) < 0)
		_exit(82);
	if (privdrop_seccomp(NULL, err, sizeof(err)) < 0)
		_exit(83);
	port_close(p);
	_exit(0);
}

static void a_dropped_process_removes_its_lock(void **state)
{
	char name[64];
	struct stat st;
	int status;

	(void)state;
	if (geteuid() != 0)
		skip();   /* dropping privileges needs root */
	snprintf(lc.dir, sizeof(lc.dir), "/tmp/test_privdrop.XXXXXX");
	assert_non_null(mkdtemp(lc.dir));
	assert_int_equal(chmod(lc.dir, 01777), 0);
	lc.master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(lc.master >= 0);
	assert_int_equal(grantpt(lc.master), 0);
	assert_int_equal(unlockpt(lc.master), 0);
	assert_int_equal(ptsname_r(lc.master, lc.slave, sizeof(lc.slave)), 0);
	assert_true(uucplock_name(lc.slave, name, sizeof(name)));
	snprintf(lc.lockfile, sizeof(lc.lockfile), "%s/%s", lc.dir, name);

	/* without the handover, nobody may not unlink root's file in a
	 * sticky directory: the lock stays behind */
	status = in_child(child_open_drop_close, 0, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(stat(lc.lockfile, &st), 0);
	assert_int_equal(st.st_uid, 0);

	/* with it, the close removes the lock (the stale one above is taken
	 * over first, its PID being dead) */
	status = in_child(child_open_drop_close, 1, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(stat(lc.lockfile, &st), -1);
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(widens_only_for_sanitizers),
		cmocka_unit_test(own_list_only),
#if PRIVDROP_SANITIZER_BUILD
		cmocka_unit_test(reports_survive_the_filter),
#endif
		cmocka_unit_test(looks_up_users),
		cmocka_unit_test_teardown(a_dropped_process_removes_its_lock, remove_lockcase),
	};

	return cmocka_run_group_tests_name("privdrop", tests, NULL, NULL);
}
