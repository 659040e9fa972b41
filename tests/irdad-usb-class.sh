#!/bin/sh
# The programs on a USB IrDA Bridge class dongle (issue 24, point 3): an
# emulated class device with the ACTiSYS ACT-IR2000U's ID (irusb-emu
# --model irda-class: the class descriptor, the 1-byte headers, the
# speed bug and NO_WINDOW quirks of that ID), its infrared side on one of
# irwire's ptys, opened by the real libusb inside the unmodified programs:
#   - irdad --list-devices lists it with the class family;
#   - irdiscover --listen on it is found and linked to by a serial
#     station, which may send one frame per window (the ID's NO_WINDOW);
#   - irdad -D usb:09c4:0011 announces what the device's descriptor and
#     quirks allow (a window of one frame, the device's 1 ms turnaround),
#     negotiates 115200 with a serial irdad (the switch is a header-only
#     frame the emulated transceiver follows) and calls its [ircomm]
#     endpoint: 16 KiB each way at once, intact.
# --no-seccomp as in irdad-usb.sh: umockdev's preload forwards the node's
# ioctls over a socket.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
emu="$abs_top_builddir/irnet/tools/irusb-emu"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$emu" ] || skip "irusb-emu not built (configure found no umockdev)"
command -v umockdev-wrapper >/dev/null || skip "umockdev not installed"

start_wire
mkdir "$tmp/lock" && chmod 1777 "$tmp/lock"

"$emu" --model irda-class --port "$a" -- "$irdad" --list-devices >"$tmp/list.out" 2>"$tmp/list.err" ||
	fail "irdad --list-devices: exit $?"
grep -Eq '^usb:1-1 +/dev/bus/usb/001/002  09c4:0011  irda-class \(USB IrDA Bridge class\), ' \
	"$tmp/list.out" || fail "--list-devices: $(cat "$tmp/list.out")"
echo "ok: irdad --list-devices: $(cat "$tmp/list.out")"

# the device's QoS in what the USB station announces: a serial station
# linking to it may send one frame per window (NO_WINDOW)
"$emu" --model irda-class --port "$a" -- "$irdiscover" --listen -D usb:09c4:0011 --nickname usbclass \
	--no-seccomp --lock-dir "$tmp/lock" >"$tmp/listen.out" 2>"$tmp/listen.err" &
pl=$!
lpid="$lpid $pl"
wait_for "$tmp/listen.out" '^listening on '
"$irdiscover" -D "$b" --connect --no-ias --timeout "$(ceiling 10)" --lock-dir "$tmp/lock" \
	>"$tmp/connect.out" 2>"$tmp/connect.err" || fail "irdiscover --connect to the class dongle: exit $?"
grep -q ' usbclass ' "$tmp/connect.out" || fail "the USB station was not found: $(cat "$tmp/connect.out")"
grep -Eq '^link to 0x[0-9a-f]{8}: 115200 bps, data size [0-9]+, window 1, ' "$tmp/connect.out" ||
	fail "the link is not at 115200 with a window of 1: $(cat "$tmp/connect.out")"
echo "ok: a serial station links to the class dongle: $(grep '^link to' "$tmp/connect.out")"
kill $pl
wait $pl 2>/dev/null
lpid=${lpid% *}

printf '[ircomm modem]\nrole call\npeer nickname "beta"\npty %s\n' "$tmp/ircomm-a" >"$tmp/a.conf"
printf '[ircomm phone]\nrole listen\npty %s\n' "$tmp/ircomm-b" >"$tmp/b.conf"
start_irdad beta "$b" -c "$tmp/b.conf" -v
"$emu" --model irda-class --port "$a" -v -- "$irdad" -D usb:09c4:0011 --socket "$tmp/alpha.sock" \
	--lock-dir "$tmp/lock" --nickname alpha --log stderr --no-seccomp -c "$tmp/a.conf" -v \
	>"$tmp/irdad-alpha.out" 2>"$tmp/irdad-alpha.err" &
pe=$!
lpid="$lpid $pe"
wait_for "$tmp/irdad-alpha.err" 'serving usb:09c4:0011'
grep -q 'usb:09c4:0011: /dev/bus/usb/001/002 09c4:0011 (USB IrDA Bridge class) in port 1-1' \
	"$tmp/irdad-alpha.err" || fail "the class dongle opened is not named"
grep -q 'usb:09c4:0011: min turnaround 1 ms (irda-class)' "$tmp/irdad-alpha.err" ||
	fail "the device's turnaround (1 ms, from its descriptor) is not the one used"
"$PYTHON" "$top_srcdir/tests/irdad_ircomm_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" 16 \
	>"$tmp/data.out" 2>"$tmp/data.err" || fail "data through IrCOMM over the class dongle"
sed 's/^ok: /ok: Bridge class: /' "$tmp/data.out"
grep -q "^irusb-emu: $a: speed 115200$" "$tmp/irdad-alpha.err" ||
	fail "the emulated transceiver never switched to 115200"
echo "ok: the link runs at 115200 through the class device's header-only speed change"
kill -TERM $pe
wait $pe; rc=$?
[ $rc -eq 0 ] || fail "irdad on the class dongle exited $rc on SIGTERM"
echo "ok: SIGTERM: exit 0"
