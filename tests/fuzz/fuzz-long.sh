#!/bin/sh
# fuzz-long.sh FUZZER...: `make fuzz FUZZ_SECONDS=N` (build-clang, configured
# with --enable-fuzzing).  Each harness runs for N seconds, one process
# (-jobs=1 at most: the machine is shared), from its corpus in the source
# tree, tests/fuzz/corpus/NAME.  Then:
#  - the new inputs that add coverage (edges, -use_counters=0: hit counts
#    would keep hundreds of files) are merged into the tree corpus
#    (-set_cover_merge=1: -merge=1 with a greedy smallest set), whose files
#    all stay: the hand-written seeds keep their names, and the tree grows
#    only by what the run found;
#  - a crasher (crash-, leak-, timeout-, oom- artifact) is copied into the
#    tree corpus under its libFuzzer name, where tests/fuzz-replay.sh
#    (`make check`) replays it from then on, and the run fails.
# One line per harness: `bench: fuzz_NAME_execs N execs` and its corpus
# size, from libFuzzer's final stats.
set -u
seconds=${FUZZ_SECONDS:-60}
src=${top_srcdir:-.}
fail=0
for fuzzer in "$@"; do
	name=$(basename "$fuzzer")
	tree="$src/tests/fuzz/corpus/$name"
	work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-long-$name.XXXXXX")
	mkdir -p "$tree" "$work/new" "$work/art"
	log="$fuzzer.fuzz-long.log"
	echo "== $name: ${seconds}s from $tree"
	"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
	    -artifact_prefix="$work/art/" "$work/new" "$tree" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	echo "bench: ${name}_execs ${execs:-0} execs"
	for a in "$work"/art/*; do
		[ -f "$a" ] || continue
		cp "$a" "$tree/"
		echo "$name: crasher kept as $tree/$(basename "$a") (see $log)"
		fail=1
	done
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		echo "$name: exit $rc without an artifact (see $log)"
		fail=1
	fi
	"$fuzzer" -set_cover_merge=1 -use_counters=0 "$tree" "$work/new" >>"$log" 2>&1 || {
		echo "$name: merge failed (see $log)"; fail=1; }
	echo "$name: corpus $(ls "$tree" | wc -l) files"
	rm -rf "$work"
done
exit $fail
