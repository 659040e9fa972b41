#!/bin/sh
# Every input kept in tests/fuzz/corpus/NAME/ (the seeds, what `make
# fuzz` found that adds coverage, and every crasher it ever found, as
# crash-*/leak-*/timeout-*/oom-*) runs once through harness NAME: a
# libFuzzer binary in build-clang, tests/fuzz/replay_main.c's main()
# elsewhere; under ASan+UBSan in the sanitizer build (SANITIZER_TESTS).
# A corpus directory without its harness fails: nothing goes unreplayed.
. "${top_srcdir:-.}/tests/lib.sh"
corpus="$top_srcdir/tests/fuzz/corpus"
[ -d "$corpus" ] || { echo "FAIL: no $corpus"; exit 1; }
failed=0 harnesses=0 inputs=0 crashers=0
for dir in "$corpus"/*/; do
	name=$(basename "$dir")
	bin="$abs_top_builddir/tests/fuzz/$name"
	if [ ! -x "$bin" ]; then
		echo "FAIL: $name: no harness $bin for its corpus"
		failed=1
		continue
	fi
	n=$(find "$dir" -maxdepth 1 -type f | wc -l)
	c=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) | wc -l)
	[ "$n" -gt 0 ] || { echo "FAIL: $name: empty corpus"; failed=1; continue; }
	if find "$dir" -maxdepth 1 -type f -print0 | xargs -0 "$bin" >"$name.replay.log" 2>&1; then
		echo "ok: $name: $n inputs ($c crashers kept)"
	else
		echo "FAIL: $name: an input failed (tail of $name.replay.log):"
		tail -n 20 "$name.replay.log"
		failed=1
	fi
	rm -f "$name.replay.log"
	harnesses=$((harnesses + 1)) inputs=$((inputs + n)) crashers=$((crashers + c))
done
echo "replayed $inputs inputs ($crashers crashers) through $harnesses harnesses"
exit $failed
