#!/bin/sh
# irusb-emu: a libusb program drives the emulated MCS7780 (umockdev, the
# device model in irusb-emu's process, the program in another one under
# the preload) whose infrared side is irwire's side a; on side b a serial
# station (irdiscover --listen, nickname beta) answers discovery.  The
# probe (tests/usb_emu_probe.c, through usb_host) sends one XID command
# and must get beta's XID response back through the chip model.
#
# Each client is one entry of run_client below; add one with its own
# check (irdiscover -D usb... once it takes USB devices).
. "${top_srcdir:-.}/tests/lib.sh"

emu="$abs_top_builddir/irnet/tools/irusb-emu"
probe="$abs_top_builddir/tests/usb_emu_probe"
[ -x "$emu" ] || skip "irusb-emu not built (configure found no umockdev)"
command -v umockdev-wrapper >/dev/null 2>&1 || skip "umockdev-wrapper not installed"
preload_found=
for d in /usr/lib/*/ /usr/lib/ /usr/local/lib/; do
	[ -e "$d/libumockdev-preload.so.0" ] && preload_found=yes
done
[ -n "$preload_found" ] || skip "libumockdev-preload.so.0 not found"
. "${top_srcdir:-.}/tests/station-lib.sh"

# A command under an ASan build gets the preload before the runtime.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

start_wire
mkdir "$tmp/lock"
"$irdiscover" --listen -D "$b" --nickname beta --lock-dir "$tmp/lock" \
	>"$tmp/listen.out" 2>"$tmp/listen.err" &
lpid=$!
wait_for "$tmp/listen.out" '^listening on '

# run_client NAME COMMAND...: COMMAND under irusb-emu on side a, with
# the dongle $model (default mcs7780); its output in $tmp/NAME.out,
# irusb-emu's log in $tmp/NAME-emu.err.
model=mcs7780
run_client() {
	name=$1
	shift
	"$emu" --port "$a" --model "$model" -v -- "$@" >"$tmp/$name.out" 2>"$tmp/$name-emu.err"
}

# 1. The probe: opened, one XID out, beta's response back.
run_client probe "$probe" --timeout "$(ceiling 10)"; rc=$?
[ $rc -eq 0 ] || fail "probe under irusb-emu: exit $rc"
grep -q '^opened$' "$tmp/probe.out" || fail "probe: the emulated dongle never opened"
grep -Eq '^xid response from 0x[0-9a-f]{8} nickname beta: fe bf 01 ' "$tmp/probe.out" ||
	fail "probe: no XID response naming beta"
grep -q 'frame of 14 bytes to ' "$tmp/probe-emu.err" || fail "irusb-emu: the XID did not go out"
grep -q 'frame of [0-9]* bytes from ' "$tmp/probe-emu.err" || fail "irusb-emu: no frame came in"
sed -n 's/^\(xid response from .* nickname beta\):.*/probe: \1/p' "$tmp/probe.out"

# 2. The chip set to 115200 after the answer: the next XID goes out on
# the port at 115200, the terminal switched first.
run_client speed "$probe" --timeout "$(ceiling 10)" --then-speed 115200; rc=$?
[ $rc -eq 0 ] || fail "probe --then-speed 115200: exit $rc"
grep -q '^sent at 115200$' "$tmp/speed.out" || fail "probe: no frame sent at 115200"
grep -q "^irusb-emu: $a: speed 115200$" "$tmp/speed-emu.err" || fail "irusb-emu: no switch to 115200"
grep -q "^irusb-emu: frame of 14 bytes to $a at 115200$" "$tmp/speed-emu.err" ||
	fail "irusb-emu: the XID did not go out at 115200"
echo "speed: the XID after the switch went out at 115200"

# 3. Unplugged (SIGUSR1) under a probe, which sees the device gone;
# plugged back (SIGUSR2, a fresh chip) for a second probe, answered too.
"$emu" --port "$a" -v -- sh -c '"$1" --timeout "$2" --wait-gone && "$1" --timeout "$2" --retry-open' \
	sh "$probe" "$(ceiling 10)" >"$tmp/plug.out" 2>"$tmp/plug-emu.err" &
