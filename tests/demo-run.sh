#!/bin/sh
# The demo (demo/demo.sh, `./bootstrap.sh demo`) as a test: it must exit
# 0, print each step's result line "step N ok: ..." (1 to 5) and its
# closing line, write a PNG plot, and leave none of its processes, its
# work directory or its UML run directory behind.  About 2.5 minutes:
# the demo runs in real time (115200 bit/s), in user-mode Linux for PPP.
# Exit: 0 pass, 1 fail, 77 skip (no user-mode Linux or vsftpd).
. "${top_srcdir:-.}/tests/lib.sh"
PATH=$PATH:/usr/sbin:/sbin
for t in linux.uml vsftpd pppd python3; do
	command -v "$t" >/dev/null || skip "$t is not installed (./bootstrap.sh installs it)"
done
[ -f "$abs_top_builddir/pppd-plugin/.libs/irnet.so" ] || { echo "FAIL: irnet.so is not built"; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/demo-run.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

TMPDIR=$out abs_top_builddir=$abs_top_builddir bash "$top_srcdir/demo/demo.sh" \
	--out "$out/res" >"$out/demo.txt" 2>&1
rc=$?
cat "$out/demo.txt"
[ $rc -eq 0 ] || fail "the demo exited $rc"
for n in 1 2 3 4 5; do
	grep -q "^step $n ok: " "$out/demo.txt" || fail "no result line for step $n"
	echo "ok: step $n: $(grep "^step $n ok: " "$out/demo.txt")"
done
grep -q '^demo done in [0-9]* s$' "$out/demo.txt" || fail "no closing line"
grep -q '^  BER 1e-5 \(is .* than clean\|against clean: no difference proven\)' "$out/demo.txt" ||
	fail "no verdict of the comparison"
png=$(sed -n 's/^  plot of the rates: //p' "$out/demo.txt")
[ "$png" = "$out/res/xferstat-rates.png" ] || fail "the plot's path is '$png'"
[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
echo "ok: $png is a PNG ($(wc -c <"$png") bytes)"
# Nothing left: the demo's work directory (under $out, as TMPDIR) and
# its processes (their command lines name $out).
left=$(find "$out" -maxdepth 1 -name 'irnet-demo.*')
[ -z "$left" ] || fail "the demo left its work directory: $left"
sleep 1
if pgrep -f "$out" >/dev/null; then
	pgrep -af "$out"
	fail "the demo left processes behind"
fi
echo "ok: no process or work directory left"
exit 0
