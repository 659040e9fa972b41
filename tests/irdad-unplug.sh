#!/bin/sh
# The dongle goes away (issue 16, point 4): two irdad over irwire, a's
# port unplugged and plugged back by irwire --unplug while a program
# streams numbered records through a's [ircomm] pty (kept open throughout)
# to b's.  tests/irdad_unplug_test.py checks the stream after each replug
# (intact, in order, only in-flight data lost), the pty (same link, same
# descriptor), a's lock released and almost no CPU while the port is
# gone, an API client's connection ended at the unplug; here: irdad logged each unplug and replug, runs on with its port
# gone for good, and exits 0 on SIGTERM, saying how often it came back.
# a is root-started and drops to nobody: the new ptys are root's, so the
# reopen goes through its privileged opener.
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
start_irdad alpha "$tmp/dev-a" -c "$tmp/a.conf" -v
pa=$irdad_pid
start_irdad beta "$tmp/dev-b" -c "$tmp/b.conf" -v
pb=$irdad_pid
expect_seccomp $pa "irdad a"

"$PYTHON" "$top_srcdir/tests/irdad_unplug_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" \
	"$tmp/wire.out" "$pa" "$tmp/lock" $cycles "$tmp/alpha.sock" "$tmp/beta.sock" \
	>"$tmp/stream.out" 2>"$tmp/stream.err" ||
	fail "the stream through the unplugs"
cat "$tmp/stream.out"

# the port is gone for good now: irdad a waits (alive, still serving)
kill -0 $pa 2>/dev/null || fail "irdad a ended while its port was gone"
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
