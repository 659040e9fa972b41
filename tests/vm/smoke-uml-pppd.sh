#!/bin/sh
# smoke-uml-pppd.sh - host-side smoke test: two real pppd 2.4.9 talk
# over a pty pair inside user-mode Linux (guest/pppd-pair.sh) and ping.
# Exit: 0 pass, 1 fail, 77 skip (automake test-driver). Needs no network.
set -eu

VM_PROG=smoke-uml-pppd

# Usage: find_vm_dir -> the tests/vm directory: next to this script, or
# below automake's $srcdir when the script was started some other way.
find_vm_dir() {
	for _d in "$(dirname "$0")" "${srcdir:-.}/tests/vm" "${srcdir:-.}/vm" "${srcdir:-.}"; do
		if [ -f "$_d/uml-run.sh" ] && [ -f "$_d/vm-common.sh" ]; then
			(cd "$_d" && pwd -P)
			return 0
		fi
	done
	echo "$VM_PROG: FAIL: cannot find tests/vm (set srcdir)" >&2
	exit 1
}

vmdir=$(find_vm_dir)
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$vmdir/vm-common.sh"

# Usage: check_prereqs -> skips, saying why, when the host lacks a piece.
check_prereqs() {
	for _tool in linux.uml pppd socat ip busybox timeout; do
		vm_have "$_tool" || vm_smoke_skip "$_tool is not installed (or not executable by this user)"
	done
	set -- /usr/lib/uml/modules/*/kernel/drivers/net/ppp/ppp_async.ko
	[ -f "$1" ] || vm_smoke_skip "user-mode-linux has no ppp_async module"
}

main() {
	t0=$(vm_now)
	check_prereqs
	work=$(vm_smoke_workdir)
	rc=0
	"$vmdir/uml-run.sh" -t 25 -r "$work/res" "$vmdir/guest/pppd-pair.sh" || rc=$?
	vm_smoke_finish "$rc" "$work" "$t0"
}

main "$@"
