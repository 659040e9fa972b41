#!/bin/sh
# irdad's ATTACH request (docs/irdad-api.md, "ATTACH: endpoints on your
# descriptors"), driven by tests/irdad_attach_test.py through the
# independent client of tests/irdad_client.py: irdad alpha serves its API,
# beta is an irdad with a listening [irnet net0] pty endpoint (the script
# is its pppd) on the other end of irwire.  Refusals (no, one or three descriptors, ircomm, a listener with
# a peer, a pipe for a channel, a read-only status descriptor, a
# descriptor with STATUS); "failed no-peer" with TIMEOUT_MS 2000; a pty
# master calling beta by nickname: "up 0x... "beta"", 20 frames each way,
# the slave closed -> "down closed", beta sees the disconnect; a stream
# socket calling any station, then the session closed: beta sees the
# disconnect, the channel and the status descriptor are closed; beta's
# pppd hanging up -> "down closed-by-peer" and the channel closed; a full
# status pipe: the line dropped and logged, irdad not blocked; the
# per-session limit (4) and the STATUS counters attach.* (also as
# irdactl status prints them).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$irdad" ] || fail "irdad not built"

start_wire
printf '[irnet net0]\nrole listen\npty %s\n' "$tmp/irnet-b" >"$tmp/b.conf"
start_irdad alpha "$a" -v
pa=$irdad_pid
start_irdad beta "$b" -c "$tmp/b.conf" -v
pb=$irdad_pid
"$PYTHON" "$top_srcdir/tests/irdad_attach_test.py" "$tmp/alpha.sock" "$tmp/irnet-b" \
	"$tmp/irdad-beta.err" "$tmp/irdad-alpha.err" >"$tmp/attach.out" 2>"$tmp/attach.err" ||
	fail "ATTACH"
cat "$tmp/attach.out"
# irdactl shows the counters as they come
"$abs_top_builddir/irnet/tools/irdactl" -s "$tmp/alpha.sock" status >"$tmp/irdactl.out" 2>&1 ||
	fail "irdactl status"
grep -Eq '^ +attach\.endpoints +0$' "$tmp/irdactl.out" &&
	grep -Eq '^ +attach\.total +9$' "$tmp/irdactl.out" ||
	fail "irdactl status does not show attach.endpoints 0 and attach.total 9"
echo "ok: irdactl status shows attach.endpoints 0, attach.total 9"
kill -TERM $pa $pb
wait $pa; ra=$?
wait $pb; rb=$?
lpid=
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "alpha and beta exited $ra and $rb on SIGTERM"
grep -q 'endpoint [0-9]* freed' "$tmp/irdad-alpha.err" || fail "alpha did not log the endpoints freed"
echo "ok: both daemons exited 0 on SIGTERM"
exit 0
