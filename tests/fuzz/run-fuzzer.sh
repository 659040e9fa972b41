#!/bin/sh
# Run one libFuzzer harness for $FUZZ_SECONDS seconds, starting from its
# seed corpus tests/fuzz/corpus/NAME (NAME = the harness's file name).
# New inputs go to a scratch corpus, never into the source tree.  A crash,
# leak or sanitizer report makes the fuzzer exit non-zero: the test fails
# and the reproducer is kept next to the log.
set -eu
fuzzer=$1
name=$(basename "$fuzzer")
seconds=${FUZZ_SECONDS:-10}
seeds="${top_srcdir:-.}/tests/fuzz/corpus/$name"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-$name.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/corpus"
set -- "$scratch/corpus"
[ -d "$seeds" ] && set -- "$@" "$seeds"
echo "fuzzing $name for ${seconds}s (seeds: $seeds)"
"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="./$name-crash-" "$@"
