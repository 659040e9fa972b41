#!/bin/sh
# The minimum turnaround a station asks for (issue 28 point 4): on a pty
# of irwire --turnaround-us 700 the stations, given no --min-turnaround,
# take the one irwire's mark names (700 us, rounded up to IrLAP's 1 ms)
# and not the 5 ms of dongle none; irspray's summary and the -v logs of
# irspray and irdad say which and why; an explicit --min-turnaround wins
# over the mark (and the summary says so); the capture's SNRM and UA
# carry what the summaries say.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irspray="$abs_top_builddir/irnet/tools/irspray"
[ -x "$irspray" ] || fail "irspray not built"

start_wire --turnaround-us 700
$vg "$irspray" --listen -D "$b" --lock-dir "" $noseccomp -v >"$tmp/listen.out" 2>"$tmp/listen.err" &
lpid=$!
wait_for "$tmp/listen.out" '^listening on '
grep -q "$b: min turnaround 1 ms (irwire port)\$" "$tmp/listen.err" ||
	fail "listener: its log does not name irwire's turnaround"

# spray NAME ARGS...: 50 10-byte SDUs one way, with a capture
spray() {
	name=$1
	shift
	$vg "$irspray" -D "$a" --lock-dir "" --timeout "$(ceiling 20)" $noseccomp -v -d -n 50 -b 10 \
		--pcap "$tmp/$name.pcap" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; rc=$?
	[ $rc -eq 0 ] || fail "$name: exit $rc"
	mtt=$(pcap_min_tat "$tmp/$name.pcap") || fail "$name: capture unreadable"
}

spray default
grep -qx "Min turnaround ours 1 ms (irwire port), the peer's 1 ms" "$tmp/default.out" ||
	fail "default: the summary does not say irwire's turnaround"
grep -q "$a: min turnaround 1 ms (irwire port)\$" "$tmp/default.err" ||
	fail "default: the log does not say irwire's turnaround"
[ "$mtt" = "0x7 0x7" ] || fail "default: SNRM/UA min turnaround $mtt, expected 0x7 0x7"
echo "default: $(sed -n 's/^Min turnaround //p' "$tmp/default.out")"

spray given --min-turnaround 5000
grep -qx "Min turnaround ours 5 ms (--min-turnaround), the peer's 1 ms" "$tmp/given.out" ||
	fail "given: the summary does not say the option's turnaround"
[ "$mtt" = "0x3 0x7" ] || fail "given: SNRM/UA min turnaround $mtt, expected 0x3 0x7"
echo "given: $(sed -n 's/^Min turnaround //p' "$tmp/given.out")"

kill -INT "$lpid"
wait "$lpid"; rc=$?
lpid=
[ $rc -eq 0 ] || fail "listener exit $rc"

# irdad on the same kind of port logs the same choice, and its setting
# wins there too.
start_irdad alpha "$a" -v
grep -q "min turnaround 1 ms (irwire port)\$" "$tmp/irdad-alpha.err" ||
	fail "irdad: its log does not name irwire's turnaround"
stop_irdads "$irdad_pid"
lpid=
start_irdad beta "$b" -v --min-turnaround 100
grep -q "min turnaround 100 us (min-turnaround)\$" "$tmp/irdad-beta.err" ||
	fail "irdad: its log does not name the turnaround given"
stop_irdads "$irdad_pid"
lpid=
echo PASS
exit 0
