#!/bin/sh
# bench: xferstat import of 10^6 lines (curl -w lines, the densest of the
# line formats to parse: four numbers each), reading, parsing and writing
# the result file.  Also its CPU time (user + system).
#   bench: import_1e6_lines SECONDS s
. "${top_srcdir:-.}/tests/xferstat-lib.sh"
trap xs_cleanup EXIT
xs_mktemp
T=$xs_tmp
awk 'BEGIN { for (i = 0; i < 1000000; i++)
	printf "%d 0 0.%06d %d.%06d\n", 1048576 + i % 4096, i % 999983, 1 + i % 7, i % 999979 }' \
	>"$T/lines.txt"
start=$(date +%s.%N)
"$XFERSTAT" import --format curl -q -o "$T/out.json" "$T/lines.txt" || exit 1
end=$(date +%s.%N)
# CPU time of a second, identical import: wall time on a shared machine
# includes waiting for a core.
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f "%U %S" -o "$T/cpu" "$XFERSTAT" import --format curl -q -o "$T/out2.json" "$T/lines.txt" || exit 1
	set -- $(cat "$T/cpu")
	"$PY" -c 'import sys; print("bench: import_1e6_lines_cpu %.3f s" % (float(sys.argv[1]) + float(sys.argv[2])))' "$1" "$2"
fi
runs=$(xs_json "$T/out.json" 'sum(len(s["runs"]) for s in d["sets"])')
[ "$runs" -eq 1000000 ] || { echo "imported $runs runs, not 1000000"; exit 1; }
"$PY" -c 'import sys; print("bench: import_1e6_lines %.3f s" % (float(sys.argv[2]) - float(sys.argv[1])))' "$start" "$end"
