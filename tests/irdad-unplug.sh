#!/bin/sh
# The dongle goes away (issue 16, point 4): two irdad over irwire, a's
# port unplugged and plugged back by irwire --unplug while a program
# streams numbered records through a's [ircomm] pty (kept open throughout)
# to b's, and numbered PPP frames through a's [irnet] pty to b's.  tests/irdad_unplug_test.py checks the stream after each replug
# (intact, in order, only in-flight data lost), the pty (same link, same
# descriptor), a's lock released and almost no CPU while the port is
# gone, an API client's connection ended at the unplug; here: irdad logged each unplug and replug, runs on with its port
# gone for good, and exits 0 on SIGTERM, saying how often it came back.
# a is root-started and drops to nobody: the new ptys are root's, so the
# reopen goes through its privileged opener, which runs under its own
# seccomp filter (checked; the replugs show the filter lets it work).
#
# Each cycle lasts about 14 s: b, the secondary, holds the link until its
# link-disconnect time (12 s) and answers no discovery before, so a
# replug earlier than that only waits for it.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"

cycles=3
start_wire --link-a "$tmp/dev-a" --link-b "$tmp/dev-b" \
	--unplug a:5000:12000 --unplug a:19500:12000 --unplug a:34000:12000 \
	--unplug a:48500:600000
printf '[ircomm modem]\nrole call\npeer nickname "beta"\npty %s\n' "$tmp/ircomm-a" >"$tmp/a.conf"
printf '[ircomm phone]\nrole listen\npty %s\n' "$tmp/ircomm-b" >"$tmp/b.conf"
printf '[irnet net0]\nrole call\npeer nickname "beta"\npty %s\n' "$tmp/irnet-a" >>"$tmp/a.conf"
printf '[irnet net0]\nrole listen\npty %s\n' "$tmp/irnet-b" >>"$tmp/b.conf"
start_irdad alpha "$tmp/dev-a" -c "$tmp/a.conf" -v
pa=$irdad_pid
start_irdad beta "$tmp/dev-b" -c "$tmp/b.conf" -v
pb=$irdad_pid
expect_seccomp $pa "irdad a"
# its privileged opener (still root) runs under its own allow-list
opener=$(pgrep -P $pa -x irdad-opener) || fail "irdad a has no opener process"
expect_seccomp $opener "irdad a's opener"
[ "$(awk '/^Uid:/ { print $3 }' /proc/$opener/status)" = 0 ] || fail "the opener is not root"
echo "ok: irdad a's opener (PID $opener) runs as root under seccomp (Seccomp: 2)"
irdactl="$abs_top_builddir/irnet/tools/irdactl"
"$irdactl" -s "$tmp/alpha.sock" status >"$tmp/status-up.out" ||
	fail "irdactl status with the port up"
grep -qx 'port: up' "$tmp/status-up.out" || fail "irdactl status does not say 'port: up'"

"$PYTHON" "$top_srcdir/tests/irdad_unplug_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" \
	"$tmp/wire.out" "$pa" "$tmp/lock" $cycles "$tmp/alpha.sock" "$tmp/beta.sock" "$tmp/dev-a" \
	"$tmp/irnet-a" "$tmp/irnet-b" \
	>"$tmp/stream.out" 2>"$tmp/stream.err" ||
	fail "the stream through the unplugs"
cat "$tmp/stream.out"

# the port is gone for good now: irdad a waits (alive, still serving)
kill -0 $pa 2>/dev/null || fail "irdad a ended while its port was gone"
"$irdactl" -s "$tmp/alpha.sock" status >"$tmp/status-gone.out" ||
	fail "irdactl status with the port gone"
grep -Eq "^port: gone since [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} \([0-9]+ s\), waiting for $tmp/dev-a\$" \
	"$tmp/status-gone.out" || fail "irdactl status with the port gone: $(grep port: "$tmp/status-gone.out")"
"$irdactl" -s "$tmp/alpha.sock" status --json | "$PYTHON" -c '
import json, sys
j = json.load(sys.stdin)
sys.exit(0 if j.get("port_state") == "gone" and j.get("port_waiting_for") == sys.argv[1] and
         j.get("port_gone_ms", -1) >= 1000 else "json: %r" % j)' "$tmp/dev-a" ||
	fail "irdactl status --json with the port gone"
echo "ok: irdactl status: $(grep '^port:' "$tmp/status-gone.out")"
gone=$(grep -c "$tmp/dev-a went away (" "$tmp/irdad-alpha.err")
back=$(grep -c "$tmp/dev-a is back (" "$tmp/irdad-alpha.err")
[ "$gone" -eq $((cycles + 1)) ] && [ "$back" -eq $cycles ] ||
	fail "irdad a logged $gone unplugs and $back replugs, expected $((cycles + 1)) and $cycles"
echo "ok: irdad a logged each unplug ($gone) and replug ($back), at warning level"
grep "$tmp/dev-a went away (" "$tmp/irdad-alpha.err" | head -1 | grep -q '^warning:' ||
	fail "the unplug is not logged at warning level"
[ "$(grep -c 'connection lost' "$tmp/irdad-alpha.err")" -ge $cycles ] ||
	fail "a's [ircomm] endpoint did not see a link loss at each unplug"
echo "ok: a's endpoint saw the link lost at each unplug"
kill -TERM $pa
wait $pa; ra=$?
[ $ra -eq 0 ] || fail "irdad a exited $ra on SIGTERM with its port gone"
grep -q "went away $((cycles + 1)) times and came back $cycles times" "$tmp/irdad-alpha.err" ||
	fail "no summary of the unplugs at exit"
echo "ok: SIGTERM while the port is gone: irdad a exits 0"
kill -TERM $pb
wait $pb; rb=$?
lpid=
[ $rb -eq 0 ] || fail "irdad b exited $rb"
exit 0
