/*
 * irqtune.c: the irqtune program (irqtune(8)): list, apply, restore,
 * stat and pic.  It owns the command line, the files it reads and the
 * output; the decisions live in the library (conf, plan, state, pic).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <libudev.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "discover.h"
#include "fileio.h"
#include "log.h"
#include "pic.h"
#include "plan.h"
#include "port.h"
#include "report.h"
#include "run.h"
#include "state.h"
#include "sys.h"

#define EXIT_JOB 1
#define EXIT_USAGE 2
#define DEFAULT_CONF "/etc/irqtune.conf"

struct ctx {
	const char *conf_path;
	bool conf_explicit;
	const char *state_path;
	struct logger log;
	struct irqtune_sys sys;
	struct irqtune_sys_real real;
	bool quiet;
};

static void usage(FILE *f)
{
	fputs("usage: irqtune [-c FILE] [--state FILE] [-v] [-q] COMMAND [ARGS]\n"
	      "\n"
	      "  list [--json] [DEVICE...]      serial ports, their IRQs, threads and settings\n"
	      "  apply [--dry-run] [--prio N] [--hc-prio N] [--cpus LIST]\n"
	      "        [--rx-trigger N] [--low-latency yes|no]\n"
	      "        [--latency-timer MS] [DEVICE...]\n"
	      "                                 apply the policy (irqtune.conf(5)), after\n"
	      "                                 recording the original values\n"
	      "  restore [--dry-run] [DEVICE...] put the original values back\n"
	      "  stat [--watch] [--interval S] [--count N] [DEVICE...]\n"
	      "                                 interrupt rate and error counters\n"
	      "  pic [--dry-run] [MASTER [SLAVE]] the 1996 8259 priority (XT-PIC only)\n"
	      "\n"
	      "  -c, --config FILE   policy file (default " DEFAULT_CONF ")\n"
	      "      --state FILE    state file (default " IRQTUNE_STATE_FILE ")\n"
	      "  -v, --verbose       more messages (twice: debug)\n"
	      "  -q, --quiet         only errors and warnings\n"
	      "  -h, --help          this help\n"
	      "DEVICE is a name (ttyS0), a /dev node or a /dev/serial/by-id link.\n"
	      "Exit status: 0 success, 1 the job failed, 2 usage or input error.\n",
	      f);
}

static void say(const struct ctx *c, const char *line)
{
	if (!c->quiet)
		printf("%s\n", line);
}

/* Loads the policy.  A missing default file means built-in defaults. */
static int load_conf(const struct ctx *c, struct irqtune_conf *conf)
{
	size_t len;
	uint8_t *text;
	char msg[512];
	irqtune_conf_init(conf);
	/* A policy file is a few lines; 16 MiB is far past any real one. */
	int err = file_read_all(c->conf_path, 1u << 24, &text, &len);
	if (err < 0) {
		if (err == -ENOENT && !c->conf_explicit) {
			log_msg(&c->log, LOG_LEVEL_INFO,
				"%s: not found, using the built-in defaults",
				c->conf_path);
			return 0;
		}
		log_msg(&c->log, LOG_LEVEL_ERROR, "%s: %s", c->conf_path,
			strerror(-err));
		return EXIT_USAGE;
	}
	int rc = irqtune_conf_parse(text, len, c->conf_path, conf, msg,
				    sizeof(msg));
	free(text);
	if (rc < 0) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "%s", msg);
		return EXIT_USAGE;
	}
	return 0;
}

/* Finds the ports, keeps those named on the command line. */
/* Marks in keep the ports that name designates; true if any. */
static bool select_ports(const struct irqtune_ports *ports, const char *name, bool *keep)
{
	bool found = false;
	for (size_t j = 0; j < ports->n; j++) {
		if (irqtune_port_is(&ports->v[j], name)) {
			keep[j] = true;
			found = true;
		}
	}
	return found;
}

