# Host-side helpers shared by the VM runners and smoke tests.
# Sourced, not executed: callers set `set -eu` themselves.
# shellcheck shell=sh disable=SC2034 # the variables are for the includers

# Exit codes, chosen to match automake's default test-driver so that a
# runner can also be used directly as a LOG_COMPILER.
VM_PASS=0
VM_FAIL=1
VM_SKIP=77
VM_ERROR=99

# pppd, ip and friends live in sbin, which a normal user's PATH may lack.
case ":$PATH:" in
*:/usr/sbin:*) ;;
*) PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin ;;
esac
export PATH

# ceiling SECONDS: a time limit scaled for a busy machine.
# shellcheck source=../ceiling.sh
. "${vmdir:-$here}/../ceiling.sh"

# Default kernel cache; the same default is used by fetch-kernels.sh and
# qemu-run.sh so that a bootstrap-time fetch is found at test time.
VM_CACHE=${IRNET_VM_CACHE:-/var/cache/irnet-tools/vm}

# The prefix for messages; each script sets VM_PROG to its own name.
VM_PROG=${VM_PROG:-vm}

vm_say() {
	printf '%s: %s\n' "$VM_PROG" "$*"
}

vm_warn() {
	printf '%s: %s\n' "$VM_PROG" "$*" >&2
}

# Usage: vm_usage [STATUS] -> the calling script's header comment as its
# help; on stdout for --help (status 0), else on stderr; then exits.
vm_usage() {
	if [ "${1:-$VM_ERROR}" = 0 ]; then
		sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	else
		sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	fi
	exit "${1:-$VM_ERROR}"
}

vm_die() {
	# Usage: vm_die CODE MESSAGE...
	_code=$1
	shift
	printf '%s: error: %s\n' "$VM_PROG" "$*" >&2
	exit "$_code"
}

# A missing prerequisite is a skip (77) for automake, unless the caller
# asked for strictness (CI sets IRNET_VM_REQUIRE=1 so nothing skips
# silently); then it is a hard error.
vm_skip() {
	if [ "${IRNET_VM_REQUIRE:-0}" = 1 ]; then
		vm_die "$VM_ERROR" "required but unavailable: $*"
	fi
	printf '%s: SKIP: %s\n' "$VM_PROG" "$*" >&2
	exit "$VM_SKIP"
}

vm_have() {
	command -v "$1" >/dev/null 2>&1
}

# Seconds since the epoch with milliseconds, for timings.
vm_now() {
	date +%s.%N | cut -c1-14
}

# Usage: vm_elapsed START  -> prints seconds with one decimal since START
vm_elapsed() {
	awk -v s="$1" -v e="$(vm_now)" 'BEGIN { printf "%.1f", e - s }'
}

# Absolute, symlink-free path of an existing file or directory.
vm_abspath() {
	readlink -f -- "$1"
}

# Kernel command lines and hostfs mount options are split on blanks and
# commas, so paths handed to a guest must not contain them.
vm_check_plain_path() {
	case $1 in
	*[[:space:],]*) vm_die "$VM_ERROR" "path must not contain blanks or commas: '$1'" ;;
	esac
}

# Usage: vm_result_dir RESDIR-or-empty  -> prints an absolute, empty-enough
# result directory, creating a fresh one under TMPDIR when none was given.
vm_result_dir() {
	if [ -n "$1" ]; then
		mkdir -p -- "$1"
		vm_abspath "$1"
	else
		mktemp -d "${TMPDIR:-/tmp}/irnet-vm.XXXXXX"
	fi
}

# Usage: vm_report RESDIR NAME...  -> prints one line per test from the
# NAME.rc files and, for failures, the NAME.log; returns the aggregate code.
vm_report() {
	_res=$1
	shift
	_pass=0 _fail=0 _skip=0
	for _name in "$@"; do
		_rc=$(cat "$_res/$_name.rc" 2>/dev/null || echo missing)
		case $_rc in
		0) _pass=$((_pass + 1)); vm_say "PASS: $_name" ;;
		77) _skip=$((_skip + 1)); vm_say "SKIP: $_name" ;;
		*)
			_fail=$((_fail + 1))
			vm_say "FAIL: $_name (exit status $_rc)"
			vm_show_log "$_res/$_name.log" "$_name"
			;;
		esac
	done
	vm_say "$_pass passed, $_fail failed, $_skip skipped"
	if [ "$_fail" -gt 0 ]; then
		return "$VM_FAIL"
	elif [ "$_pass" -eq 0 ] && [ "$_skip" -gt 0 ]; then
		return "$VM_SKIP"
	fi
	return "$VM_PASS"
}

