#!/bin/sh
# irspray in real time over irwire at 115200: a listener and a sender in
# two processes; bidirectional with one and two streams, and
# unidirectional; every byte checked at both ends (exit 0), the report
# lines in irdaspray's form, the listener's own report per connection;
# no listener in range: exit 1.  Small SDUs with --min-turnaround 10 and
# --pcap: the capture's SNRM asks for 10 us (QoS PI 0x86 bits 0x7f), the
# listener's UA for its dongle's 5 ms (0x03).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irspray="$abs_top_builddir/irnet/tools/irspray"
[ -x "$irspray" ] || fail "irspray not built"

start_wire
# A lock directory like /var/lock: sticky and world-writable, reachable
# by the user the programs become (nobody, when the test runs as root).
mkdir "$tmp/lock"
chmod 1777 "$tmp/lock"
chmod 755 "$tmp"
"$irspray" --listen -D "$b" --lock-dir "$tmp/lock" -v >"$tmp/listen.out" 2>"$tmp/listen.err" &
lpid=$!
wait_for "$tmp/listen.out" '^listening on '
grep -Eq '^Seccomp:[[:space:]]+2' "/proc/$lpid/status" || fail "listener runs without seccomp"

rate='[0-9]+ bytes in [0-9]+\.[0-9]{3} seconds \([0-9]+\.[0-9]{2} kbytes/s\)'
# run NAME EXPECTED-STREAM-LINES ARGS...
run() {
	name=$1 lines=$2
	shift 2
	"$irspray" -D "$a" --lock-dir "$tmp/lock" --timeout 20 -v "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; rc=$?
	[ $rc -eq 0 ] || fail "$name: exit $rc"
	[ "$(grep -Ec "^(Transmitted|Received) $rate\$" "$tmp/$name.out")" -eq "$lines" ] ||
		fail "$name: not $lines stream lines"
	grep -Eq "^Total $rate\$" "$tmp/$name.out" || fail "$name: no total line"
	grep -Eq '^Efficiency [0-9.]+% of the line \([0-9]+ bytes/s payload, 115200 baud = 11520 bytes/s\)$' \
		"$tmp/$name.out" || fail "$name: no efficiency line"
	echo "$name: $(sed -n 's/^Efficiency //p' "$tmp/$name.out")"
}
run bidir 2 -n 12 -b 1000
grep -qx 'Transmitted 12000 bytes in .*' "$tmp/bidir.out" || fail "bidir: byte count"
grep -qx 'Received 12000 bytes in .*' "$tmp/bidir.out" || fail "bidir: bytes back"
run streams2 4 -n 6 -b 1000 --streams 2
[ "$(grep -c '^Received 6000 bytes' "$tmp/streams2.out")" -eq 2 ] || fail "streams2: bytes back"
run unidir 1 -n 8 -b 2000 -d
grep -q '^Received' "$tmp/unidir.out" && fail "unidir: something came back"
run small 1 -n 200 -b 10 -d --min-turnaround 10 --pcap "$tmp/small.pcap"
mtt=$(python3 - "$tmp/small.pcap" <<'PYEOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert struct.unpack_from("<IHHiIII", data, 0)[6] == 144, "not link type 144"
off, found = 24, {}
while off + 16 <= len(data):
    incl = struct.unpack_from("<IIII", data, off)[2]
    rec = data[off + 16:off + 16 + incl]
    off += 16 + incl
    frame = rec[16:]                 # after the 16-byte LINUX_IRDA header
    if len(frame) < 2 or (frame[1] & 0xef) not in (0x83, 0x63):
        continue
    kind = "snrm" if frame[1] & 0xef == 0x83 else "ua"
    qos = frame[2 + 9:] if kind == "snrm" else frame[2 + 8:]
    i = 0
    while i + 2 <= len(qos):
        pi, pl = qos[i], qos[i + 1]
        if pi == 0x86 and pl == 1:
            found[kind] = qos[i + 2]
        i += 2 + pl
print("%s %s" % (hex(found.get("snrm", -1)), hex(found.get("ua", -1))))
PYEOF
) || fail "small: capture unreadable"
[ "$mtt" = "0x7f 0x3" ] || fail "small: min turnaround SNRM/UA $mtt, expected 0x7f 0x3"

kill -TERM "$lpid"
wait "$lpid"; rc=$?
lpid=
[ $rc -eq 0 ] || fail "listener exit $rc (a mismatch?)"
# The listener checked and reported 5 connections; the 8 x 2000 discard one got 16000.
[ "$(grep -c '^Received ' "$tmp/listen.out")" -eq 5 ] || fail "listener did not report 5 connections"
grep -q '^Received 16000 bytes' "$tmp/listen.out" || fail "listener: unidirectional bytes"

# Every program removed its lock at exit, also after dropping root.
[ -z "$(ls -A "$tmp/lock")" ] || fail "lock files left behind: $(ls -l "$tmp/lock")"

# Nothing in range.
"$irspray" -D "$a" --lock-dir "$tmp/lock" --timeout 1 >"$tmp/none.out" 2>"$tmp/none.err"; rc=$?
[ $rc -eq 1 ] || fail "nothing in range: exit $rc"
grep -q "not done within 1 s" "$tmp/none.err" || fail "nothing in range: message"
echo PASS
exit 0