static int find_ports(struct ctx *c, char **names, int nnames,
		      struct irqtune_ports *ports)
{
	struct udev *udev = udev_new();
	if (!udev) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "udev_new failed");
		return EXIT_JOB;
	}
	int rc = irqtune_discover(udev, &c->sys, &c->log, ports);
	udev_unref(udev);
	if (rc < 0) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "finding serial ports: %s",
			strerror(-rc));
		return EXIT_JOB;
	}
	if (nnames == 0)
		return 0;
	bool *keep = calloc(ports->n ? ports->n : 1, sizeof(*keep));
	if (!keep)
		return EXIT_JOB;
	for (int i = 0; i < nnames; i++) {
		bool found = select_ports(ports, names[i], keep);
		if (!found && strchr(names[i], '/')) {
			/* A link udev does not list: by where it leads.  Only
			 * then, since umockdev's preload (0.17, Debian 12) wraps
			 * realpath with a memmove that overruns, and the tests
			 * name ports by the links udev lists. */
			char *alt = realpath(names[i], NULL);
			found = alt && select_ports(ports, alt, keep);
			free(alt);
		}
		if (!found) {
			log_msg(&c->log, LOG_LEVEL_ERROR,
				"%s: no such serial port (`irqtune list` shows "
				"them)", names[i]);
			free(keep);
			return EXIT_USAGE;
		}
	}
	size_t n = 0;
	for (size_t j = 0; j < ports->n; j++)
		if (keep[j])
			ports->v[n++] = ports->v[j];
	ports->n = n;
	free(keep);
	return 0;
}

static int take_snapshot(struct ctx *c, struct irqtune_snapshot *snap)
{
	int rc = irqtune_snapshot_take(&c->sys, &c->log, snap);
	if (rc < 0) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "reading /proc: %s",
			strerror(-rc));
		return EXIT_JOB;
	}
	return 0;
}

static void inspect_all(struct ctx *c, const struct irqtune_snapshot *snap,
			struct irqtune_ports *ports)
{
	for (size_t i = 0; i < ports->n; i++)
		irqtune_inspect_port(&c->sys, snap, &ports->v[i]);
}

/* The options of list, restore and pic: one flag (--json or --dry-run)
 * and --help.  Returns -1 to go on, or the exit status. */
