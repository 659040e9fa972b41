#!/bin/sh
# The programs on a USB dongle (issue 24, points 1 and 4): an emulated
# MosChip MCS7780 (irusb-emu: the device model behind umockdev's usbfs
# emulation, its infrared side on one of irwire's ptys) is opened by the
# real libusb inside the unmodified programs, by the names users type:
#   - irdad --list-devices lists it as usb:1-1 with its IDs and family;
#   - irdiscover -D usb, -D usb:9710:7780 and -D usb:1-1 find a serial
#     station on irwire's other side (discovery at 9600, the IAS query at
#     115200: both speed changes go through the chip); a name that
#     matches nothing and a malformed one exit 2 with a message naming it;
#   - irdad -D usb (dropping to nobody) calls a serial irdad's [ircomm]
#     endpoint: 64 KiB each way at once, intact;
#   - the dongle unplugged mid-link (SIGUSR1 to irusb-emu): irdad says so,
#     the link ends for b too, a's pty stays; plugged back (SIGUSR2): the
#     node root:plugdev 0660 as 60-irnet-usb.rules makes it, irdad (now
#     nobody, with the node's group kept) sees it arrive through libusb's
#     hotplug, reopens it, and the call comes up again with data through it;
#   - irdad started with no dongle (irusb-emu --unplugged) waits for it,
#     its ptys up, and serves once it is plugged in.
# The programs run with --no-seccomp: umockdev's preload forwards each
# ioctl on the emulated node to irusb-emu over a socket, calls the
# allow-list rightly refuses.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/usb-emu-lib.sh"

# the listing
"$emu" --port "$a" -- "$irdad" --list-devices >"$tmp/list.out" 2>"$tmp/list.err" ||
	fail "irdad --list-devices: exit $?"
grep -Eq '^usb:1-1 +/dev/bus/usb/001/002  9710:7780  mcs7780 \(MosChip MCS7780\), up to 4\.000 Mbit/s, (free|not openable by this user)$' \
	"$tmp/list.out" || fail "--list-devices: $(cat "$tmp/list.out")"
echo "ok: irdad --list-devices: $(cat "$tmp/list.out")"

# discovery and IAS through the dongle, by each kind of name
"$irdiscover" --listen -D "$b" --nickname beta --hints computer,ircomm --service IrNetv1 \
	--lock-dir "$tmp/lock" >"$tmp/listen.out" 2>"$tmp/listen.err" &
lpid=$!
wait_for "$tmp/listen.out" '^listening on '
for name in usb usb:9710:7780 usb:1-1; do
	"$emu" --port "$a" -- "$irdiscover" -D "$name" --no-seccomp -v --timeout "$(ceiling 10)" \
		>"$tmp/d.out" 2>"$tmp/d.err" || fail "irdiscover -D $name: exit $?"
	sed -n 1p "$tmp/d.out" |
		grep -Eq '^0x[0-9a-f]{8}  beta +charset=ascii  hints=Computer,IrCOMM \(8404\)$' ||
		fail "irdiscover -D $name: beta not listed"
	grep -q '^    service: IrNetv1 IrDA:TinyTP:LsapSel=' "$tmp/d.out" ||
		fail "irdiscover -D $name: no IAS answer (at 115200, through the chip's speed change)"
	grep -q "$name: /dev/bus/usb/001/002 9710:7780 (MosChip MCS7780) in port 1-1" "$tmp/d.err" ||
		fail "irdiscover -D $name: the dongle opened is not named"
	echo "ok: irdiscover -D $name finds beta and its IAS through the emulated MCS7780"
done
for name in usb:1-2 usb:9710:1234 usb:1-x; do
	"$emu" --port "$a" -- "$irdiscover" -D "$name" --no-seccomp --timeout 1 \
		>"$tmp/bad.out" 2>"$tmp/bad.err"; rc=$?
	[ $rc -eq 2 ] || fail "irdiscover -D $name: exit $rc, expected 2"
	grep -q "^irdiscover: $name: " "$tmp/bad.err" || fail "-D $name: $(cat "$tmp/bad.err")"
	echo "ok: -D $name: exit 2, $(head -1 "$tmp/bad.err")"
done
kill $lpid
wait $lpid 2>/dev/null
lpid=

# irdad on the dongle calls a serial irdad's [ircomm] endpoint
printf '[ircomm modem]\nrole call\npeer nickname "beta"\npty %s\n' "$tmp/ircomm-a" >"$tmp/a.conf"
printf '[ircomm phone]\nrole listen\npty %s\n' "$tmp/ircomm-b" >"$tmp/b.conf"
start_irdad beta "$b" -c "$tmp/b.conf" -v
pb=$irdad_pid
"$emu" --port "$a" --node-group plugdev --node-mode 0660 -v -- "$irdad" -D usb --socket "$tmp/alpha.sock" --lock-dir "$tmp/lock" \
	--nickname alpha --log stderr --no-seccomp -c "$tmp/a.conf" -v \
	>"$tmp/irdad-alpha.out" 2>"$tmp/irdad-alpha.err" &
