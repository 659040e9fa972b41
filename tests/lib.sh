# tests/lib.sh: helpers for the shell tests (sourced, not run).
#
# TAP scripts call tap_plan, then ok/not_ok for each item; whole-test
# scripts call skip "why" to exit 77 with the reason printed.

: "${top_srcdir:=.}"
: "${abs_top_builddir:=$(pwd)}"
# ceiling SECONDS: a time limit scaled for a busy machine.
. "$top_srcdir/tests/ceiling.sh"
tap_n=0
tap_failed=0

tap_plan() { echo "1..$1"; }
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=1; echo "not ok $tap_n - $*"; }
# tap_skip_all REASON: the whole script is skipped, with the reason shown.
tap_skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# skip REASON: for exit-status tests (automake counts 77 as SKIP).
skip() { echo "SKIP: $*"; exit 77; }
# Indents a file's content as TAP diagnostics.
tap_diag_file() { sed 's/^/# /' "$1"; }
