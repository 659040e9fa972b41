#!/bin/sh
# Guest half of tests/irqtune-bench.sh ("the 1996 experiment in modern
# form"; QEMU, 2 CPUs, threadirqs).  IRQ 3 (ttyS1) is on CPU 1 in every
# run.  For each run the guest's serial-bench sink opens ttyS1, says
# READY, and times 16 KiB that the host sends (first byte to last); the
# reader runs on CPU 0.
# Runs: an unloaded baseline, then alternately "without" (a SCHED_FIFO 80
# load busy 80 % of every 10 ms on CPU 1, irq/3-ttyS1 at the default
# FIFO 50) and "with" (the same load after `irqtune apply`, which puts
# irq/3-ttyS1 at FIFO 90).  Prints one "result COND N bytes=.. us=.."
# line per run.  Exit: 0 every run received all its bytes, 1 otherwise.
set -u
B=/usr/local/bin/serial-bench
I=/usr/local/sbin/irqtune
RUNS=${IRQTUNE_BENCH_RUNS:-10}
BASE=${IRQTUNE_BENCH_BASELINE:-3}
[ -x $B ] && [ -x $I ] || { echo "SKIP: serial-bench or irqtune not in the guest"; exit 77; }
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] || { echo "SKIP: needs 2 CPUs"; exit 77; }
exec 3<>/dev/ttyS1 # irq/3-ttyS1 exists while ttyS1 is open
echo 1 >/proc/irq/3/smp_affinity_list || { echo "FAIL: cannot move IRQ 3 to CPU 1"; exit 1; }
printf 'prio 90\nmatch name=ttyS1\n\tcpus 1\n' >/etc/irqtune.conf
failed=0
# The reader runs on CPU 0, away from the load: what differs between the
# conditions is only the priority of irq/3-ttyS1 on CPU 1.
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
run() { # run COND N
	out=$($pin $B sink /dev/ttyS1 16384 60) || failed=1
	echo "result $1 $2 $out"
}
thread() { for d in /proc/[0-9]*; do read -r c <"$d/comm" 2>/dev/null && [ "$c" = irq/3-ttyS1 ] && chrt -p "${d#/proc/}" | tr '\n' ' '; done; }

i=1
while [ $i -le "$BASE" ]; do run unloaded $i; i=$((i + 1)); done
$B load 1 80 80 10000 600 &
loadpid=$!
i=1
while [ $i -le "$RUNS" ]; do
	echo "without: $(thread)"
	run without $i
	$I -q apply ttyS1 || failed=1
	echo "with: $(thread)"
	run with $i
	$I -q restore || failed=1
	i=$((i + 1))
done
kill $loadpid
wait $loadpid 2>/dev/null
exec 3>&-
exit $failed