pe=$!
lpid="$lpid $pe"
wait_for "$tmp/irdad-alpha.err" 'serving usb'
pa=$(pgrep -P $pe -x irdad) || fail "no irdad under irusb-emu"
if [ "$(id -u)" = 0 ]; then
	[ "$(awk '/^Uid:/ { print $3 }' /proc/$pa/status)" = "$(id -u nobody)" ] ||
		fail "irdad on USB did not drop to nobody"
	grep -Eq "^Groups:[[:space:]]*$(getent group plugdev | cut -d: -f3)[[:space:]]*\$" /proc/$pa/status ||
		fail "irdad on USB did not keep the node's group: $(grep ^Groups: /proc/$pa/status)"
	echo "ok: irdad on the USB dongle runs as nobody once it is open, keeping the node's group (plugdev)"
fi
"$PYTHON" "$top_srcdir/tests/irdad_ircomm_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" 64 \
	>"$tmp/data.out" 2>"$tmp/data.err" || fail "data through IrCOMM over the USB dongle"
sed 's/^ok: /ok: USB: /' "$tmp/data.out"

# unplugged mid-link, then back
# wait_calls N: b's endpoint has been called N times (up to 30 s)
wait_calls() {
	i=0
	until [ "$(grep -c 'ircomm phone: connected' "$tmp/irdad-beta.err")" -ge "$1" ]; do
		i=$((i + 1)); [ $i -gt "$(ceiling 600)" ] && fail "the call did not come up ($1)"
		sleep 0.05
	done
}
exec 3<>"$tmp/ircomm-a"   # a program holding a's pty open: a calls again
wait_calls 2
kill -USR1 $pe
wait_for "$tmp/irdad-alpha.err" 'warning: irdad: usb went away (usb: the dongle went away (unplugged)' 30
echo "ok: unplugged: $(grep -m1 'usb went away' "$tmp/irdad-alpha.err")"
[ -L "$tmp/ircomm-a" ] || fail "a's pty link went with the dongle"
kill -0 $pa || fail "irdad ended with its dongle gone"
wait_for "$tmp/irdad-beta.err" 'ircomm phone: connection lost' 30
echo "ok: b saw the link end"
kill -USR2 $pe
wait_for "$tmp/irdad-alpha.err" 'warning: irdad: usb is back (/dev/bus/usb/001/002 in port 1-1)' 30
echo "ok: plugged back: $(grep -m1 'usb is back' "$tmp/irdad-alpha.err")"
wait_calls 3
echo "ok: a's held pty calls b again through the replugged dongle"
exec 3>&-
"$PYTHON" "$top_srcdir/tests/irdad_ircomm_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" 16 \
	>"$tmp/data2.out" 2>"$tmp/data2.err" || fail "data through IrCOMM after the replug"
sed 's/^ok: /ok: after the replug: /' "$tmp/data2.out"
kill -TERM $pe
wait $pe; rc=$?
[ $rc -eq 0 ] || fail "irdad on USB exited $rc on SIGTERM"
grep -q "usb went away 1 times and came back 1 times" "$tmp/irdad-alpha.err" ||
	fail "no summary of the unplug at exit"
echo "ok: SIGTERM: irdad on USB exits 0"

# irdad started before the dongle is plugged in: it says so, serves its
# socket and ptys, and brings the call up once the dongle arrives
rm -f "$tmp/ircomm-a"
"$emu" --unplugged --port "$a" --node-group plugdev --node-mode 0660 -v -- "$irdad" -D usb \
	--socket "$tmp/alpha2.sock" --lock-dir "$tmp/lock" --nickname alpha --log stderr --no-seccomp \
	-c "$tmp/a.conf" -v >"$tmp/irdad-late.out" 2>"$tmp/irdad-late.err" &
pe=$!
lpid="$lpid $pe"
wait_for "$tmp/irdad-late.err" 'serving usb'
grep -q 'warning: irdad: usb: no such dongle present yet: waiting for it to be plugged in' \
	"$tmp/irdad-late.err" || fail "irdad without its dongle did not say it waits"
[ -L "$tmp/ircomm-a" ] || fail "irdad waiting for its dongle made no pty"
echo "ok: started before its dongle: $(grep -m1 'no such dongle present yet' "$tmp/irdad-late.err")"
kill -USR2 $pe
wait_for "$tmp/irdad-late.err" 'warning: irdad: usb is back (/dev/bus/usb/001/002 in port 1-1)' 30
"$PYTHON" "$top_srcdir/tests/irdad_ircomm_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" 16 \
	>"$tmp/data3.out" 2>"$tmp/data3.err" || fail "data through IrCOMM once the dongle came"
sed 's/^ok: /ok: the dongle plugged in after the start: /' "$tmp/data3.out"
kill -TERM $pe
wait $pe; rc=$?
[ $rc -eq 0 ] || fail "irdad that waited for its dongle exited $rc on SIGTERM"
echo "ok: SIGTERM: exit 0"
