#!/bin/sh
# smoke-qemu-threadirqs.sh - host-side smoke test: a QEMU (TCG) guest
# booted with threadirqs has the irq/4-ttyS0 thread, IRQ 4 on ttyS0, and
# chrt can make that thread SCHED_FIFO 90 (guest/threadirqs.sh).
# Fetches the kernel first if it is not cached yet.
# Exit: 0 pass, 1 fail, 77 skip (automake test-driver).
set -eu

VM_PROG=smoke-qemu-threadirqs

# The runners and vm-common.sh sit next to this script.
vmdir=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$vmdir/vm-common.sh"

# Usage: check_prereqs -> skips, saying why, when the host lacks a piece.
check_prereqs() {
	for _tool in qemu-system-x86_64 busybox cpio chrt timeout; do
		vm_have "$_tool" || vm_smoke_skip "$_tool is not installed (or not executable by this user)"
	done
}

# Usage: ensure_kernel -> the generic kernel is cached, fetching it if not.
ensure_kernel() {
	"$vmdir/fetch-kernels.sh" --print-dir generic >/dev/null 2>&1 && return 0
	vm_say "no cached kernel yet; running fetch-kernels.sh"
	"$vmdir/fetch-kernels.sh" ||
		vm_smoke_skip "could not fetch a Debian 6.1 kernel (see the message above)"
}

main() {
	t0=$(vm_now)
	check_prereqs
	ensure_kernel
	work=$(vm_smoke_workdir)
	rc=0
	"$vmdir/qemu-run.sh" --kernel generic -t 120 -r "$work/res" \
		"$vmdir/guest/threadirqs.sh" || rc=$?
	vm_smoke_finish "$rc" "$work" "$t0"
}

main "$@"
