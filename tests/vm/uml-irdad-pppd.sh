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

vm_uml_build_test "$vmdir/guest/irdad-pppd.sh" 240
