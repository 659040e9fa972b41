#!/bin/sh
# A reopen that fails for another reason than the device's absence
# (docs/irdad.md, "When the port goes away"): while a's port is unplugged,
# every pty gets a live UUCP lock of another process, so the replugged
# device is there but locked (EBUSY).  Nothing in the watched directories
# changes after that: only irdad's retry timer (1 s, doubling) can reopen
# it once the locks are gone.  The reason is logged once, not every try.
# About 10 s.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"

start_wire --link-a "$tmp/dev-a" --unplug a:1000:1000
start_irdad alpha "$tmp/dev-a" -vv
pa=$irdad_pid
sleep 300 &
holder=$!
lpid="$lpid $holder"

wait_for "$tmp/wire.out" '^unplug a'
# every pty but a taken one: the replugged one gets one of these names
i=0
while [ $i -lt 256 ]; do
	f="$tmp/lock/LCK..pts_$i"
	[ -e "$f" ] || { printf '%10d\n' $holder >"$f" && echo "$f" >>"$tmp/ours"; }
	i=$((i + 1))
done
wait_for "$tmp/wire.out" '^replug a'
wait_for "$tmp/irdad-alpha.err" 'is there but cannot be reopened'
grep 'is there but cannot be reopened' "$tmp/irdad-alpha.err" | head -1 | grep -q 'is locked by PID' ||
	fail "the reopen did not fail on the lock: $(grep 'cannot be reopened' "$tmp/irdad-alpha.err")"
# tries at the replug, +1 s, +3 s: wait for the two retries (an event),
# not for 3.5 s of the clock, which a busy machine may stretch
end=$(($(date +%s) + $(ceiling 10)))
until [ "$(grep -c 'not back yet: .*is locked by PID' "$tmp/irdad-alpha.err")" -ge 2 ]; do
	[ "$(date +%s)" -lt $end ] ||
		fail "irdad a did not retry the locked port twice in $(ceiling 10) s: $(grep -c 'not back yet' "$tmp/irdad-alpha.err") retries"
	sleep 0.1
done
tries=$(grep -c 'not back yet: .*is locked by PID' "$tmp/irdad-alpha.err")
said=$(grep -c 'is there but cannot be reopened' "$tmp/irdad-alpha.err")
[ "$said" -eq 1 ] || fail "the lock was logged $said times, expected once"
echo "ok: the locked port tried $((tries + 1)) times, the reason logged once"
grep -q 'is back' "$tmp/irdad-alpha.err" && fail "irdad a took a locked port"

xargs rm -f <"$tmp/ours"
# the next try is at most 4 s away
end=$(($(date +%s) + $(ceiling 8)))
until grep -q "$tmp/dev-a is back (" "$tmp/irdad-alpha.err"; do
	[ "$(date +%s)" -lt $end ] || fail "irdad a did not reopen its port within 8 s of the locks' removal"
	sleep 0.1
done
now=$(readlink "$tmp/dev-a")
lock="$tmp/lock/LCK..$(echo "${now#/dev/}" | tr / _)"
[ "$(tr -d ' \n' <"$lock")" = "$pa" ] || fail "$lock is not irdad a's after the reopen"
echo "ok: once the locks were gone, the retry timer reopened the port (no inotify event)"
kill -TERM $pa
wait $pa; ra=$?
lpid=$holder
[ $ra -eq 0 ] || fail "irdad a exited $ra"
exit 0
