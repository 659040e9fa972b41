#!/bin/sh
# xferstat's command line: help, version, dispatch, and import's exit
# codes and messages (unrecognised lines named FILE:LINE, --strict,
# nothing written on failure).  Needs no network and no root.
. "${top_srcdir:-.}/tests/xferstat-lib.sh"
trap xs_cleanup EXIT
xs_mktemp
T=$xs_tmp
F=${abs_top_srcdir:-$top_srcdir}/tests/fixtures/xferstat

# expect RC PATTERN ARGS...
expect() {
	local want=$1 pattern=$2 rc
	shift 2
	"$XFERSTAT" "$@" >"$T/out" 2>&1
	rc=$?
	sed 's/^/    /' "$T/out"
	check "xferstat $* -> exit $want (got $rc)" [ "$rc" -eq "$want" ]
	check "xferstat $* says: $pattern" grep -qE -- "$pattern" "$T/out"
}

expect 0 "^usage: xferstat COMMAND" --help
expect 0 "^xferstat \(irnet-tools\) [0-9]" --version
expect 2 "unknown command 'frobnicate'" frobnicate
expect 2 "^usage: xferstat COMMAND"
expect 0 "^usage: xferstat run" run --help
expect 0 "^usage: xferstat import" import --help

# import: good files, several formats, one output.
expect 0 "tnftp-get.txt: ftp: 2 runs, 16 lines without a run, 0 not recognised" \
	import -o "$T/all.json" "$F/tnftp-get.txt" "$F/np.out" "$F/iperf3.json"
check "three sets written" [ "$(xs_json "$T/all.json" 'len(d["sets"])')" = 3 ]
# unrecognised lines are named (FILE:LINE:COLUMN), and counted; the recognised ones count.
printf '1048576 bytes received in 1.5 seconds (1 MiB/s)\nnot a transfer\n1 bytes received in\n' >"$T/mixed.txt"
expect 0 "mixed.txt:2:1: not recognised as ftp output: not a transfer" import -o "$T/m.json" "$T/mixed.txt"
check "mixed: line 3 named too" grep -q "mixed.txt:3:1: not recognised as ftp output" "$T/out"
check "mixed: summary counts" grep -q "mixed.txt: ftp: 1 runs, 0 lines without a run, 2 not recognised" "$T/out"
check "mixed: the run was written" [ "$(xs_json "$T/m.json" 'd["sets"][0]["runs"][0]["seconds"]')" = 1.5 ]
# --strict: any unrecognised line fails the import and writes nothing.
echo keep >"$T/strict.json"
expect 2 "2 lines, records, sessions or table cells not right \(--strict\); nothing written" import --strict -o "$T/strict.json" "$T/mixed.txt"
check "--strict left the old output alone" [ "$(cat "$T/strict.json")" = keep ]
# nothing recognised at all
printf 'hello\nworld\n' >"$T/junk.txt"
expect 2 "junk.txt: no line matches any known format" import -o "$T/j.json" "$T/junk.txt"
check "no output written for junk" [ ! -e "$T/j.json" ]
expect 2 "no run found in the input" import --format ftp -o "$T/j.json" "$T/junk.txt"
check "junk.txt:1:1 named with --format" grep -q "junk.txt:1:1: not recognised as ftp output: hello" "$T/out"
# a bad second file: nothing from the first is written either
expect 2 "nosuch.txt: No such file" import -o "$T/k.json" "$F/np.out" "$T/nosuch.txt"
check "no output written after a bad file" [ ! -e "$T/k.json" ]
expect 2 "unknown format 'ttcp'" import --format ttcp "$F/np.out"
expect 2 "needs --size" import --format times "$F/times.txt"
expect 0 "times.txt: times: 3 runs" import --size 1M --label slow -o "$T/t.json" "$F/times.txt"
check "times: label and size applied" \
	[ "$(xs_json "$T/t.json" '(d["sets"][0]["label"], d["sets"][0]["runs"][0]["bytes"])')" = "('slow', 1048576)" ]
# standard input and output
"$XFERSTAT" import --format csv - <"$F/data.csv" >"$T/stdout.json" 2>"$T/err"
check "import from stdin to stdout" [ "$(xs_json "$T/stdout.json" '[s["label"] for s in d["sets"]]')" = "['irqtune off', 'irqtune on']" ]
# -v tells why a line carries no run
expect 0 "nuttcp-interval.txt:1:3: no run: interval line" import -v -o "$T/ni.json" "$F/nuttcp-interval.txt"
# run over file:// (libcurl moves the data before its pretransfer mark:
# the data phase must still be measured, not the 1 us floor).
head -c 4194304 /dev/urandom >"$T/src.bin"
expect 0 "file://$T/src.bin \(get, 2 runs\)" run -n 2 -o "$T/file.json" "file://$T/src.bin"
check "file:// gets: 4194304 bytes, a data phase above the 1 us floor" \
	[ "$(xs_json "$T/file.json" 'all(r["bytes"] == 4194304 and r["seconds"] > 2e-6 for r in d["sets"][0]["runs"])')" = True ]
expect 0 "\(put, 1 run\)" run -n 1 --put --size 3M --pattern zero "file://$T/put.bin"
check "file:// put wrote 3 MiB of zeros" cmp -s -n 3145728 "$T/put.bin" /dev/zero
check "file:// put size" [ "$(stat -c %s "$T/put.bin")" -eq 3145728 ]
exit $xs_fail
