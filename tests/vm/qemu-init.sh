#!/bin/sh
# qemu-init.sh - PID 1 of the QEMU guest built by qemu-run.sh (/init in
# the initramfs). Reads /etc/irnet-vm/env (written by the host), runs the
# tests, copies each log to the serial console between marker lines the
# host splits on, and reports the overall status through the
# isa-debug-exit port 0xf4, so QEMU exits with (status << 1) | 1.
# Not `set -e`: PID 1 must get to the report whatever happens.
set -u

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# The initramfs has no /dev/console node (building one needs root), so the
# kernel started us without stdio: take the console from devtmpfs.
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1

# shellcheck source=SCRIPTDIR/guest-lib.sh
. /lib/irnet-vm/guest-lib.sh
vmg_require_pid1

RES=/run/irnet-vm/res
# Marker prefix; the host runner looks for lines starting with it.
MARK='@@irnet-vm@@'

setup() {
	vmg_mount_basics
	mount -t tmpfs -o mode=755 tmpfs /run
	# Unpacking the per-run archive may have reset these modes.
	chmod 755 /
	chmod 1777 /tmp /var/tmp
	vmg_ppp_etc
	mkdir -p "$RES"
	ip link set lo up
	vmg_load_modules "/lib/modules/$(uname -r)" all
}

# Usage: emit_log NAME FILE -> FILE on the console between markers.
emit_log() {
	echo "$MARK begin $1"
	if [ -f "$2" ]; then
		cat "$2"
		# The end marker must start a line of its own.
		[ -z "$(tail -c 1 "$2")" ] || echo
	fi
	echo "$MARK end $1"
}

# Usage: report STATUS -> writes STATUS to port 0xf4; QEMU exits at once.
report() {
	# shellcheck disable=SC2059 # the format is the octal escape itself
	printf "\\$(printf %03o "$1")" |
		dd of=/dev/port bs=1 seek=244 count=1 conv=notrunc 2>/dev/null
}

main() {
	setup
	# shellcheck source=/dev/null
	. /etc/irnet-vm/env
	dmesg -n 1
	_all=0
	# shellcheck disable=SC2086 # the list of test paths
	vmg_run_tests "$RES" "$IRNET_VM_DEADLINE" qemu $IRNET_VM_TESTS || _all=$?
	for _t in $IRNET_VM_TESTS; do
		_n=${_t##*/}
		_n=${_n%.sh}
		emit_log "$_n" "$RES/$_n.log"
		echo "$MARK rc $_n $(cat "$RES/$_n.rc")"
	done
	emit_log dmesg "$RES/dmesg.txt"
	echo "$MARK all $_all"
	report "$_all"
}

# In a subshell: a shell error (set -u, a bad expansion) ends the
# subshell, not PID 1, and the host then reports "stopped without
# reporting" instead of seeing a kernel panic.
(main) || vmg_say "init failed; powering off without a report"
vmg_poweroff
