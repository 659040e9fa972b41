#!/bin/sh
# irspray in real time over irwire at 115200: a listener and a sender in
# two processes; bidirectional with one and two streams, and
# unidirectional; every byte checked at both ends (exit 0), the report
# lines in irdaspray's form, the listener's own report per connection;
# no listener in range: exit 1.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irspray="$abs_top_builddir/irnet/tools/irspray"
[ -x "$irspray" ] || fail "irspray not built"

start_wire
mkdir "$tmp/lock"
"$irspray" --listen -D "$b" --lock-dir "$tmp/lock" >"$tmp/listen.out" 2>"$tmp/listen.err" &
lpid=$!
wait_for "$tmp/listen.out" '^listening on '
grep -Eq '^Seccomp:[[:space:]]+2' "/proc/$lpid/status" || fail "listener runs without seccomp"

rate='[0-9]+ bytes in [0-9]+\.[0-9]{3} seconds \([0-9]+\.[0-9]{2} kbytes/s\)'
# run NAME EXPECTED-STREAM-LINES ARGS...
run() {
	name=$1 lines=$2
	shift 2
	"$irspray" -D "$a" --lock-dir "$tmp/lock" --timeout 20 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; rc=$?
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

kill -TERM "$lpid"
wait "$lpid"; rc=$?
lpid=
[ $rc -eq 0 ] || fail "listener exit $rc (a mismatch?)"
# The listener checked and reported 4 connections; the discard one got 16000.
[ "$(grep -c '^Received ' "$tmp/listen.out")" -eq 4 ] || fail "listener did not report 4 connections"
grep -q '^Received 16000 bytes' "$tmp/listen.out" || fail "listener: unidirectional bytes"

# Nothing in range.
"$irspray" -D "$a" --lock-dir "$tmp/lock" --timeout 1 >"$tmp/none.out" 2>"$tmp/none.err"; rc=$?
[ $rc -eq 1 ] || fail "nothing in range: exit $rc"
grep -q "not done within 1 s" "$tmp/none.err" || fail "nothing in range: message"
echo PASS
exit 0
