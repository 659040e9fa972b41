#!/bin/sh
# timed-driver.sh: runs one of automake's test drivers (the rest of the
# command line) and writes the wall-clock seconds the test took next to
# its .trs file, as NAME.time ("SECONDS NAME").  bootstrap.sh check
# reads these to print the slowest tests at the end, so the time budget
# of the check stays visible as tests are added.
#
# Usage (from tests/local.mk): timed-driver.sh DRIVER... --trs-file F ...
#
# SPDX-License-Identifier: GPL-2.0-or-later
trs= name= prev=
for arg in "$@"; do
	case $prev in
	--trs-file) trs=$arg ;;
	--test-name) name=$arg ;;
	esac
	prev=$arg
done
start=$(date +%s.%N)
"$@"
rc=$?
if [ -n "$trs" ]; then
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" -v n="${name:-$trs}" \
		'BEGIN { printf "%.1f %s\n", e - s, n }' >"${trs%.trs}.time" || :
fi
exit "$rc"