static int flag_options(int argc, char **argv, const char *flag, bool *on)
{
	const struct option opts[] = {
		{ flag, no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 } };
	int o;
	*on = false;
	while ((o = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (o == 'f') {
			*on = true;
		} else if (o == 'h') {
			usage(stdout);
			return 0;
		} else {
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* ---- list ---------------------------------------------------------- */

static int cmd_list(struct ctx *c, int argc, char **argv)
{
	bool json;
	int rc = flag_options(argc, argv, "json", &json);
	if (rc >= 0)
		return rc;
	struct irqtune_ports ports;
	struct irqtune_snapshot snap;
	rc = find_ports(c, argv + optind, argc - optind, &ports);
	if (rc)
		return rc;
	rc = take_snapshot(c, &snap);
	if (rc) {
		irqtune_ports_free(&ports);
		return rc;
	}
	inspect_all(c, &snap, &ports);
	if (!snap.threaded)
		log_msg(&c->log, LOG_LEVEL_WARNING,
			"IRQs are not threaded on this kernel, so serial IRQ "
			"priorities cannot be raised: boot with threadirqs "
			"(GRUB_CMDLINE_LINUX in /etc/default/grub, then "
			"update-grub) or use a PREEMPT_RT kernel");
	if (json)
		rc = irqtune_report_json(stdout, &ports, &snap) < 0 ? EXIT_JOB : 0;
	else
		irqtune_report_text(stdout, &ports);
	irqtune_snapshot_free(&snap);
	irqtune_ports_free(&ports);
	return fflush(stdout) == 0 ? rc : EXIT_JOB;
}

/* ---- apply --------------------------------------------------------- */

static void print_plan(const struct ctx *c, const struct irqtune_plan *plan,
		       bool only_done)
{
	char line[IRQTUNE_PATH + 200];
	for (size_t i = 0; i < plan->n; i++) {
		const struct irqtune_change *ch = &plan->v[i];
		if (only_done && !ch->done)
			continue;
		irqtune_change_describe(ch, line, sizeof(line));
		say(c, line);
	}
}

static int cmd_apply(struct ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "prio", required_argument, NULL, 'p' },
		{ "hc-prio", required_argument, NULL, 'H' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "rx-trigger", required_argument, NULL, 'r' },
		{ "low-latency", required_argument, NULL, 'l' },
		{ "latency-timer", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 } };
	struct irqtune_settings cli;
	bool dry = false;
	int o;
	char err[IRQTUNE_PATH + 256];
	irqtune_settings_init(&cli);
	while ((o = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		const char *key = NULL;
		switch (o) {
		case 'n': dry = true; break;
		case 'p': key = "prio"; break;
		case 'H': key = "hc_prio"; break;
		case 'C': key = "cpus"; break;
		case 'r': key = "rx_trigger"; break;
		case 'l': key = "low_latency"; break;
		case 't': key = "latency_timer"; break;
		case 'h': usage(stdout); return 0;
		default: return EXIT_USAGE;
		}
		if (key && !irqtune_settings_set(&cli, key, optarg, err, sizeof(err))) {
			log_msg(&c->log, LOG_LEVEL_ERROR, "option --%s", err);
			return EXIT_USAGE;
		}
	}

	struct irqtune_conf conf;
	int rc = load_conf(c, &conf);
	if (rc)
		return rc;
	struct irqtune_ports ports = { 0 };
	struct irqtune_snapshot snap = { 0 };
	struct irqtune_plan plan = { 0 };
	rc = find_ports(c, argv + optind, argc - optind, &ports);
	if (rc)
		goto out;
	rc = take_snapshot(c, &snap);
	if (rc)
		goto out;
	inspect_all(c, &snap, &ports);
	for (size_t i = 0; i < ports.n; i++) {
		struct irqtune_settings s;
		irqtune_conf_resolve(&conf, &ports.v[i], &cli, &s);
		if (irqtune_plan_port(&snap, &ports.v[i], &s, &c->log, &plan) < 0) {
			rc = EXIT_JOB;
			goto out;
		}
	}
	if (ports.n == 0)
		log_msg(&c->log, LOG_LEVEL_INFO, "no hardware serial port found");
	if (dry) {
		print_plan(c, &plan, false);
		goto out;
	}

	int r = irqtune_apply(&c->sys, &snap, &plan, c->state_path, &c->log,
			      err, sizeof(err));
	if (r < 0) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "%s%s", err,
			r == -EINVAL ? "; nothing applied (move the file away "
				       "to start afresh)" : "");
		rc = r == -EINVAL ? EXIT_USAGE : EXIT_JOB;
		goto out;
	}
	print_plan(c, &plan, true);
out:
	irqtune_plan_free(&plan);
	irqtune_snapshot_free(&snap);
	irqtune_ports_free(&ports);
	irqtune_conf_free(&conf);
	return rc;
}

/* ---- restore ------------------------------------------------------- */

/* restore names devices by kernel name: they may be unplugged by now. */
static const char *kernel_name(const char *arg, char *buf, size_t cap)
{
	char *real = strchr(arg, '/') ? realpath(arg, NULL) : NULL;
	const char *p = real ? real : arg;
	const char *slash = strrchr(p, '/');
	const char *base = slash ? slash + 1 : p;
	size_t n = strlen(base);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, base, n);
	buf[n] = '\0';
	free(real);
	return buf;
}

static int cmd_restore(struct ctx *c, int argc, char **argv)
{
	bool dry;
	char err[IRQTUNE_PATH + 256];
	int rc = flag_options(argc, argv, "dry-run", &dry);
	if (rc >= 0)
		return rc;
	rc = 0;
	int ndev = argc - optind;
	char (*names)[64] = calloc(ndev ? (size_t)ndev : 1, sizeof(*names));
	const char **devs = calloc(ndev ? (size_t)ndev : 1, sizeof(*devs));
	struct irqtune_snapshot snap = { 0 };
	struct irqtune_plan plan = { 0 };
	if (!names || !devs) {
		rc = EXIT_JOB;
		goto out;
	}
	for (int i = 0; i < ndev; i++)
		devs[i] = kernel_name(argv[optind + i], names[i], sizeof(names[i]));
	rc = take_snapshot(c, &snap);
	if (rc)
		goto out;
	int r = irqtune_restore(&c->sys, &snap, c->state_path, devs,
				(size_t)ndev, dry, &c->log, &plan, err,
				sizeof(err));
	print_plan(c, &plan, !dry);
	if (r < 0) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "%s%s", err,
			r == -EINVAL ? "; nothing restored" : "");
		rc = r == -EINVAL ? EXIT_USAGE : EXIT_JOB;
	}
