#!/bin/sh
# irdad's configuration at run time, over irwire in real time:
#   - a bad file: exit 2 with FILE:LINE, nothing started (no socket);
#   - discovery-period: the periodic discovery logs a station arriving
#     and, once its daemon is gone, leaving;
#   - SIGHUP with a broken file: the error with FILE:LINE, the running
#     configuration stays; with a good file: read again, a key that needs
#     a restart is named;
#   - SIGHUP and the service list, with privileges dropped and the
#     allow-list on: an [ircomm] endpoint added (its pty and link made),
#     changed (replaced, the link kept), removed (stopped, the link gone).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$irdad" ] || fail "irdad not built"

start_wire
mkdir "$tmp/lock" && chmod 1777 "$tmp/lock"
conf() { # conf EXTRA-LINES: the configuration of daemon a
	cat >"$tmp/a.conf" <<CONF
device $a
socket $tmp/a.sock
lock-dir $tmp/lock
nickname alpha
log stderr
log-level info
discovery-period 1s
$1
CONF
}

conf 'speed 12345'
"$irdad" -c "$tmp/a.conf" >"$tmp/bad.out" 2>"$tmp/bad.err"; rc=$?
[ $rc -eq 2 ] || fail "a bad file: exit $rc, not 2"
grep -q "^irdad: $tmp/a.conf:8: speed 12345: not an IrDA SIR rate" "$tmp/bad.err" ||
	fail "a bad file: no FILE:LINE message"
[ -e "$tmp/a.sock" ] && fail "a bad file: the socket was created"

conf ''
"$irdad" -c "$tmp/a.conf" >"$tmp/irdad-a.out" 2>"$tmp/irdad-a.err" &
pa=$!
lpid=$pa
start_irdad beta "$b"
pb=$irdad_pid
wait_for "$tmp/irdad-a.err" 'serving .* configured by'
i=0
until grep -q 'station 0x[0-9a-f]* "beta" in range' "$tmp/irdad-a.err"; do
	i=$((i + 1)); [ $i -gt "$(ceiling 200)" ] && fail "the periodic discovery did not find beta"; sleep 0.05
done
echo "periodic discovery found beta"

conf 'bogus 1'
kill -HUP $pa
wait_for "$tmp/irdad-a.err" "SIGHUP: $tmp/a.conf:8: unknown key 'bogus'"
grep -q 'the running configuration stays' "$tmp/irdad-a.err" || fail "no 'stays'"
kill -0 $pa 2>/dev/null || fail "irdad died on a bad reload"

conf 'idle-timeout 5s
speed 9600'
kill -HUP $pa
wait_for "$tmp/irdad-a.err" 'SIGHUP: speed changed: it takes effect at the next start'
wait_for "$tmp/irdad-a.err" "SIGHUP: $tmp/a.conf read again"
echo "reloads: a broken file refused, a good one taken"

# The service list.  The links' directory is one the dropped user may
# write (sticky, as /tmp).
mkdir "$tmp/links" && chmod 1777 "$tmp/links"
link="$tmp/links/added"
conf "[ircomm added]
pty $link"
kill -HUP $pa
wait_for "$tmp/irdad-a.err" 'SIGHUP: \[ircomm added\] started'
slave=$(readlink "$link") || fail "SIGHUP: the added endpoint has no link"
[ -c "$slave" ] || fail "SIGHUP: the added endpoint's link leads to $slave, not a pty"
conf "[ircomm added]
pty $link
wire 3wire"
kill -HUP $pa
wait_for "$tmp/irdad-a.err" 'SIGHUP: \[ircomm added\] restarted with its new settings'
slave2=$(readlink "$link") || fail "SIGHUP: the changed endpoint lost its link"
[ -c "$slave2" ] && [ "$slave2" != "$slave" ] || fail "SIGHUP: the changed endpoint has no new pty"
conf ''
kill -HUP $pa
wait_for "$tmp/irdad-a.err" 'SIGHUP: \[ircomm added\] stopped'
wait_for "$tmp/irdad-a.err" 'SIGHUP: .* 0 endpoints added, 0 changed, 1 removed'
[ -e "$link" ] || [ -L "$link" ] && fail "SIGHUP: the removed endpoint's link is still there"
kill -0 $pa 2>/dev/null || fail "irdad died reloading its service list"
echo "SIGHUP: an endpoint added ($slave), changed ($slave2), removed"

kill -TERM $pb
wait $pb
i=0
until grep -q 'station 0x[0-9a-f]* "beta" gone' "$tmp/irdad-a.err"; do
	i=$((i + 1)); [ $i -gt "$(ceiling 200)" ] && fail "beta's departure was not seen"; sleep 0.05
done
echo "periodic discovery saw beta leave"
kill -TERM $pa
wait $pa; ra=$?
lpid=
[ $ra -eq 0 ] || fail "irdad exited $ra on SIGTERM"
exit 0
