#!/bin/sh
# Two irdad over irwire, each with an [ircomm] and an [irnet] endpoint
# (alpha calls with reconnect, beta listens), and irspray through the
# local API, all on one link at once; then a link break longer than
# IrLAP's disconnect time (irwire --break): both daemons see the link
# lost, alpha's IrCOMM endpoint calls again, and data after it is intact
# (tests/irdad_mixed_test.py checks the data).  About 75 s.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irspray="$abs_top_builddir/irnet/tools/irspray"
BREAK_AT=45 BREAK_LEN=15

start_wire --break "$((BREAK_AT * 1000)):$((BREAK_LEN * 1000))"
date +%s.%N >"$tmp/wire.start"
start_mixed_pair
$vg "$irspray" --listen --daemon "$tmp/beta.sock" >"$tmp/spray-listen.out" 2>"$tmp/spray-listen.err" &
sl=$!
lpid="$lpid $sl"

PYTHONPATH="$top_srcdir/tests" "$PYTHON" "$top_srcdir/tests/irdad_mixed_test.py" "$tmp" \
	"$BREAK_AT" "$BREAK_LEN" >"$tmp/mixed.out" 2>"$tmp/mixed.err" &
py=$!
i=0
until [ -e "$tmp/calls.up" ]; do
	i=$((i + 1)); [ $i -gt "$(ceiling 1200)" ] && fail "the calls did not come up"; sleep 0.05
done
$vg "$irspray" --daemon "$tmp/alpha.sock" -n 24 -b 1000 --timeout "$(ceiling 40)" >"$tmp/spray.out" 2>"$tmp/spray.err" ||
	fail "irspray through alpha's API failed while IrCOMM and IrNET ran"
grep -q '^Received 24000 bytes' "$tmp/spray.out" || fail "irspray: not every byte came back"
echo "ok: irspray through the local API: 24000 bytes each way, checked, beside IrCOMM and IrNET"
wait $py || fail "IrCOMM and IrNET checks (mixed.out)"
cat "$tmp/mixed.out"
for n in alpha beta; do
	grep -Eq 'ircomm (modem|serial): connection lost' "$tmp/irdad-$n.err" ||
		fail "$n's IrCOMM endpoint did not see the link break"
done
grep -q 'irnet net0: down link-lost' "$tmp/irdad-alpha.err" ||
	fail "alpha's IrNET endpoint did not see the link break"
echo "ok: both daemons' endpoints saw the link lost"
kill -TERM $pa $pb $sl
wait $pa; ra=$?
wait $pb; rb=$?
lpid=
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "daemons exited $ra and $rb on SIGTERM"
exit 0
