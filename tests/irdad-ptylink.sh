#!/bin/sh
# irdad's pty links in a directory of root's (issue 28): irdad started as
# root makes its [ircomm] and [irnet] links in $tmp/run (root's, 0755)
# before it drops to nobody; at SIGTERM nobody may not unlink there, so
# the endpoints hand the removal to the port opener, which kept root
# (docs/irdad.md, "Removing the pty links").  After irdad's exit:
#   - both links are gone, and irdad's log has no "Permission denied"
#     (without the opener's removal it logged "removing ...: Permission
#     denied" and left the links);
#   - a third link, replaced by a regular file while irdad ran, is still
#     that file: nothing but a link to irdad's own pty is removed.
# What the opener refuses when asked (a path swapped for a file or for a
# link elsewhere, an index out of its list): tests/unit/test_port_opener.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: the links are made as root, then root is dropped"

run="$tmp/run"
mkdir -m 0755 "$run"
[ "$(stat -c '%U %a' "$run")" = "root 755" ] || fail "$run is not root's with mode 0755"
start_wire
{
	printf '[ircomm com0]\nrole listen\npty %s\n' "$run/com0"
	printf '[ircomm com1]\nrole listen\npty %s\n' "$run/com1"
	printf '[irnet ppp0]\nrole listen\npty %s\n' "$run/ppp0"
} >"$tmp/a.conf"
start_irdad alpha "$a" -c "$tmp/a.conf" -v -v
pa=$irdad_pid
for l in com0 com1 ppp0; do
	[ -L "$run/$l" ] || fail "irdad did not make the link $run/$l"
done
grep -q 'keeps root to reopen .* and to remove the pty links at the end' "$tmp/irdad-alpha.err" ||
	fail "irdad's opener was not started for the links"
user=$(stat -c %U "/proc/$pa")
[ "$user" = nobody ] || fail "irdad runs as $user, not nobody: the test needs the drop"
# com1 replaced while irdad runs: not irdad's link any more
rm "$run/com1"
echo "not a link" >"$run/com1"
echo "ok: links made in root's $run, irdad runs as nobody"

kill -TERM $pa
wait $pa; ra=$?
lpid=
[ $ra -eq 0 ] || fail "irdad exited $ra on SIGTERM"
for l in com0 ppp0; do
	[ -e "$run/$l" ] || [ -L "$run/$l" ] && fail "$run/$l is left behind after irdad's exit"
done
grep -n 'Permission denied' "$tmp/irdad-alpha.err" && fail "irdad's log says 'Permission denied'"
grep -q "$run/com0 removed by the privileged helper" "$tmp/irdad-alpha.err" &&
	grep -q "$run/ppp0 removed by the privileged helper" "$tmp/irdad-alpha.err" ||
	fail "irdad did not log the links' removal by the opener"
echo "ok: $run/com0 and $run/ppp0 removed by the opener; no 'Permission denied' in the log"
[ -f "$run/com1" ] && [ ! -L "$run/com1" ] && [ "$(cat "$run/com1")" = "not a link" ] ||
	fail "$run/com1, a regular file by irdad's exit, was touched"
echo "ok: $run/com1, replaced by a regular file, left as it was"
exit 0
