#!/bin/sh
# The programs on the USB dongle families beyond the MCS7780 of
# irdad-usb.sh (issue 24, point 3), each an emulated device (irusb-emu
# --model) whose infrared side is one of irwire's ptys, opened by the
# real libusb inside the unmodified programs:
#   - irda-class: a Bridge class device with the ACTiSYS ACT-IR2000U's ID
#     (the class descriptor, 1-byte headers, the speed bug and NO_WINDOW
#     quirks of that ID);
#   - stir4200: a SigmaTel STIr4200 (registers, 55 AA framing, the TX FIFO
#     the host polls, the raw receive stream);
#   - ksdazzle: a KingSun Dazzle (8-byte interrupt packets both ways, the
#     speed by a class request).
# For each:
#   - irdad --list-devices lists it with its family;
#   - irdiscover --listen on it is found and linked to by a serial
#     station at 115200, with the window the device allows (one frame for
#     the ACTiSYS ID, seven for the others);
#   - irdad on it announces the device's turnaround, negotiates 115200
#     with a serial irdad (the chip's speed change is what the emulated
#     transceiver follows) and calls its [ircomm] endpoint: 16 KiB each
#     way at once, intact; SIGTERM ends it with 0.
# --no-seccomp as in irdad-usb.sh: umockdev's preload forwards the node's
# ioctls over a socket.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/usb-emu-lib.sh"
printf '[ircomm phone]\nrole listen\npty %s\n' "$tmp/ircomm-b" >"$tmp/b.conf"
start_irdad beta "$b" -c "$tmp/b.conf" -v
pb=$irdad_pid
calls=0

# model  VID:PID  family  chip  window  turnaround
while read -r model id family chip window tat; do
	dongle=usb:$id
	chip=$(echo "$chip" | tr _ ' ')
	tat=$(echo "$tat" | tr _ ' ')
	"$emu" --model "$model" --port "$a" -- "$irdad" --list-devices >"$tmp/list.out" 2>"$tmp/list.err" ||
		fail "$model: irdad --list-devices: exit $?"
	grep -q "^usb:1-1 \+/dev/bus/usb/001/002  $id  $family ($chip), " "$tmp/list.out" ||
		fail "$model: --list-devices: $(cat "$tmp/list.out")"
	echo "ok: $model: irdad --list-devices: $(cat "$tmp/list.out")"

	# a serial station links to the USB one with what the device allows
	kill $pb
	wait $pb 2>/dev/null
	"$emu" --model "$model" --port "$a" -- "$irdiscover" --listen -D "$dongle" --nickname usbdongle \
		--no-seccomp --lock-dir "$tmp/lock" >"$tmp/listen.out" 2>"$tmp/listen.err" &
	pl=$!
	lpid="$lpid $pl"
	wait_for "$tmp/listen.out" '^listening on '
	"$irdiscover" -D "$b" --connect --no-ias --timeout "$(ceiling 10)" --lock-dir "$tmp/lock" \
		>"$tmp/connect.out" 2>"$tmp/connect.err" || fail "$model: irdiscover --connect: exit $?"
	grep -q ' usbdongle ' "$tmp/connect.out" || fail "$model: not found: $(cat "$tmp/connect.out")"
	grep -Eq "^link to 0x[0-9a-f]{8}: 115200 bps, data size [0-9]+, window $window, " \
		"$tmp/connect.out" || fail "$model: not 115200 with window $window: $(cat "$tmp/connect.out")"
	echo "ok: $model: a serial station links to it: $(grep '^link to' "$tmp/connect.out")"
	kill $pl
	wait $pl 2>/dev/null
	rm -f "$tmp/irdad-beta.err"
	start_irdad beta "$b" -c "$tmp/b.conf" -v
	pb=$irdad_pid

	rm -f "$tmp/ircomm-a"
	printf '[ircomm modem]\nrole call\npeer nickname "beta"\npty %s\n' "$tmp/ircomm-a" >"$tmp/a.conf"
	"$emu" --model "$model" --port "$a" -v -- "$irdad" -D "$dongle" --socket "$tmp/alpha.sock" \
		--lock-dir "$tmp/lock" --nickname alpha --log stderr --no-seccomp -c "$tmp/a.conf" -v \
		>"$tmp/irdad-alpha.out" 2>"$tmp/irdad-alpha.err" &
	pe=$!
	lpid="$lpid $pe"
	wait_for "$tmp/irdad-alpha.err" "serving $dongle"
	grep -q "$dongle: /dev/bus/usb/001/002 $id ($chip) in port 1-1" "$tmp/irdad-alpha.err" ||
		fail "$model: the dongle opened is not named"
	grep -q "$dongle: min turnaround $tat ($family)" "$tmp/irdad-alpha.err" ||
		fail "$model: the device's turnaround ($tat) is not the one used"
	"$PYTHON" "$top_srcdir/tests/irdad_ircomm_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" 16 \
		>"$tmp/data.out" 2>"$tmp/data.err" || fail "$model: data through IrCOMM"
	sed "s/^ok: /ok: $model: /" "$tmp/data.out"
	grep -q "^irusb-emu: $a: speed 115200$" "$tmp/irdad-alpha.err" ||
		fail "$model: the emulated transceiver never switched to 115200"
	echo "ok: $model: the link runs at 115200 through the chip's speed change"
	kill -TERM $pe
	wait $pe; rc=$?
	[ $rc -eq 0 ] || fail "$model: irdad exited $rc on SIGTERM"
	echo "ok: $model: SIGTERM: exit 0"
done <<'MODELS'
irda-class 09c4:0011 irda-class USB_IrDA_Bridge_class 1 1_ms
stir4200 066f:4200 stir4200 SigmaTel_STIr4200 7 1_ms
ksdazzle 07d0:4100 ksdazzle KingSun_Dazzle 7 1_ms
MODELS
