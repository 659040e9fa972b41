# tests/ceiling.sh: time ceilings that hold on a busy machine (sourced by
# tests/lib.sh and tests/vm/vm-common.sh; the guests have their own in
# tests/vm/guest-lib.sh, since they see only what is copied in).
#
# A test waits for events (a line in a log, bytes on a pty, a guest's
# result file).  When it must give up at some point, that point is a
# ceiling far above what the wait takes on an idle machine, and
# multiplied by IRNET_TEST_SLOWDOWN: a positive number, 1 when unset,
# that bootstrap.sh check measures at its start (tests/slowdown.sh) when
# the caller has not set it.  So a machine that is twice as slow (a
# compile or QEMU guests beside the check) moves every ceiling out too,
# and no test fails for running slowly.
#
# SPDX-License-Identifier: GPL-2.0-or-later

# ceiling SECONDS: prints SECONDS x IRNET_TEST_SLOWDOWN in whole seconds
# (rounded up).  A factor that is not a positive number counts as 1, with
# a warning on stderr naming it.
ceiling() {
	awk -v s="$1" -v f="${IRNET_TEST_SLOWDOWN:-1}" 'BEGIN {
		if (f !~ /^[0-9]*\.?[0-9]+$/ || f + 0 <= 0) {
			printf "IRNET_TEST_SLOWDOWN=\"%s\" is not a positive number: using 1\n", f > "/dev/stderr"
			f = 1
		}
		v = s * f
		r = int(v)
		if (r < v) r++
		print r
	}'
}