epid=$!
lpid="$lpid $epid"
wait_for "$tmp/plug.out" '^xid response from .* nickname beta'
kill -USR1 "$epid"
wait_for "$tmp/plug.out" '^gone$'
kill -USR2 "$epid"
wait "$epid"; rc=$?
lpid=${lpid% *}
[ $rc -eq 0 ] || fail "unplug and replug: exit $rc"
[ "$(grep -c '^xid response from .* nickname beta' "$tmp/plug.out")" -eq 2 ] ||
	fail "replugged: the second probe got no answer"
grep -q '^irusb-emu: unplugged /dev/bus/usb/001/002$' "$tmp/plug-emu.err" || fail "no unplug logged"
grep -q '^irusb-emu: plugged /dev/bus/usb/001/002 back in$' "$tmp/plug-emu.err" ||
	fail "no replug logged"
echo "unplug and replug: gone, then answered again"

# 4. A USB IrDA Bridge class device (the ACTiSYS ID, which has the speed
# bug) and a class device by interface class alone: the class core reads
# its descriptor, the XID is answered, and the switch to 115200 is a
# header-only frame the port follows.
for model in irda-class irda-class:1209:7e57; do
	run_client class "$probe" --timeout "$(ceiling 10)" --then-speed 115200; rc=$?
	[ $rc -eq 0 ] || fail "--model $model: probe exit $rc"
	grep -Eq '^xid response from 0x[0-9a-f]{8} nickname beta: ' "$tmp/class.out" ||
		fail "--model $model: no XID response naming beta"
	grep -q '^family irda-class$' "$tmp/class.out" || fail "--model $model: not driven by the class core"
	grep -q "^irusb-emu: frame of 14 bytes to $a at 115200$" "$tmp/class-emu.err" ||
		fail "--model $model: the XID after the switch did not go out at 115200"
	echo "$model: answered through the Bridge class core, then at 115200"
done
model=mcs7780
"$emu" --port "$a" --model irda-class:12:34 -- true 2>"$tmp/model.err"; rc=$?
[ $rc -eq 2 ] || fail "a bad --model: exit $rc, not 2"
grep -q '^irusb-emu: --model irda-class:12:34: ' "$tmp/model.err" || fail "a bad --model: not named"

# 5. irusb-emu's own exit status and messages.
"$emu" --port "$a" -- sh -c 'exit 7' 2>"$tmp/st.err"; rc=$?
[ $rc -eq 7 ] || fail "exit status of the command not passed on: $rc"
"$emu" --port "$a" -- sh -c 'kill -TERM $$' 2>>"$tmp/st.err"; rc=$?
[ $rc -eq 143 ] || fail "command killed by SIGTERM: exit $rc, not 143"
"$emu" --port "$a" -- sh -c 'test -n "$UMOCKDEV_DIR" && case "$LD_PRELOAD" in *libumockdev-preload.so.0) exit 0;; esac; exit 1' \
	2>>"$tmp/st.err" || fail "the command has no umockdev environment"
"$emu" --port "$tmp/no-such-pty" -- true 2>"$tmp/nopty.err"; rc=$?
[ $rc -eq 1 ] || fail "a missing port: exit $rc"
grep -q "^irusb-emu: $tmp/no-such-pty: .*No such file or directory" "$tmp/nopty.err" ||
	fail "a missing port: message does not name it"
"$emu" --port "$a" -- "$tmp/no-such-command" 2>"$tmp/nocmd.err"; rc=$?
[ $rc -eq 1 ] || fail "a missing command: exit $rc"
grep -q "^irusb-emu: $tmp/no-such-command: No such file or directory" "$tmp/nocmd.err" ||
	fail "a missing command: message does not name it"
"$emu" --port "$a" 2>"$tmp/usage.err"; rc=$?
[ $rc -eq 2 ] || fail "no command: exit $rc, not 2"
"$emu" --help | grep -q '^usage: irusb-emu --port PTY' || fail "--help"
echo "PASS"
exit 0
