#!/bin/sh
# Two stations linked in real time over irwire: irdiscover --connect finds
# the listener at 9600, connects (SNRM/UA at 9600), both sides switch
# speed through the station's speed-switch path (drain, wait out the UA's
# line time, dongle script, UART rate; irwire follows each side's termios
# speed), poll each other with RR frames at the negotiated rate for 0.5 s,
# and disconnect (DISC/UA, back to 9600).  If either side failed to
# switch, or switched before its last frame at the old rate had left,
# the frames after UA would be garbled and the link would not close
# cleanly.  Cases: both offer 115200 (switch to 115200), the listener
# offers only 9600 (no switch: 9600 negotiated).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"

# link LISTENER_SPEED EXPECTED_BAUD
link() {
	rm -f "$tmp"/*.out "$tmp"/*.err "$tmp/c.pcap"
	start_wire
	"$irdiscover" --listen -d "$b" --nickname beta --speed "$1" --lock-dir '' \
		>"$tmp/listen.out" 2>"$tmp/listen.err" &
	lpid=$!
	wait_for "$tmp/listen.out" '^listening on '
	"$irdiscover" -d "$a" --connect --json --speed 115200 --timeout "$(ceiling 8)" --lock-dir '' \
		--pcap "$tmp/c.pcap" >"$tmp/connect.out" 2>"$tmp/connect.err" ||
		fail "listener at $1: connect exit $?"
	"$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
l = d["link"]
assert d["stations"][0]["nickname"] == "beta", d
assert l["address"] == d["stations"][0]["address"], d
assert l["baud"] == int(sys.argv[1]), l
print("link at %d bps up in %d ms" % (l["baud"], l["connect_ms"]))
' "$2" <"$tmp/connect.out" || fail "listener at $1: link JSON"
	wait_for "$tmp/listen.out" '^disconnected: '
	grep -q "^connected to 0x[0-9a-f]* at $2 bps" "$tmp/listen.out" || fail "listener did not see the link at $2"
	grep -q '^disconnected: peer disconnect' "$tmp/listen.out" || fail "listener: not a clean disconnect"
	kill -TERM "$lpid"; wait "$lpid" || fail "listener exit $?"
	lpid=
	kill -TERM "$wpid"; wait "$wpid"
	wpid=
	if capture_clean "$tmp/c.pcap"; then
		# SNRM (0x93), UA (0x73), RR with P/F (0x11/0x31...), DISC (0x53)
		"$TSHARK" -r "$tmp/c.pcap" 2>/dev/null >"$tmp/summary.out"
		for f in SNRM UA RR DISC; do
			grep -q "func=$f" "$tmp/summary.out" || fail "capture has no $f"
		done
		rr=$(grep -c 'func=RR' "$tmp/summary.out")
		[ "$rr" -ge 4 ] || fail "only $rr RR frames after the switch"
		echo "listener at $1: $(wc -l <"$tmp/summary.out") frames ($rr RR), none malformed"
	fi
}

link 115200 115200
link 9600 9600
echo PASS
exit 0
