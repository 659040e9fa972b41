#!/bin/sh
# irspray in real time over irwire at 115200: a listener and a sender in
# two processes; bidirectional with one and two streams, and
# unidirectional; every byte checked at both ends (exit 0), the report
# lines in irdaspray's form, the listener's own report per connection;
# no listener in range: exit 1.  Every summary names the turnarounds:
# ours 10 us from irwire's pty without the option.  Small SDUs with
# --min-turnaround 10 and --pcap: the capture's SNRM asks for 10 us (QoS
# PI 0x86 bits 0x7f), the listener's UA too (irwire's, not its dongle's
# 5 ms), and the summary says it was the option's.
# TinyTP stream mode (no SAR) both ways, a stream caller on the SAR class,
# a SAR and a stream connection at once on one link (--mixed), and the
# capture's TinyTP Connect/Confirm: no MaxSduSize on a stream, MaxSduSize
# with SAR.  A SAR caller on the stream class is refused at once
# (IrLMP reason 0x01) and says what it had sent; a connection without
# data is reported as 0 bytes in 0 seconds.  The listener starts with
# SIGINT ignored (as a script's background job inherits it) and must
# still stop on SIGINT.
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
(trap '' INT; exec $vg "$irspray" --listen -D "$b" --lock-dir "$tmp/lock" $noseccomp -v) \
	>"$tmp/listen.out" 2>"$tmp/listen.err" &
lpid=$!
wait_for "$tmp/listen.out" '^listening on '
expect_seccomp "$lpid" listener
# SigIgn is a hex mask, bit 1 (value 2) for SIGINT: no longer ignored.
sigign=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$lpid/status")
[ $(( 0x$sigign & 2 )) -eq 0 ] || fail "listener still ignores SIGINT (SigIgn $sigign)"

rate='[0-9]+ bytes in [0-9]+\.[0-9]{3} seconds \([0-9]+\.[0-9]{2} kbytes/s\)'
# run NAME EXPECTED-STREAM-LINES ARGS...
run() {
	name=$1 lines=$2
	shift 2
	$vg "$irspray" -D "$a" --lock-dir "$tmp/lock" --timeout "$(ceiling 20)" $noseccomp -v "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; rc=$?
	[ $rc -eq 0 ] || fail "$name: exit $rc"
	[ "$(grep -Ec "^(Transmitted|Received) $rate\$" "$tmp/$name.out")" -eq "$lines" ] ||
		fail "$name: not $lines stream lines"
	grep -Eq "^Total $rate\$" "$tmp/$name.out" || fail "$name: no total line"
	grep -Eq '^Efficiency [0-9.]+% of the line \([0-9]+ bytes/s payload, 115200 baud = 11520 bytes/s\)$' \
		"$tmp/$name.out" || fail "$name: no efficiency line"
	grep -Eq "^Min turnaround ours [0-9]+ (us|ms) \(.+\), the peer's [0-9]+ (us|ms)\$" \
		"$tmp/$name.out" || fail "$name: no turnaround line"
	echo "$name: $(sed -n 's/^Efficiency //p' "$tmp/$name.out")"
}
run bidir 2 -n 12 -b 1000
grep -qx 'Transmitted 12000 bytes in .*' "$tmp/bidir.out" || fail "bidir: byte count"
grep -qx 'Received 12000 bytes in .*' "$tmp/bidir.out" || fail "bidir: bytes back"
grep -qx "Min turnaround ours 10 us (irwire port), the peer's 10 us" "$tmp/bidir.out" ||
	fail "bidir: not irwire's 10 us turnaround by default"
run streams2 4 -n 6 -b 1000 --streams 2
[ "$(grep -c '^Received 6000 bytes' "$tmp/streams2.out")" -eq 2 ] || fail "streams2: bytes back"
run unidir 1 -n 8 -b 2000 -d
grep -q '^Received' "$tmp/unidir.out" && fail "unidir: something came back"
run small 1 -n 200 -b 10 -d --min-turnaround 10 --pcap "$tmp/small.pcap"
mtt=$(pcap_min_tat "$tmp/small.pcap") || fail "small: capture unreadable"
[ "$mtt" = "0x7f 0x7f" ] || fail "small: min turnaround SNRM/UA $mtt, expected 0x7f 0x7f"
grep -qx "Min turnaround ours 10 us (--min-turnaround), the peer's 10 us" "$tmp/small.out" ||
	fail "small: the summary does not name the turnaround given"

# ttp_connects CAPTURE: the user data of each TinyTP Connect (C) and
# Confirm (F) between non-IAS LSAPs, in order, as hex
ttp_connects() {
	python3 - "$1" <<'PYEOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
off, out = 24, []
while off + 16 <= len(data):
    incl = struct.unpack_from("<IIII", data, off)[2]
    frame = data[off + 16 + 16:off + 16 + incl]
    off += 16 + incl
    if len(frame) < 6 or frame[1] & 0x01:      # I-frames only
        continue
    lm = frame[2:]
    if lm[0] & 0x80 and lm[0] & 0x7f and lm[1] and lm[2] in (0x01, 0x81):
        out.append(("C" if lm[2] == 0x01 else "F") + ":" + lm[4:].hex())
print(" ".join(out))
PYEOF
}

