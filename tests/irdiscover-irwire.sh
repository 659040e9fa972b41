#!/bin/sh
# irdiscover in real time over irwire: two processes on the two ptys of
# the emulated link, the real serial, SIR, IrLAP and station code.  The
# listener (beta, Computer+IrCOMM) is found with its nickname and hints,
# with --speed 115200 and 9600 offered (discovery itself is at 9600);
# its IAS lists the services it offers (--service), text and --json;
# --json parses; the pcap of a session dissects with no malformed frame;
# nothing in range gives exit 1.  When run as root, both processes drop
# to nobody and run under the seccomp allow-list (the default).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"

start_wire
mkdir "$tmp/lock"

"$irdiscover" --listen -D "$b" --nickname beta --hints computer,ircomm \
	--service IrNetv1 --service IrSpray \
	--lock-dir "$tmp/lock" >"$tmp/listen.out" 2>"$tmp/listen.err" &
lpid=$!
wait_for "$tmp/listen.out" '^listening on '
# Root gave way to nobody, and the filter is on.
if [ "$(id -u)" = 0 ]; then
	nobody=$(id -u nobody)
	grep -Eq "^Uid:[[:space:]]+$nobody[[:space:]]+$nobody[[:space:]]+$nobody[[:space:]]" \
		"/proc/$lpid/status" || fail "listener still has uid $(grep ^Uid: "/proc/$lpid/status")"
	grep -Eq '^Groups:[[:space:]]*$' "/proc/$lpid/status" || fail "listener kept its groups"
fi
grep -Eq '^Seccomp:[[:space:]]+2' "/proc/$lpid/status" || fail "listener runs without seccomp"

for speed in 115200 9600; do
	# IAS at 115200; discovery alone at 9600.
	lines=4 noias=
	[ $speed = 9600 ] && lines=1 noias=--no-ias
	"$irdiscover" -d "$a" --speed $speed --timeout "$(ceiling 5)" --lock-dir "$tmp/lock" -v $noias \
		>"$tmp/d$speed.out" 2>"$tmp/d$speed.err"; rc=$?
	[ $rc -eq 0 ] || fail "discovery (--speed $speed) exit $rc"
	sed -n 1p "$tmp/d$speed.out" |
		grep -Eq '^0x[0-9a-f]{8}  beta +charset=ascii  hints=Computer,IrCOMM \(8404\)$' ||
		fail "--speed $speed: beta not listed as expected"
	[ "$(wc -l <"$tmp/d$speed.out")" -eq $lines ] || fail "--speed $speed: not $lines lines"
	sed -n 's/^irdiscover: \(.* ms\)$/discovery --speed '$speed' '"${noias:-with IAS}"': \1/p' \
		"$tmp/d$speed.err"
done
# The services, with the LSAPs the listener allocated (distinct, 1..0x6f).
sed -n 2,4p "$tmp/d115200.out" >"$tmp/svc.txt"
grep -qx '    device name: beta' "$tmp/svc.txt" || fail "IAS device name"
l1=$(sed -n 's/^    service: IrNetv1 IrDA:TinyTP:LsapSel=\([0-9]*\)$/\1/p' "$tmp/svc.txt")
l2=$(sed -n 's/^    service: IrSpray IrDA:TinyTP:LsapSel=\([0-9]*\)$/\1/p' "$tmp/svc.txt")
[ -n "$l1" ] && [ -n "$l2" ] && [ "$l1" != "$l2" ] && [ "$l1" -ge 1 ] && [ "$l2" -le 111 ] ||
	fail "IAS services not listed as expected"

"$irdiscover" -d "$a" --json --slots 6 --lock-dir "$tmp/lock" --pcap "$tmp/s.pcap" \
	>"$tmp/json.out" 2>"$tmp/json.err" || fail "--json: exit $?"
"$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
s = d["stations"]
assert len(s) == 1, s
assert s[0]["nickname"] == "beta", s
assert s[0]["hints"] == ["Computer", "IrCOMM"], s
assert s[0]["hint_bytes"] == "8404", s
assert s[0]["charset"] == "ascii", s
assert s[0]["device_name"] == "beta", s
svc = [(x["class"], x["attribute"]) for x in s[0]["services"]]
assert svc == [("IrNetv1", "IrDA:TinyTP:LsapSel"), ("IrSpray", "IrDA:TinyTP:LsapSel")], svc
assert all(1 <= x["value"] <= 0x6f for x in s[0]["services"]), s
int(s[0]["address"], 16)
print("json: found %s in %d ms" % (s[0]["address"], d["elapsed_ms"]))
' <"$tmp/json.out" || fail "--json output"

if capture_clean "$tmp/s.pcap" 3; then
	"$TSHARK" -r "$tmp/s.pcap" -V 2>>"$tmp/tshark.err" | grep -q 'Nickname: beta' ||
		fail "tshark does not see beta's nickname in the capture"
	echo "tshark: $capture_frames frames, none malformed"
fi

# The listener saw each discovery, and ends cleanly on SIGTERM.
sleep 0.2
[ "$(grep -c '^discovered by 0x' "$tmp/listen.out")" -ge 2 ] || fail "listener did not see the discoveries"
kill -TERM "$lpid"
wait "$lpid"; rc=$?
lpid=
[ $rc -eq 0 ] || fail "listener exit $rc on SIGTERM"

# Nothing in range: exit 1 with a message naming the device.
"$irdiscover" -d "$a" --timeout 1 --lock-dir "$tmp/lock" >"$tmp/none.out" 2>"$tmp/none.err"; rc=$?
[ $rc -eq 1 ] || fail "nothing in range: exit $rc"
grep -q "$a: no station in range" "$tmp/none.err" || fail "nothing in range: message"
[ -s "$tmp/none.out" ] && fail "nothing in range: output on stdout"
echo "PASS"
exit 0
