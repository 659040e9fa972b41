#!/bin/sh
# irdad --stdio --service ircomm, the pppd plugin's helper for IrCOMM,
# against irdad processes over irwire in real time, driven by
# tests/irdad_ircomm_stdio_test.py (which says what each step checks):
#   - the helper on a pty master calling beta's [ircomm] pty listener:
#     status lines, 64 KiB each way, termios -> IrCOMM parameters and DTR,
#     the ends (our slave closed; beta's program gone; beta's daemon gone);
#   - `failed not-offered` (gamma has no IrCOMM), `failed no-peer` (also
#     with --connect-timeout 4: it kept looking that long);
#   - two helpers on socketpairs (plain bytes, --listen), 3-wire cooked and
#     3-wire raw.
# About 46 s.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$irdad" ] || fail "irdad not built"
t="$top_srcdir/tests/irdad_ircomm_stdio_test.py"

start_wire
printf '[ircomm phone]\nrole listen\npty %s\n' "$tmp/ircomm-b" >"$tmp/b.conf"
start_irdad beta "$b" -c "$tmp/b.conf" -v
pb=$irdad_pid
"$PYTHON" "$t" session "$irdad" "$a" "$tmp/ircomm-b" "$tmp/irdad-beta.err" "$pb" "$tmp" \
	>"$tmp/session.out" 2>&1 || { cat "$tmp/session.out"; fail "the helper against beta"; }
cat "$tmp/session.out"
wait $pb; rb=$?
lpid=
[ $rb -eq 0 ] || fail "beta exited $rb on SIGTERM"

# gamma serves no IrCOMM: its IAS has no IrDA:IrCOMM
start_irdad gamma "$b" -v
pg=$irdad_pid
for step in "gamma not-offered" "nobody no-peer" "nobody no-peer --connect-timeout 4"; do
	set -- $step
	"$PYTHON" "$t" fail "$irdad" "$a" "$1" "$2" "$tmp" ${3:-} ${4:-} >"$tmp/fail.out" 2>&1 ||
		{ cat "$tmp/fail.out"; fail "failed $2"; }
	cat "$tmp/fail.out"
done
kill -TERM $pg
wait $pg
lpid=

for wire in 3wire 3wire-raw; do
	"$PYTHON" "$t" plain "$irdad" "$a" "$b" "$tmp" $wire >"$tmp/plain.out" 2>&1 ||
		{ cat "$tmp/plain.out"; fail "two helpers on socketpairs, $wire"; }
	cat "$tmp/plain.out"
done
exit 0
