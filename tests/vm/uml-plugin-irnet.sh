#!/bin/sh
# uml-plugin-irnet.sh - host side: pppd 2.4.9 with irnet.so at both ends
# of an emulated IrDA link in user-mode Linux (guest/plugin-irnet.sh):
# errors and exit statuses, IrNET with ping and 1 MiB over TCP, a link
# break with and without persist, a USB dongle (irnet-device usb).
# Exit: 0 pass, 1 fail, 77 skip (automake test-driver).
set -eu

VM_PROG=uml-plugin-irnet
vmdir=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$vmdir/vm-common.sh"

[ -f "${abs_top_builddir:-}/pppd-plugin/.libs/irnet.so" ] || vm_die "irnet.so is not built"
vm_uml_build_test "$vmdir/guest/plugin-irnet.sh" 600
