#!/bin/sh
# bench: xferstat import of 10^6 lines (curl -w lines, the densest of the
# line formats to parse: four numbers each), reading, parsing and writing
# the result file.  Also its CPU time (user + system).  Then 10^6 irspray
# records pasted as from mail: each after a prompt and with the next
# command after it, which takes the in-line scan (the slow path: the
# whole-line parse fails, every word start is tried).
#   bench: import_1e6_lines SECONDS s
#   bench: import_1e6_records_in_text SECONDS s
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

awk 'BEGIN { for (i = 0; i < 1000000; i++)
	printf "$ irdaspray -c 10 host Transmitted %d bytes in %d.%02d seconds (%d.%02d kbytes/s) $ exit\n",
		102400 + i % 4096, 9 + i % 3, i % 100, 10, i % 97 }' >"$T/text.txt"
start=$(date +%s.%N)
"$XFERSTAT" import --format irspray -q -o "$T/text.json" "$T/text.txt" || exit 1
end=$(date +%s.%N)
runs=$(xs_json "$T/text.json" 'sum(len(s["runs"]) for s in d["sets"])')
[ "$runs" -eq 1000000 ] || { echo "imported $runs records in text, not 1000000"; exit 1; }
"$PY" -c 'import sys; print("bench: import_1e6_records_in_text %.3f s" % (float(sys.argv[2]) - float(sys.argv[1])))' "$start" "$end"