# Stream mode both ways (boundaries not kept: writes of 4096 go out in
# PDUs of at most 2045 bytes), checked by offset at both ends.
run stream 2 -n 8 -b 1000 --stream --pcap "$tmp/stream.pcap"
grep -qx 'Received 8000 bytes in .*' "$tmp/stream.out" || fail "stream: bytes back"
conn=$(ttp_connects "$tmp/stream.pcap") || fail "stream: capture unreadable"
[ "$conn" = "C:10 F:10" ] || fail "stream: TinyTP connect/confirm '$conn', expected 'C:10 F:10'"
run stream_unidir 1 -n 4 -b 4096 -d --stream
grep -q '^Received' "$tmp/stream_unidir.out" && fail "stream_unidir: something came back"
# A stream caller on the SAR class: answered without MaxSduSize, a stream.
run stream_on_sar 2 -n 2 -b 3000 --stream --class IrSpray --pcap "$tmp/stream_on_sar.pcap"
conn=$(ttp_connects "$tmp/stream_on_sar.pcap")
[ "$conn" = "C:10 F:10" ] || fail "stream_on_sar: TinyTP connect/confirm '$conn'"
# SAR and stream at once on one link: one IrLAP link, both kinds.
before=$(wc -l <"$tmp/listen.err")
run mixed 4 -n 3 -b 3000 --streams 2 --mixed --pcap "$tmp/mixed.pcap"
[ "$(grep -c "^Received 9000 bytes" "$tmp/mixed.out")" -eq 2 ] || fail "mixed: bytes back"
conn=$(ttp_connects "$tmp/mixed.pcap")
[ "$conn" = "C:900401021000 C:10 F:900401021000 F:10" ] ||
	[ "$conn" = "C:900401021000 C:10 F:10 F:900401021000" ] ||
	fail "mixed: TinyTP connect/confirm '$conn'"
sed "1,${before}d" "$tmp/listen.err" >"$tmp/mixed.listen"
[ "$(grep -c 'connected to ' "$tmp/mixed.listen")" -eq 1 ] || fail "mixed: not one IrLAP link"
grep -q 'connection (echo, SAR)' "$tmp/mixed.listen" || fail "mixed: no SAR connection"
grep -q 'connection (echo, stream)' "$tmp/mixed.listen" || fail "mixed: no stream connection"
# The SAR capture of the first run: MaxSduSize 4096 both ways.
conn=$(ttp_connects "$tmp/small.pcap")
[ "$conn" = "C:900401021000 F:900401021000" ] || fail "small: TinyTP connect/confirm '$conn'"

# A connection with no data: 0 bytes in 0 seconds at both ends.
run empty 2 -n 0
grep -qx 'Received 0 bytes in 0.000 seconds (0.00 kbytes/s)' "$tmp/listen.out" ||
	fail "empty: the listener's report"

# A SAR caller on the stream class is refused at once; -d reports what
# was sent (not the receive counters).  Last: the failed sender leaves
# the listener's link to time out.
$vg "$irspray" -D "$a" --lock-dir "$tmp/lock" --timeout "$(ceiling 20)" $noseccomp -d -n 8 -b 1000 --class IrSpray:Stream \
	>"$tmp/refused.out" 2>"$tmp/refused.err"; rc=$?
[ $rc -eq 1 ] || fail "refused: exit $rc"
grep -q 'stream 1 (SAR) was closed before it was accepted (IrLMP reason 0x01: user request): 0 of 8000 bytes sent$' \
	"$tmp/refused.err" || fail "refused: message"
kill -INT "$lpid"
wait "$lpid"; rc=$?
lpid=
[ $rc -eq 0 ] || fail "listener exit $rc (a mismatch?), or SIGINT not taken"
# The listener checked and reported 11 connections (the refused one is
# not one); the 8 x 2000 discard one got 16000; no duration wrapped.
[ "$(grep -c '^Received ' "$tmp/listen.out")" -eq 11 ] || fail "listener did not report 11 connections"
grep -q '^Received 16000 bytes' "$tmp/listen.out" || fail "listener: unidirectional bytes"
grep -q '^Received 16384 bytes' "$tmp/listen.out" || fail "listener: stream unidirectional bytes"
[ "$(grep -Ec "^(Transmitted|Received) $rate\$" "$tmp/listen.out")" -eq 19 ] ||
	fail "listener: not 19 report lines of the usual form"
grep -Eq ' in [0-9]{5,}\.' "$tmp/listen.out" && fail "listener: a duration wrapped around"

# Every program removed its lock at exit, also after dropping root.
[ -z "$(ls -A "$tmp/lock")" ] || fail "lock files left behind: $(ls -l "$tmp/lock")"

# Nothing in range.
$vg "$irspray" -D "$a" --lock-dir "$tmp/lock" --timeout 1 $noseccomp >"$tmp/none.out" 2>"$tmp/none.err"; rc=$?
[ $rc -eq 1 ] || fail "nothing in range: exit $rc"
grep -q "not done within 1 s" "$tmp/none.err" || fail "nothing in range: message"
echo PASS
exit 0