# Usage: vm_show_log FILE TITLE [TAIL-LINES]
vm_show_log() {
	if [ -f "$1" ]; then
		printf -- '----- %s -----\n' "$2"
		if [ -n "${3:-}" ]; then
			tail -n "$3" -- "$1"
		else
			cat -- "$1"
		fi
		printf -- '----- end of %s -----\n' "$2"
	else
		printf -- '----- %s: no log (%s) -----\n' "$2" "$1"
	fi
}

# Usage: vm_test_names TEST.sh...  -> prints the result names, one a line.
# Names are basenames without .sh; two tests with the same name would
# overwrite each other's results, so that is refused.
vm_test_names() {
	_seen=' '
	for _t in "$@"; do
		_n=${_t##*/}
		_n=${_n%.sh}
		case $_seen in
		*" $_n "*) vm_die "$VM_ERROR" "two tests are named '$_n'" ;;
		esac
		case $_n in
		ALL | console | dmesg | qemu | *[!A-Za-z0-9_.-]*)
			vm_die "$VM_ERROR" "unusable test name '$_n' (from $_t)" ;;
		esac
		_seen="$_seen$_n "
		printf '%s\n' "$_n"
	done
}

# ---- helpers for the host-side smoke tests (exit 0 pass, 1 fail, 77 skip)

# Smoke tests must exit with exactly 0, 1 or 77 for automake; anything
# else (a runner's 99, an unexpected error) counts as a failure.
vm_smoke_exit() {
	case $1 in
	0 | 77) exit "$1" ;;
	*) exit 1 ;;
	esac
}

# Usage: vm_smoke_skip WHY -> like vm_skip but with smoke-test exit codes.
vm_smoke_skip() {
	if [ "${IRNET_VM_REQUIRE:-0}" = 1 ]; then
		printf '%s: FAIL: required but unavailable: %s\n' "$VM_PROG" "$*" >&2
		exit 1
	fi
	printf '%s: SKIP: %s\n' "$VM_PROG" "$*"
	exit 77
}

# Usage: vm_smoke_workdir -> prints a fresh work directory under TMPDIR.
vm_smoke_workdir() {
	mktemp -d "${TMPDIR:-/tmp}/$VM_PROG.XXXXXX"
}

# Usage: vm_smoke_finish RC WORKDIR T0 -> reports, cleans up on success
# (or skip) and exits with the automake code for the runner status RC.
vm_smoke_finish() {
	_took=$(vm_elapsed "$3")
	case $1 in
	0)
		rm -rf -- "$2"
		vm_say "PASS (${_took} s wall clock)"
		exit 0
		;;
	77)
		rm -rf -- "$2"
		vm_smoke_skip "the guest test skipped itself (see its log above; ${_took} s)"
		;;
	99) vm_say "FAIL: the VM did not report (crash or timeout); results kept in $2 (${_took} s)" ;;
	*) vm_say "FAIL (runner status $1); results kept in $2 (${_took} s)" ;;
	esac
	exit 1
}

# Usage: vm_uml_build_test GUEST SECONDS [NAME=VALUE]... -> the whole host
# side of a UML test of the build tree (abs_top_builddir): checks what
# every such test needs, boots the guest script GUEST with IRNET_BUILD
# set, and exits with the automake code.
vm_uml_build_test() {
	_guest=$1 _secs=$2
	shift 2
	_t0=$(vm_now)
	for _tool in linux.uml pppd ip busybox timeout; do
		vm_have "$_tool" || vm_smoke_skip "$_tool is not installed (or not executable by this user)"
	done
	for _ko in /usr/lib/uml/modules/*/kernel/drivers/net/ppp/ppp_async.ko; do
		[ -f "$_ko" ] || vm_smoke_skip "user-mode-linux has no ppp_async module"
	done
	[ -x "${abs_top_builddir:-}/irnet/tools/irdad" ] || vm_die "irdad is not built (abs_top_builddir)"
	_work=$(vm_smoke_workdir)
	_envs="-e IRNET_BUILD=$abs_top_builddir"
	for _e in "$@"; do _envs="$_envs -e $_e"; done
	_rc=0
	# shellcheck disable=SC2086
	"$vmdir/uml-run.sh" -t "$_secs" -r "$_work/res" $_envs "$_guest" || _rc=$?
	# The guest's own lines (its figures) go into the test's log on success too.
	[ "$_rc" != 0 ] || grep -v '^\(debug\|sent\|rcvd\) ' "$_work/res/$(basename "$_guest" .sh).log" || true
	vm_smoke_finish "$_rc" "$_work" "$_t0"
}
