#!/bin/sh
# 60-irnet-usb.rules under the real udev (issue 24, point 4): udevadm
# test, with each emulated dongle in a umockdev test bed's sysfs, runs the
# installed rules with ours among them (in a private mount namespace, on
# a tmpfs over /run, so the machine's udev state is not touched):
#   - every IrDA dongle ID of the families (usb-irda-digest 1.1) is
#     marked IRNET_IRDA_USB=1, the flag the rule's GROUP/MODE line and
#     the unit's start hang on; a USB hub and a USB-serial adapter are not;
#   - with IRNET_IRDAD=1 the device is tagged for systemd and wants
#     irdad-usb@PORT.service, PORT the kernel's name of the port (1-1);
#   - a remove event is left alone.
# udevadm test does not print GROUP and MODE, and applies nothing.
. "${top_srcdir:-.}/tests/lib.sh"
rule="$top_srcdir/irnet/daemon/system/60-irnet-usb.rules"
fail() {
	echo "FAIL: $*"
	exit 1
}
[ "$(id -u)" = 0 ] || skip "needs root (a mount namespace with a tmpfs over /run)"
command -v udevadm >/dev/null || skip "udevadm not installed (Debian package udev)"
command -v umockdev-run >/dev/null || skip "umockdev-run not installed"
command -v unshare >/dev/null || skip "unshare not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_udev VID PID [ACTION [EXTRA-ENV]]: udevadm test's properties of a
# device with that ID in port 1-1, in $tmp/out
run_udev() {
	{
		printf 'P: /devices/pci0000:00/usb1/1-1\nN: bus/usb/001/002\n'
		printf 'E: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\nE: BUSNUM=001\nE: DEVNUM=002\n'
		printf 'E: DEVNAME=/dev/bus/usb/001/002\nE: PRODUCT=%s/%s/100\n' "$1" "$2"
		[ -z "${4:-}" ] || printf 'E: %s\n' "$4"
		printf 'A: idVendor=%s\nA: idProduct=%s\nA: busnum=1\nA: devnum=2\n' "$1" "$2"
	} >"$tmp/dev.umockdev"
	unshare -m sh -c 'mount -t tmpfs none /run && mkdir -p /run/udev/rules.d &&
		cp "$1" /run/udev/rules.d/ &&
		umockdev-run -d "$2" -- udevadm test --action="$3" /sys/devices/pci0000:00/usb1/1-1' \
		sh "$rule" "$tmp/dev.umockdev" "${3:-add}" >"$tmp/out" 2>&1 ||
		fail "udevadm test of $1:$2: $(tail -3 "$tmp/out")"
	grep -q '60-irnet-usb.rules' "$tmp/out" || fail "udevadm test did not read 60-irnet-usb.rules"
}

for id in 9710:7780 066f:4200 066f:4210 066f:4220 066f:4116 09c4:0011 4428:0012 050f:0180 \
	08e9:0100 07c0:4200 07d0:4959 07d0:4100; do
	run_udev "${id%:*}" "${id#*:}"
	grep -qx 'IRNET_IRDA_USB=1' "$tmp/out" || fail "$id is not marked as an IrDA dongle"
	! grep -q '^SYSTEMD_WANTS=' "$tmp/out" || fail "$id wants a unit without IRNET_IRDAD=1"
done
echo "ok: the 12 dongle IDs are marked IRNET_IRDA_USB=1 (so GROUP plugdev, MODE 0660)"
for id in 1d6b:0002 0403:6001; do
	run_udev "${id%:*}" "${id#*:}"
	! grep -q '^IRNET_IRDA_USB=' "$tmp/out" || fail "$id (not IrDA) is marked as an IrDA dongle"
done
echo "ok: a USB hub and an FTDI USB-serial adapter are not"
run_udev 9710 7780 add IRNET_IRDAD=1
grep -qx 'SYSTEMD_WANTS=irdad-usb@1-1.service' "$tmp/out" ||
	fail "IRNET_IRDAD=1 does not want irdad-usb@1-1.service: $(grep SYSTEMD "$tmp/out")"
grep -q '^TAGS=.*:systemd:' "$tmp/out" || fail "IRNET_IRDAD=1 does not tag the device for systemd"
echo "ok: with IRNET_IRDAD=1 the dongle in port 1-1 wants irdad-usb@1-1.service"
run_udev 9710 7780 remove IRNET_IRDAD=1
! grep -q '^IRNET_IRDA_USB=\|^SYSTEMD_WANTS=irdad' "$tmp/out" || fail "a remove event was acted on"
echo "ok: remove events are left alone"
echo PASS
