#!/bin/sh
# Benchmark (make bench): the compare report over 10 conditions of 1000
# runs each, text with plot and JSON, through the statistics library.
# Prints `bench:` lines; never fails on a timing.
set -e
: "${abs_top_builddir:=.}"
driver="$abs_top_builddir/tests/xferstat-stats-driver"
[ -x "$driver" ] || { echo "bench: $driver not built (make check builds it)"; exit 1; }
data=$(mktemp)
trap 'rm -f "$data"' EXIT
awk 'BEGIN { srand(1); for (c = 0; c < 10; c++) for (i = 0; i < 1000; i++)
	printf "c%d 1048576 %.6f\n", c, 10 + c * 0.01 + rand() }' >"$data"
ms() { echo $(($(date +%s%N) / 1000000)); }
for fmt in --text --json --plot; do
	t0=$(ms)
	"$driver" "$fmt" <"$data" >/dev/null
	echo "bench: xferstat_compare_10x1000_${fmt#--} $(($(ms) - t0)) ms"
done
