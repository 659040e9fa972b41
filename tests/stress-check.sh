#!/bin/bash
# stress-check.sh: runs the whole check (./bootstrap.sh check) while a
# loader keeps every core busy, to show that no test fails for running
# slowly on a machine that another heavy job shares.
#
# Usage: tests/stress-check.sh [-l LOADERS] [-n] [-c DIR] [-o LOG]
#   -l LOADERS  busy processes beside the check (default: one per core,
#               at the check's own priority, so it gets about half the
#               machine it would have alone)
#   -n          do not let the check measure the slowdown: run it with
#               IRNET_TEST_SLOWDOWN=1, so only the tests' own ceilings
#               stand between a slow machine and a failure
#   -c DIR      check a fresh clone of this tree's HEAD in DIR (removed
#               first if it exists) instead of the tree itself, as CI does
#   -o LOG      the check's output (default: stress-check.log in the
#               tree that is checked)
# The loader is a set of shell busy loops, not a benchmark: they take CPU
# time and nothing else.  It is stopped when the check ends or this
# script is interrupted.  The last lines are the check's summary, its
# wall time and the load average seen; the exit status is the check's.
#
# SPDX-License-Identifier: GPL-2.0-or-later
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
loaders=$(nproc)
calibrate=1
clone=
log=

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while getopts l:nc:o:h opt; do
	case $opt in
	l) loaders=$OPTARG ;;
	n) calibrate=0 ;;
	c) clone=$OPTARG ;;
	o) log=$OPTARG ;;
	h) usage 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "stress-check.sh: unexpected argument '$1'" >&2; usage; }
case $loaders in '' | *[!0-9]*) echo "stress-check.sh: -l wants a number of processes, got '$loaders'" >&2; exit 2 ;; esac

tree=$here
if [ -n "$clone" ]; then
	rm -rf -- "$clone"
	git clone -q "$here" "$clone" || { echo "stress-check.sh: cannot clone $here into $clone" >&2; exit 2; }
	tree=$(cd "$clone" && pwd)
fi
log=${log:-$tree/stress-check.log}

pids=()
stop_loaders() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
}
trap 'stop_loaders; exit 130' INT TERM
trap stop_loaders EXIT

for ((i = 0; i < loaders; i++)); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
echo "stress-check: $loaders busy loop(s) on $(nproc) core(s); checking $tree (log: $log)"

env=()
[ "$calibrate" = 1 ] || env=(IRNET_TEST_SLOWDOWN=1)
t0=$SECONDS
(cd "$tree" && env "${env[@]}" ./bootstrap.sh check) >"$log" 2>&1
rc=$?
took=$((SECONDS - t0))
load=$(cut -d' ' -f1-3 /proc/loadavg)
stop_loaders

grep -E '^== .*IRNET_TEST_SLOWDOWN|^the ten slowest' -A10 "$log" | grep -v '^--$' | head -14
tail -1 "$log"
printf 'stress-check: exit %d, %d min %d s wall clock under %d busy loop(s); load average at the end %s\n' \
	"$rc" $((took / 60)) $((took % 60)) "$loaders" "$load"
exit "$rc"