out:
	free(names);
	free(devs);
	irqtune_plan_free(&plan);
	irqtune_snapshot_free(&snap);
	return rc;
}

/* ---- stat ---------------------------------------------------------- */

static volatile sig_atomic_t stop_watch;
static void on_signal(int sig)
{
	(void)sig;
	stop_watch = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.0 && v <= 86400.0))
		return false;
	*out = v;
	return true;
}

static int sample(struct ctx *c, struct irqtune_ports *ports)
{
	struct irqtune_snapshot snap;
	int rc = take_snapshot(c, &snap);
	if (rc)
		return rc;
	inspect_all(c, &snap, ports);
	irqtune_snapshot_free(&snap);
	return 0;
}

static int cmd_stat(struct ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "watch", no_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 } };
	bool watch = false;
	double interval = 1.0;
	long count = 1;
	bool count_given = false;
	int o;
	while ((o = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		char *end;
		switch (o) {
		case 'w':
			watch = true;
			break;
		case 'i':
			if (!parse_seconds(optarg, &interval)) {
				log_msg(&c->log, LOG_LEVEL_ERROR, "--interval: "
					"'%s' is not a number of seconds", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			errno = 0;
			count = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || count < 1) {
				log_msg(&c->log, LOG_LEVEL_ERROR, "--count: '%s' "
					"is not a positive number", optarg);
				return EXIT_USAGE;
			}
			count_given = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	if (watch && !count_given)
		count = -1; /* until interrupted */
	struct irqtune_ports ports, before;
	int rc = find_ports(c, argv + optind, argc - optind, &ports);
	if (rc)
		return rc;
	before.n = ports.n;
	before.v = calloc(ports.n ? ports.n : 1, sizeof(*before.v));
	if (!before.v) {
		irqtune_ports_free(&ports);
		return EXIT_JOB;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = sample(c, &ports);
	irqtune_report_stat_header(stdout);
	for (long n = 0; rc == 0 && (count < 0 || n < count) && !stop_watch; n++) {
		memcpy(before.v, ports.v, ports.n * sizeof(*ports.v));
		double t0 = now_s();
		struct timespec ts = { (time_t)interval,
				       (long)((interval - (double)(time_t)interval) * 1e9) };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop_watch)
			;
		rc = sample(c, &ports);
		double dt = now_s() - t0;
		for (size_t i = 0; rc == 0 && i < ports.n; i++)
			irqtune_report_stat(stdout, &ports.v[i], &before.v[i], dt);
		fflush(stdout);
	}
	free(before.v);
	irqtune_ports_free(&ports);
	return rc;
}

/* ---- pic ----------------------------------------------------------- */

static bool parse_irq_arg(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > 15)
		return false;
	*out = (int)v;
	return true;
}

static int cmd_pic(struct ctx *c, int argc, char **argv)
{
	bool dry;
	int master = IRQTUNE_PIC_DEFAULT_MASTER, slave = IRQTUNE_PIC_DEFAULT_SLAVE;
	char err[256];
	int rc = flag_options(argc, argv, "dry-run", &dry);
	if (rc >= 0)
		return rc;
	int nargs = argc - optind;
	if (nargs > 2) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "pic takes at most MASTER and SLAVE");
		return EXIT_USAGE;
	}
	if (nargs >= 1 && !parse_irq_arg(argv[optind], &master)) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "MASTER '%s' is not an IRQ 0-7",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (nargs == 1)
		slave = -1;
	if (nargs == 2 && !parse_irq_arg(argv[optind + 1], &slave)) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "SLAVE '%s' is not an IRQ 8-15",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	struct irqtune_pic_cmd cmds[2];
	size_t n;
	if (!irqtune_pic_commands(master, slave, cmds, &n, err, sizeof(err))) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "%s", err);
		return EXIT_USAGE;
	}
	struct irqtune_snapshot snap;
	rc = take_snapshot(c, &snap);
	if (rc)
		return rc;
	if (!snap.ints_ok) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "cannot read /proc/interrupts; "
			"refusing to touch the 8259");
		irqtune_snapshot_free(&snap);
		return EXIT_JOB;
	}
	bool ok = irqtune_pic_in_use(&snap.ints, master, err, sizeof(err));
	irqtune_snapshot_free(&snap);
	if (!ok) {
		log_msg(&c->log, LOG_LEVEL_ERROR,
			"refusing: %s.  This machine routes interrupts through "
			"an APIC, where the 8259 priority (what the 1996 irqtune "
			"set) does not exist; nothing was changed.  What decides "
			"serial latency here is the priority of the IRQ's kernel "
			"thread, its CPU affinity and the UART FIFO trigger: use "
			"`irqtune apply` (see irqtune(8)).", err);
		return EXIT_JOB;
	}
	for (size_t i = 0; i < n; i++) {
		char line[160];
		int len = snprintf(line, sizeof(line),
			"%s 8259 (port 0x%02X): priority order ? -> %d",
			cmds[i].port == IRQTUNE_PIC_MASTER_PORT ? "master" : "slave",
			cmds[i].port, cmds[i].order[0]);
		for (int k = 1; k < 8 && len > 0 && (size_t)len < sizeof(line); k++)
			len += snprintf(line + len, sizeof(line) - (size_t)len,
					",%d", cmds[i].order[k]);
		if (len > 0 && (size_t)len < sizeof(line))
			snprintf(line + len, sizeof(line) - (size_t)len,
				 " (OCW2 0x%02X; the old order cannot be read "
				 "back from an 8259)", cmds[i].value);
		say(c, line);
	}
	if (dry)
		return 0;
	rc = irqtune_pic_execute(&c->sys, cmds, n);
	if (rc < 0) {
		log_msg(&c->log, LOG_LEVEL_ERROR, "writing the 8259: %s",
			strerror(-rc));
		return EXIT_JOB;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "state", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 } };
	struct ctx c = {
		.conf_path = DEFAULT_CONF,
		.state_path = IRQTUNE_STATE_FILE,
		.log = { log_sink_stdio, stderr, LOG_LEVEL_WARNING, "irqtune" },
	};
	int o;
	while ((o = getopt_long(argc, argv, "+c:s:vqhV", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			c.conf_path = optarg;
			c.conf_explicit = true;
			break;
		case 's':
			c.state_path = optarg;
			break;
		case 'v':
			if (c.log.max < LOG_LEVEL_DEBUG)
				c.log.max++;
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("irqtune %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* Test-only: read /proc from a fixture directory (irqtune(8)). */
	const char *proc_root = getenv("IRQTUNE_PROCFS");
	if (irqtune_sys_real_init(&c.sys, &c.real,
				  proc_root && *proc_root ? proc_root : NULL) < 0) {
		fprintf(stderr, "irqtune: IRQTUNE_PROCFS: path too long\n");
		return EXIT_USAGE;
	}
	const char *cmd = argv[optind];
	int sub_argc = argc - optind;
	char **sub_argv = argv + optind;
	optind = 0; /* restart getopt for the command's own options */
	if (strcmp(cmd, "list") == 0)
		return cmd_list(&c, sub_argc, sub_argv);
	if (strcmp(cmd, "apply") == 0)
		return cmd_apply(&c, sub_argc, sub_argv);
	if (strcmp(cmd, "restore") == 0)
		return cmd_restore(&c, sub_argc, sub_argv);
	if (strcmp(cmd, "stat") == 0)
		return cmd_stat(&c, sub_argc, sub_argv);
	if (strcmp(cmd, "pic") == 0)
		return cmd_pic(&c, sub_argc, sub_argv);
	fprintf(stderr, "irqtune: unknown command '%s' (list, apply, restore, "
		"stat, pic; see --help)\n", cmd);
	return EXIT_USAGE;
}
