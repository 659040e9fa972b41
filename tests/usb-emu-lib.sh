# tests/usb-emu-lib.sh: shared by the tests that run programs against an
# emulated USB dongle (irusb-emu behind umockdev): sources lib.sh and
# station-lib.sh, names the programs (emu, irdad), skips when the
# emulation is not there, starts the wire (sides $a and $b) and makes a
# lock directory $tmp/lock any user may write.  Sourced after lib.sh; a
# TAP script redefines skip() as tap_skip_all in between (exit 77 is an
# error in TAP).
. "${top_srcdir:-.}/tests/station-lib.sh"
emu="$abs_top_builddir/irnet/tools/irusb-emu"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$emu" ] || skip "irusb-emu not built (configure found no umockdev)"
command -v umockdev-wrapper >/dev/null 2>&1 || skip "umockdev-wrapper not installed"
start_wire
mkdir "$tmp/lock" && chmod 1777 "$tmp/lock"
