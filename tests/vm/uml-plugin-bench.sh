#!/bin/sh
# uml-plugin-bench.sh - `make bench`: PPP over irnet.so against PPP on the
# raw emulated line, side by side in one user-mode Linux boot
# (guest/plugin-bench.sh prints the figures).
set -eu

VM_PROG=uml-plugin-bench
vmdir=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$vmdir/vm-common.sh"

command -v iperf3 >/dev/null || vm_smoke_skip "iperf3 is not installed"
vm_uml_build_test "$vmdir/guest/plugin-bench.sh" 300
