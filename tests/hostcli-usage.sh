#!/bin/sh
# The usage errors of the host programs (irdiscover, irspray): each names
# the bad input and exits 2, with nothing on stdout; --help exits 0.  The
# common options (irnet/tools/hostcli.c) are tried on both programs, with
# each one's device flag: -D on both, and irdiscover's older -d.  No serial port needed: all are refused before
# or at opening.
. "${top_srcdir:-.}/tests/lib.sh"
irdiscover="$abs_top_builddir/irnet/tools/irdiscover"
irspray="$abs_top_builddir/irnet/tools/irspray"
for p in "$irdiscover" "$irspray"; do
	[ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# expect2 PROGRAM WORD ARGS...: exit 2 and WORD in the message
expect2() {
	prog=$1 word=$2
	shift 2
	"$prog" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	name=$(basename "$prog")
	if [ $rc -ne 2 ] || ! grep -qF -- "$word" "$tmp/err" || [ -s "$tmp/out" ]; then
		echo "FAIL: $name $*: exit $rc, stderr: $(cat "$tmp/err")"
		failed=1
	else
		echo "ok: $name $*: $(head -1 "$tmp/err")"
	fi
}

for spec in "$irdiscover -d" "$irdiscover -D" "$irspray -D"; do
	prog=${spec% *} dev=${spec##* }
	expect2 "$prog" '/nonexistent/ttyIR9' $dev /nonexistent/ttyIR9 --lock-dir ''
	expect2 "$prog" 'no device' --timeout 1
	expect2 "$prog" 'warp9' $dev /dev/null --dongle warp9
	expect2 "$prog" 'tekram' $dev /dev/null --dongle tekram:bogus=1
	expect2 "$prog" '--speed 12345' $dev /dev/null --speed 12345
	expect2 "$prog" '--speed 115200' $dev /dev/null --dongle girbil:max=9600 --speed 115200
	expect2 "$prog" '--min-turnaround 10001' $dev /dev/null --min-turnaround 10001
	expect2 "$prog" '--min-turnaround 5ms' $dev /dev/null --min-turnaround 5ms
	expect2 "$prog" '--min-turnaround -1' $dev /dev/null --min-turnaround -1
	expect2 "$prog" 'xxxxxxxxxxxxxxxxxxxxxxxxx' $dev /dev/null --nickname xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
	expect2 "$prog" 'bogus' $dev /dev/null --bogus
	expect2 "$prog" 'extra' $dev /dev/null extra
	expect2 "$prog" '/dev/null' $dev /dev/null --lock-dir ''
	"$prog" --help >"$tmp/out" 2>&1 || { echo "FAIL: $prog --help exit $?"; failed=1; }
	grep -q "^usage: $(basename "$prog")" "$tmp/out" || { echo "FAIL: $prog --help text"; failed=1; }
	grep -q -- '--min-turnaround US' "$tmp/out" || { echo "FAIL: $prog --help lacks the common options"; failed=1; }
done

expect2 "$irdiscover" 'use -D (or -d) DEVICE' --timeout 1
"$irdiscover" --help | grep -q -- '-D, -d, --device' || { echo "FAIL: irdiscover --help: no -D"; failed=1; }
expect2 "$irdiscover" '--slots 5' -d /dev/null --slots 5
expect2 "$irdiscover" '--timeout 0' -d /dev/null --timeout 0
expect2 "$irdiscover" '--timeout x' -d /dev/null --timeout x
expect2 "$irdiscover" 'toaster' -d /dev/null --hints computer,toaster
expect2 "$irdiscover" 'only with --listen' -d /dev/null --service IrNetv1
expect2 "$irdiscover" 'at most 4' --listen -d /dev/null --service A --service B --service C --service D --service E
expect2 "$irspray" '-D (-d is --unidirectional)' -d
expect2 "$irspray" '-b 4097' -D /dev/null -b 4097
expect2 "$irspray" '--streams 5' -D /dev/null --streams 5
expect2 "$irspray" '-n -1' -D /dev/null -n -1
expect2 "$irspray" 'choose one' -D /dev/null --stream --mixed
expect2 "$irspray" '--mixed: needs --streams' -D /dev/null --mixed
expect2 "$irspray" '--class: not with --mixed' -D /dev/null --mixed --streams 2 --class IrSpray
expect2 "$irspray" '--class' -D /dev/null --class ''
"$irspray" --help | grep -q -- '--stream ' || { echo "FAIL: irspray --help: no --stream"; failed=1; }

[ $failed -eq 0 ] && echo PASS
exit $failed
