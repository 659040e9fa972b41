#!/bin/sh
# Two irdad over irwire in real time, each with its control socket; the
# local API driven by tests/irdad_client.py (an implementation of
# docs/irdad-api.md independent of the daemon's codec):
#   - HELLO, DISCOVER (fresh) finds the other daemon's station;
#   - a client of b listens (stream and SAR, IAS classes), a client of a
#     connects by class to "any station": 64 KiB through the passed
#     descriptors, echoed and checked; SAR messages keep their sizes;
#   - IAS_QUERY of b's class from a; STATUS lists the connection;
#   - abuse: garbage, an oversized message, a non-request, a descriptor
#     sent to the daemon: each ends only its own session, the others and
#     the daemon go on;
#   - closing a session disconnects its connections (the peer reads EOF);
#   - as root: a user outside the socket's group cannot connect, one in it
#     can, and the session's credentials are logged.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$irdad" ] || fail "irdad not built"

start_wire
start_irdad alpha "$a" -v
pa=$irdad_pid
start_irdad beta "$b" -v
pb=$irdad_pid
expect_seccomp "$pa" irdad

# The socket is the daemon's access control: mode 0660, group dialout.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && getent group dialout >/dev/null; then
	probe="import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
try:
    s.connect(sys.argv[1]); print('connected')
except PermissionError:
    print('refused')"
	gid=$(getent group dialout | cut -d: -f3)
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$PYTHON" -c "$probe" "$tmp/alpha.sock")
	[ "$out" = refused ] || fail "a user outside the socket's group got: $out"
	out=$(setpriv --reuid=65534 --regid=65534 --groups="$gid" "$PYTHON" -c "$probe" "$tmp/alpha.sock")
	[ "$out" = connected ] || fail "a user in the socket's group got: $out"
	grep -q 'session [0-9]* (pid [0-9]* uid 65534): connected' "$tmp/irdad-alpha.err" ||
		fail "the session's credentials were not logged"
	echo "ok: a user outside group dialout is refused, one in it connects (uid 65534 logged)"
fi

PYTHONPATH="$top_srcdir/tests" "$PYTHON" "$top_srcdir/tests/irdad_api_test.py" \
	"$tmp/alpha.sock" "$tmp/beta.sock" >"$tmp/api.out" 2>"$tmp/api.err" || fail "API test failed"
cat "$tmp/api.out"
kill -0 $pa 2>/dev/null && kill -0 $pb 2>/dev/null || fail "a daemon died"
kill -TERM $pa $pb
wait $pa; ra=$?
wait $pb; rb=$?
lpid=
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "daemons exited $ra and $rb on SIGTERM"
ls "$tmp/lock" | grep -q LCK && fail "a lock file was left"
exit 0
