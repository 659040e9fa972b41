#!/bin/sh
# irdiscover's usage errors: each names the bad input and exits 2; --help
# exits 0.  No serial port needed (all are refused before or at opening).
. "${top_srcdir:-.}/tests/lib.sh"
irdiscover="$abs_top_builddir/irnet/tools/irdiscover"
[ -x "$irdiscover" ] || { echo "FAIL: $irdiscover not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# expect2 WORD ARGS...: exit 2 and WORD in the message
expect2() {
	word=$1
	shift
	"$irdiscover" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ $rc -ne 2 ] || ! grep -qF -- "$word" "$tmp/err" || [ -s "$tmp/out" ]; then
		echo "FAIL: irdiscover $*: exit $rc, stderr: $(cat "$tmp/err")"
		failed=1
	else
		echo "ok: irdiscover $*: $(head -1 "$tmp/err")"
	fi
}

expect2 '/nonexistent/ttyIR9' -d /nonexistent/ttyIR9 --lock-dir ''
expect2 'no device' --timeout 1
expect2 'warp9' -d /dev/null --dongle warp9
expect2 'tekram' -d /dev/null --dongle tekram:bogus=1
expect2 '--speed 12345' -d /dev/null --speed 12345
expect2 '--speed 115200' -d /dev/null --dongle girbil:max=9600 --speed 115200
expect2 '--slots 5' -d /dev/null --slots 5
expect2 '--timeout 0' -d /dev/null --timeout 0
expect2 '--timeout x' -d /dev/null --timeout x
expect2 'toaster' -d /dev/null --hints computer,toaster
expect2 'xxxxxxxxxxxxxxxxxxxxxxxxx' -d /dev/null --nickname xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
expect2 'bogus' -d /dev/null --bogus
expect2 'only with --listen' -d /dev/null --service IrNetv1
expect2 'at most 4' --listen -d /dev/null --service A --service B --service C --service D --service E
expect2 'extra' -d /dev/null extra
expect2 '/dev/null' -d /dev/null --lock-dir ''

"$irdiscover" --help >"$tmp/out" 2>&1 || { echo "FAIL: --help exit $?"; failed=1; }
grep -q '^usage: irdiscover' "$tmp/out" || { echo "FAIL: --help text"; failed=1; }
[ $failed -eq 0 ] && echo PASS
exit $failed
