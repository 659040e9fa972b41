#!/bin/sh
# uml-run.sh - run guest test scripts inside user-mode Linux.
#
# Usage: uml-run.sh [-t SECONDS] [-r RESDIR] [-m MEM] [-k DIR]...
#                   [-e NAME=VALUE]... [-v] TEST.sh...
#
#   -t SECONDS     wall-clock limit for the whole VM on an idle machine
#                  (default 60), multiplied by IRNET_TEST_SLOWDOWN
#                  (tests/ceiling.sh), which the guest's tests get too
#   -r RESDIR      where results go (default: a new ${TMPDIR:-/tmp}/irnet-vm.*
#                  directory, removed again unless a test failed)
#   -m MEM         guest memory (default 256M)
#   -k DIR         keep DIR visible in the guest even if it lies below a
#                  directory the guest covers with tmpfs (/tmp, /run, ...);
#                  the repository and each test's directory are kept anyway
#   -e NAME=VALUE  environment for the tests (no blanks in VALUE)
#   -v             print the guest console at the end
#
# The guest sees the host root read-only, so tests run the freshly built
# files at their real absolute paths. Each test runs with /bin/sh in a
# fresh tmpfs directory that is also its cwd, TMPDIR and HOME, with
# VM_KIND=uml, VM_TEST_NAME and VM_RESDIR (a writable directory that is
# RESDIR on the host). RESDIR gets NAME.log, NAME.rc, ALL.rc, dmesg.txt
# and console.txt.
#
# Exit status (automake test-driver codes): 0 every test passed, 1 a test
# failed, 77 every test skipped or UML is missing, 99 the guest crashed
# or timed out before reporting (no ALL.rc), or bad usage.
set -eu

VM_PROG=uml-run
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$here/vm-common.sh"

UML=${IRNET_UML:-linux.uml}

# Usage: add_keep DIR -> appends an absolute directory to KEEP (colon list).
add_keep() {
	_d=$(vm_abspath "$1")
	vm_check_plain_path "$_d"
	case ":$KEEP:" in *":$_d:"*) return 0 ;; esac
	KEEP=${KEEP:+$KEEP:}$_d
}

# Usage: check_uml -> skips (77) unless UML and its PPP modules are here.
check_uml() {
	vm_have "$UML" || vm_skip "$UML not found (install user-mode-linux)"
	# The guest kernel's release names its module directory.
	_mods=$(find /usr/lib/uml/modules -maxdepth 2 -name modules.dep 2>/dev/null | head -n 1)
	[ -n "$_mods" ] || vm_skip "no /usr/lib/uml/modules/*/modules.dep (user-mode-linux incomplete)"
}

# Usage: explain_no_report RC RESDIR -> says why there is no ALL.rc.
explain_no_report() {
	case $1 in
	124 | 137) vm_warn "guest timed out after $TIMEOUT s (no ALL.rc in $2)" ;;
	*) vm_warn "guest crashed or stopped early: $UML exit status $1 (no ALL.rc in $2)" ;;
	esac
	vm_show_log "$2/console.txt" "guest console (last 40 lines)" 40 >&2
	for _n in $NAMES; do
		[ ! -f "$2/$_n.log" ] || vm_show_log "$2/$_n.log" "$_n (incomplete)" >&2
	done
}

