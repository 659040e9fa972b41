#!/bin/sh
# After a link ends, the next one starts at once (issue 23 point 5,
# shared/data/linux-interop/obex-after-peer-disc-run*.pcap): two irdad
# over irwire in real time, driven by tests/irdad_relink_test.py.  beta
# discovers again and again (as Linux did every 3 s) while the stations
# take turns looking each other up, each lookup made as soon as its irdad
# reports the previous link down.  Before the fix a lookup made while
# irdad answered a discovery was refused ("cannot start an IAS query
# now") or its SNRM never went out.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$irdad" ] || fail "irdad not built"

start_wire
start_irdad alpha "$a" -v
pa=$irdad_pid
start_irdad beta "$b" -v
pb=$irdad_pid

PYTHONPATH="$top_srcdir/tests" "$PYTHON" "$top_srcdir/tests/irdad_relink_test.py" \
	"$tmp/alpha.sock" "$tmp/beta.sock" >"$tmp/relink.out" 2>"$tmp/relink.err"
rc=$?
cat "$tmp/relink.out"
[ $rc -eq 0 ] || { cat "$tmp/relink.err" >&2; grep -i 'refused\|cannot start' "$tmp"/irdad-*.err >&2; fail "relink test failed"; }
kill -0 $pa 2>/dev/null && kill -0 $pb 2>/dev/null || fail "a daemon died"
kill -TERM $pa $pb
wait $pa; ra=$?
wait $pb; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "daemons exited $ra and $rb on SIGTERM"
echo "PASS: irdad-relink"
exit 0
