#!/bin/sh
# irdad collects its port opener's end (docs/irdad.md, "When the port goes
# away"): irdad started as root under its seccomp filter, its opener
# killed with SIGKILL.  irdad must log it once at warning level, naming
# the signal and the PID, leave no zombie child, and go on serving; at
# the next unplug the replugged pty (root's, mode 0620) cannot be opened
# by the user irdad dropped to, and the refusal must say that the opener
# is gone; once the pty is made accessible, the unprivileged reopen
# (the retry timer) brings the port back.  About 6.5 s.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: irdad forks its port opener only when started as root"
irdactl="$abs_top_builddir/irnet/tools/irdactl"

# the unplug comes 4 s after irwire's start, once the opener is dead
start_wire --link-a "$tmp/dev-a" --unplug a:4000:1000
start_irdad alpha "$tmp/dev-a" -v
pa=$irdad_pid
expect_seccomp $pa "irdad"
opener=$(pgrep -P $pa -x irdad-opener) || fail "irdad has no opener process"
grep -q "port opener (PID $opener) keeps root to reopen $tmp/dev-a" "$tmp/irdad-alpha.err" ||
	fail "irdad did not log its opener's PID $opener"
# irdad took so long to start that the port may be back already: the
# reopen would not tell the two paths apart (a slow machine, not a fault)
grep -q '^unplug a' "$tmp/wire.out" && skip "irdad took more than 4 s to start: the unplug came first"

kill -KILL $opener
wait_for "$tmp/irdad-alpha.err" "port opener (PID $opener) was killed"
line=$(grep "port opener (PID $opener) was killed" "$tmp/irdad-alpha.err")
[ "$(echo "$line" | wc -l)" -eq 1 ] || fail "the opener's end was logged more than once: $line"
case $line in
"warning: irdad: the port opener (PID $opener) was killed by signal SIGKILL: $tmp/dev-a will be reopened as irdad's own user (nobody) from now on"*) ;;
*) fail "the opener's end is not logged as expected: $line" ;;
esac
echo "ok: irdad logged the opener's end once: $line"
# collected: no child of irdad left, zombie or not
for p in $(pgrep -P $pa); do
	fail "irdad has a child left, PID $p, $(grep '^State:' /proc/$p/status)"
done
kill -0 $pa 2>/dev/null || fail "irdad ended with its opener"
"$irdactl" -s "$tmp/alpha.sock" status >"$tmp/status-up.out" || fail "irdactl status after the opener's end"
grep -qx 'port: up' "$tmp/status-up.out" || fail "irdactl status does not say 'port: up'"
echo "ok: no zombie; irdad still serves (irdactl status: port: up)"

# the unplug; the replugged pty is root's: nobody's open is refused,
# and the refusal names the opener's end rather than a non-root start
wait_for "$tmp/wire.out" '^replug a'
wait_for "$tmp/irdad-alpha.err" 'Permission denied: '
refusal=$(grep 'Permission denied: ' "$tmp/irdad-alpha.err")
case $refusal in
"error: irdad: $tmp/dev-a: cannot open: Permission denied: irdad's port opener was killed by signal SIGKILL, so it reopens the port as its own user (nobody): give that user access to $tmp/dev-a"*) ;;
*) fail "the refused reopen is not explained as expected: $refusal" ;;
esac
echo "ok: the refused reopen says why: $refusal"
grep -q 'is back' "$tmp/irdad-alpha.err" && fail "irdad reopened a pty its user cannot open"

# made accessible: the retry timer's next try (at most 2 s away) reopens
# it as nobody
now=$(readlink "$tmp/dev-a")
chmod 0666 "$now"
end=$(($(date +%s) + $(ceiling 8)))
until grep -q "$tmp/dev-a is back (" "$tmp/irdad-alpha.err"; do
	[ "$(date +%s)" -lt $end ] || fail "irdad did not reopen $now within 8 s of its chmod"
	sleep 0.1
done
lock="$tmp/lock/LCK..$(echo "${now#/dev/}" | tr / _)"
[ "$(tr -d ' \n' <"$lock")" = "$pa" ] || fail "$lock is not irdad's after the reopen"
[ "$(stat -c %U "$lock")" = nobody ] || fail "$lock is $(stat -c %U "$lock")'s, not nobody's"
"$irdactl" -s "$tmp/alpha.sock" status >"$tmp/status-back.out" || fail "irdactl status after the reopen"
grep -qx 'port: up' "$tmp/status-back.out" || fail "irdactl status does not say 'port: up' after the reopen"
echo "ok: the port came back through the unprivileged reopen (lock $lock nobody's)"

kill -TERM $pa
wait $pa; ra=$?
lpid=
[ $ra -eq 0 ] || fail "irdad exited $ra on SIGTERM"
exit 0
