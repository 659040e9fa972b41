#!/bin/sh
# IrNET through two irdad processes over irwire in real time, checked by
# tests/irdad_irnet_test.py (an RFC 1662 implementation of its own):
#   - [irnet] endpoints on ptys (a calls b by nickname, b listens): PPP
#     frames both ways come out the same; a frame with a bad FCS is
#     dropped and counted (the daemons' closing log says 1 each);
#   - irdad --stdio at both ends (b --listen), as pppd's pty option runs
#     it: --status-fd says "up 0x... "beta"", frames both ways, both exit
#     0 when the caller's input ends.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$irdad" ] || fail "irdad not built"

start_wire
printf '[irnet net0]\nrole call\npeer nickname "beta"\npty %s\n' "$tmp/irnet-a" >"$tmp/a.conf"
printf '[irnet net0]\nrole listen\npty %s\n' "$tmp/irnet-b" >"$tmp/b.conf"
start_irdad alpha "$a" -c "$tmp/a.conf" -v
pa=$irdad_pid
start_irdad beta "$b" -c "$tmp/b.conf" -v
pb=$irdad_pid
[ -L "$tmp/irnet-a" ] && [ -L "$tmp/irnet-b" ] || fail "the [irnet] pty links are missing"
"$PYTHON" "$top_srcdir/tests/irdad_irnet_test.py" pty "$tmp/irnet-a" "$tmp/irnet-b" \
	>"$tmp/pty.out" 2>"$tmp/pty.err" || fail "IrNET over ptys"
cat "$tmp/pty.out"
kill -TERM $pa $pb
wait $pa; ra=$?
wait $pb; rb=$?
lpid=
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "daemons exited $ra and $rb on SIGTERM"
for n in alpha beta; do
	grep -q '\[irnet net0\]: 1 connections, .* 1 from pppd dropped with a bad FCS' \
		"$tmp/irdad-$n.err" || fail "$n: the bad-FCS frame was not counted"
done
echo "ok: each daemon counted the one bad-FCS frame and dropped it"
[ -e "$tmp/irnet-a" ] && fail "the pty link was left after exit"

"$PYTHON" "$top_srcdir/tests/irdad_irnet_test.py" stdio "$irdad" "$a" "$b" "$tmp" \
	>"$tmp/stdio.out" 2>"$tmp/stdio.err" || fail "irdad --stdio"
cat "$tmp/stdio.out"
exit 0
