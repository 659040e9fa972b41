#!/bin/sh
# uml-irdad-pppd.sh - host side: real pppd 2.4.9 at both ends of an
# emulated IrDA link, each running `irdad --stdio` as its pty program,
# inside user-mode Linux (guest/irdad-pppd.sh): IPCP up, ping across.
# Exit: 0 pass, 1 fail, 77 skip (automake test-driver).
set -eu

VM_PROG=uml-irdad-pppd
vmdir=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$vmdir/vm-common.sh"

check_prereqs() {
	for _tool in linux.uml pppd ip busybox timeout; do
		vm_have "$_tool" || vm_smoke_skip "$_tool is not installed (or not executable by this user)"
	done
	set -- /usr/lib/uml/modules/*/kernel/drivers/net/ppp/ppp_async.ko
	[ -f "$1" ] || vm_smoke_skip "user-mode-linux has no ppp_async module"
	[ -x "${abs_top_builddir:-}/irnet/tools/irdad" ] || vm_die "irdad is not built (abs_top_builddir)"
}

main() {
	t0=$(vm_now)
	check_prereqs
	work=$(vm_smoke_workdir)
	rc=0
	"$vmdir/uml-run.sh" -t 60 -r "$work/res" -e "IRNET_BUILD=$abs_top_builddir" \
		"$vmdir/guest/irdad-pppd.sh" || rc=$?
	vm_smoke_finish "$rc" "$work" "$t0"
}

main "$@"
