#!/bin/sh
# smoke-uml-pppd.sh - host-side smoke test: two real pppd 2.4.9 talk
# over a pty pair inside user-mode Linux (guest/pppd-pair.sh) and ping.
# Exit: 0 pass, 1 fail, 77 skip (automake test-driver). Needs no network.
set -eu

VM_PROG=smoke-uml-pppd

# The runners and vm-common.sh sit next to this script.
vmdir=$(cd "$(dirname "$0")" && pwd -P)
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
	"$vmdir/uml-run.sh" -t 120 -r "$work/res" "$vmdir/guest/pppd-pair.sh" || rc=$?
	vm_smoke_finish "$rc" "$work" "$t0"
}

main "$@"
