#!/bin/sh
# slowdown.sh: measures how much slower than an idle machine this one
# runs right now, and prints it as a factor for IRNET_TEST_SLOWDOWN
# (tests/ceiling.sh).  bootstrap.sh check runs it once at its start when
# IRNET_TEST_SLOWDOWN is not set.
#
# The probe is a fixed CPU-bound loop, run three times: on an idle core
# its wall-clock time equals its CPU time; when other work shares the
# cores it waits for a turn, and wall / CPU says by how much.  The
# median of the three is printed, never below 1, with one decimal.
#
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
# about half a second of one core
probe() {
	awk 'BEGIN { for (i = 0; i < 8000000; i++) x += i % 7 }' </dev/null
}
ratios=
for i in 1 2 3; do
	t0=$(date +%s.%N)
	# the shell's children's CPU time (cutime + cstime) before and after
	c0=$(awk '{ print $16 + $17 }' /proc/$$/stat)
	probe
	c1=$(awk '{ print $16 + $17 }' /proc/$$/stat)
	t1=$(date +%s.%N)
	ratios="$ratios $(awk -v t0="$t0" -v t1="$t1" -v c0="$c0" -v c1="$c1" \
		-v hz="$(getconf CLK_TCK)" 'BEGIN {
		cpu = (c1 - c0) / hz
		wall = t1 - t0
		printf "%.3f", (cpu > 0 ? wall / cpu : 1)
	}')"
done
printf '%s\n' $ratios | sort -n | sed -n 2p | awk '{ f = $1 < 1 ? 1 : $1; printf "%.1f\n", f }'
