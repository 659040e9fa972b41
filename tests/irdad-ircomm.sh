#!/bin/sh
# IrCOMM through two irdad processes over irwire in real time, [ircomm]
# endpoints on ptys: a calls b by nickname, b listens.
#   - Debian's gammu, unmodified, `connection = at` on a's pty, against
#     tests/phone_emu.py on b's: `gammu --identify` prints the emulator's
#     manufacturer and model;
#   - 256 KiB of random data each way at once, intact
#     (tests/irdad_ircomm_test.py);
#   - a speed change on a's pty reaches b's daemon as IrCOMM's data rate
#     parameter, and closing a's pty is carrier loss on b's side (b's log);
#   - a capture of the session decodes in tshark with no malformed frame,
#     IrCOMM's parameters included.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
command -v gammu >/dev/null || skip "gammu not installed (apt-get install gammu)"

start_wire
printf '[ircomm modem]\nrole call\npeer nickname "beta"\npty %s\n' "$tmp/ircomm-a" >"$tmp/a.conf"
printf '[ircomm phone]\nrole listen\npty %s\n' "$tmp/ircomm-b" >"$tmp/b.conf"
start_irdad alpha "$a" -c "$tmp/a.conf" -v --pcap "$tmp/a.pcap"
pa=$irdad_pid
start_irdad beta "$b" -c "$tmp/b.conf" -v
pb=$irdad_pid
[ -L "$tmp/ircomm-a" ] && [ -L "$tmp/ircomm-b" ] || fail "the [ircomm] pty links are missing"

# gammu against the phone emulator, through IrCOMM
"$PYTHON" "$top_srcdir/tests/phone_emu.py" "$tmp/ircomm-b" "$tmp/phone.log" &
phone=$!
lpid="$lpid $phone"
printf '[gammu]\ndevice = %s\nconnection = at\n' "$tmp/ircomm-a" >"$tmp/gammurc"
timeout "$(ceiling 90)" gammu -c "$tmp/gammurc" --identify >"$tmp/gammu.out" 2>&1 || fail "gammu --identify: exit $?"
grep -q '^Manufacturer *: IrnetTestPhones$' "$tmp/gammu.out" &&
	grep -q '^Model *: .*IRP-7110' "$tmp/gammu.out" || fail "gammu did not identify the phone"
sed 's/^/gammu: /' "$tmp/gammu.out"
kill $phone
wait $phone 2>/dev/null
sleep 1

"$PYTHON" "$top_srcdir/tests/irdad_ircomm_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" \
	>"$tmp/data.out" 2>"$tmp/data.err" || fail "data through IrCOMM"
cat "$tmp/data.out"
grep -q 'ircomm phone: peer.s data rate 57600' "$tmp/irdad-beta.err" ||
	fail "b's daemon did not hear the speed change"
echo "ok: a's tcsetattr to 57600 reached b as IrCOMM's data rate"
i=0
until grep -Eq "ircomm phone: (peer.s carrier \(CD\) down|connection lost .*carrier down)" \
	"$tmp/irdad-beta.err"; do
	i=$((i + 1)); [ $i -gt "$(ceiling 100)" ] && fail "b did not see carrier loss"; sleep 0.1
done
echo "ok: closing a's pty is carrier loss at b"

kill -TERM $pa $pb
wait $pa; ra=$?
wait $pb; rb=$?
lpid=
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "daemons exited $ra and $rb on SIGTERM"
if capture_clean "$tmp/a.pcap"; then
	n=$("$TSHARK" -r "$tmp/a.pcap" -Y ircomm 2>/dev/null | wc -l)
	p=$("$TSHARK" -r "$tmp/a.pcap" -Y 'ircomm.parameter' 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] && [ "$p" -gt 0 ] || fail "tshark saw no IrCOMM frames ($n) or parameters ($p)"
	echo "ok: tshark decodes the capture: $n IrCOMM frames, $p with parameters, none malformed"
fi
exit 0