main() {
	TIMEOUT=60 RESDIR='' MEM=256M KEEP='' ENVS='' VERBOSE=0
	while getopts t:r:m:k:e:vh _opt; do
		case $_opt in
		t) TIMEOUT=$OPTARG ;;
		r) RESDIR=$OPTARG ;;
		m) MEM=$OPTARG ;;
		k) add_keep "$OPTARG" ;;
		e)
			case $OPTARG in
			[A-Za-z_]*=*) ;;
			*) vm_die "$VM_ERROR" "-e wants NAME=VALUE, got '$OPTARG'" ;;
			esac
			vm_check_plain_path "$OPTARG"
			ENVS="$ENVS $OPTARG"
			;;
		v) VERBOSE=1 ;;
		h) vm_usage 0 ;;
		*) vm_usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -gt 0 ] || vm_usage
	case $TIMEOUT in '' | *[!0-9]*) vm_die "$VM_ERROR" "-t wants whole seconds" ;; esac
	TIMEOUT=$(ceiling "$TIMEOUT")

	check_uml
	# The repository (hence the build tree of an in-tree build) and an
	# out-of-tree build named by automake must stay visible.  They come
	# first: the guest mounts keep directories in this order and skips one
	# that already exists, so a test's own folder mounted first would hide
	# the rest of the repository around it (a clone in /tmp lost tests/).
	add_keep "$here/../.."
	for _d in "${abs_top_builddir:-}" "${abs_top_srcdir:-}"; do
		[ -z "$_d" ] || [ ! -d "$_d" ] || add_keep "$_d"
	done
	TESTS=''
	for _t in "$@"; do
		[ -f "$_t" ] || vm_die "$VM_ERROR" "no such test script: $_t"
		_abs=$(vm_abspath "$_t")
		vm_check_plain_path "$_abs"
		TESTS=${TESTS:+$TESTS:}$_abs
		add_keep "$(dirname "$_abs")"
	done
	NAMES=$(vm_test_names "$@")

	_own_res=0
	[ -n "$RESDIR" ] || _own_res=1
	RESDIR=$(vm_result_dir "$RESDIR")
	vm_check_plain_path "$RESDIR"
	# A stale ALL.rc from an earlier run must not pass for this one.
	for _n in $NAMES ALL; do
		rm -f "$RESDIR/$_n.rc" "$RESDIR/$_n.log"
	done

	# Leave the guest a few seconds after its deadline to write results.
	_deadline=$((TIMEOUT > 8 ? TIMEOUT - 4 : TIMEOUT / 2 + 1))
	# A known umid, so that the run-time directory UML leaves in ~/.uml
	# when the guest crashes can be removed.
	_umid=irnet-vm-$$
	_t0=$(vm_now)
	_rc=0
	# shellcheck disable=SC2086 # ENVS holds NAME=VALUE words
	timeout -k 5 "$TIMEOUT" "$UML" umid="$_umid" mem="$MEM" \
		root=/dev/root rootfstype=hostfs rootflags=/ ro \
		init="$here/uml-init.sh" con0=fd:0,fd:1 con=null quiet \
		IRNET_VM_TESTS="$TESTS" IRNET_VM_RESDIR="$RESDIR" \
		IRNET_VM_KEEP="$KEEP" IRNET_VM_DEADLINE="$_deadline" \
		IRNET_TEST_SLOWDOWN="${IRNET_TEST_SLOWDOWN:-1}" \
		IRNET_CEILING_SH="$(readlink -f "$here/../ceiling.sh")" $ENVS \
		</dev/null >"$RESDIR/console.txt" 2>&1 || _rc=$?
	_took=$(vm_elapsed "$_t0")
	rm -rf "${HOME:-/nonexistent}/.uml/$_umid"

	[ "$VERBOSE" = 0 ] || vm_show_log "$RESDIR/console.txt" "guest console"
	if [ ! -f "$RESDIR/ALL.rc" ]; then
		explain_no_report "$_rc" "$RESDIR"
		vm_say "results kept in $RESDIR (${_took} s)"
		return "$VM_ERROR"
	fi
	_rc=0
	# shellcheck disable=SC2086 # one word per test name
	vm_report "$RESDIR" $NAMES || _rc=$?
	[ "$_rc" -ne 0 ] || [ "$(cat "$RESDIR/ALL.rc")" = 0 ] || _rc=$VM_FAIL
	if [ "$_rc" -ne "$VM_FAIL" ] && [ "$_own_res" = 1 ]; then
		rm -rf "$RESDIR"
		vm_say "done in ${_took} s"
	else
		vm_say "results in $RESDIR (${_took} s)"
	fi
	return "$_rc"
}

main "$@"
