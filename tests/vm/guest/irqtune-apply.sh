#!/bin/sh
# Guest test (QEMU, 2 CPUs, threadirqs or PREEMPT_RT): the real irqtune on
# real 8250 UARTs and IRQ threads.  With ttyS1 held open (its IRQ thread
# irq/3-ttyS1 exists only then), `irqtune apply` sets irq/4-ttyS0 and
# irq/3-ttyS1 to SCHED_FIFO 90, IRQs 3 and 4 to CPU 1 and rx_trig_bytes to
# 1, each read back from the kernel; `irqtune restore` returns every value
# exactly; `pic` refuses on the IO-APIC.  It also prints `list --json`
# between markers, with the kernel's own view next to it, for the host
# wrapper (tests/irqtune-vm.sh) to compare.
# Exit: 0 pass, 1 fail, 77 skip.
set -u
export LC_ALL=C
I=/usr/local/sbin/irqtune
failed=0
fail() { echo "FAIL: $*"; failed=1; }
command -v chrt >/dev/null || { echo "SKIP: chrt not in the guest"; exit 77; }
[ -x $I ] || { echo "SKIP: $I not in the guest (pass it with --file)"; exit 77; }

# shellcheck source=SCRIPTDIR/proc-lib.sh
. "$(dirname "$0")/proc-lib.sh"
# Usage: snapshot -> one line with every value irqtune may touch
snapshot() {
	echo "S0=$(sched "$t4") S1=$(sched "$t3")" \
		"A4=$(cat /proc/irq/4/smp_affinity_list) A3=$(cat /proc/irq/3/smp_affinity_list)" \
		"R0=$(cat /sys/class/tty/ttyS0/rx_trig_bytes) R1=$(cat /sys/class/tty/ttyS1/rx_trig_bytes)"
}
expect() { # expect WHAT GOT WANT
	if [ "$2" = "$3" ]; then echo "ok: $1 = $2"; else fail "$1 is '$2', want '$3'"; fi
}

echo "kernel: $(uname -r); cmdline: $(cat /proc/cmdline); realtime: $(cat /sys/kernel/realtime 2>/dev/null || echo 0)"
echo "CPUs: $(grep -c ^processor /proc/cpuinfo)"
exec 3<>/dev/ttyS1 # keep ttyS1 open: irq/3-ttyS1 lives only while it is
t4=$(tid irq/4-ttyS0)
t3=$(tid irq/3-ttyS1)
echo "threads: irq/4-ttyS0=${t4:-none} irq/3-ttyS1=${t3:-none}"
[ -n "$t4" ] && [ -n "$t3" ] || { ps; echo "FAIL: IRQ threads missing"; exit 1; }

before=$(snapshot)
echo "before:  $before"
cat >/etc/irqtune.conf <<'CONF'
prio 90
match name=ttyS*
	cpus 1
	rx_trigger 1
CONF

# dry run: exactly the expected plan, and nothing changes
$I apply --dry-run >dry.txt 2>&1
rc=$?
cat dry.txt
expect "apply --dry-run status" $rc 0
# the old values are the kernel's defaults, read here, not assumed
r0=$(cat /sys/class/tty/ttyS0/rx_trig_bytes)
r1=$(cat /sys/class/tty/ttyS1/rx_trig_bytes)
for want in "ttyS0: irq/4-ttyS0 priority fifo/50 -> fifo/90" \
	"ttyS1: irq/3-ttyS1 priority fifo/50 -> fifo/90" \
	"ttyS0: IRQ 4 affinity 0-1 -> 1" "ttyS1: IRQ 3 affinity 0-1 -> 1" \
	"ttyS0: rx_trig_bytes $r0 -> 1" "ttyS1: rx_trig_bytes $r1 -> 1"; do
	grep -qxF "$want" dry.txt || fail "dry run lacks '$want'"
done
[ "$(wc -l <dry.txt)" = 6 ] || fail "dry run prints more than the 6 changes"
expect "values after --dry-run" "$(snapshot)" "$before"

# apply, then read everything back from the kernel
$I apply >apply.txt 2>&1
rc=$?
cat apply.txt
expect "apply status" $rc 0
expect "irq/4-ttyS0" "$(sched "$t4")" SCHED_FIFO/90
expect "irq/3-ttyS1" "$(sched "$t3")" SCHED_FIFO/90
expect "IRQ 4 affinity" "$(cat /proc/irq/4/smp_affinity_list)" 1
expect "IRQ 3 affinity" "$(cat /proc/irq/3/smp_affinity_list)" 1
expect "ttyS0 rx_trig_bytes" "$(cat /sys/class/tty/ttyS0/rx_trig_bytes)" 1
expect "ttyS1 rx_trig_bytes" "$(cat /sys/class/tty/ttyS1/rx_trig_bytes)" 1
echo "state file:"
cat /run/irqtune/state || fail "no /run/irqtune/state"
echo "applied: $(snapshot)"

# a second apply with other values keeps the originals for restore
$I apply --prio 80 ttyS1 >/dev/null 2>&1 || fail "second apply failed"
expect "irq/3-ttyS1 after second apply" "$(sched "$t3")" SCHED_FIFO/80

# list --json for the host to compare with what the kernel says
echo "@@json-begin"
$I list --json
echo "@@json-end rc=$?"
echo "@@kernel-begin"
for t in 4 3; do echo "affinity $t $(cat /proc/irq/$t/smp_affinity_list)"; done
for s in ttyS0 ttyS1; do
	echo "tty $s irq=$(cat /sys/class/tty/$s/irq) type=$(cat /sys/class/tty/$s/type) rx=$(cat /sys/class/tty/$s/rx_trig_bytes)"
done
for n in irq/4-ttyS0 irq/3-ttyS1; do p=$(tid $n); echo "thread $n $p $(sched "$p")"; done
grep -E '^ *[34]:' /proc/interrupts | awk '{ s = 0; for (i = 2; i <= 3; i++) s += $i; print "count", $1, s }'
echo "@@kernel-end"

# restore: every value exactly as before
$I restore --dry-run >rdry.txt 2>&1
cat rdry.txt
grep -qxF "ttyS1: irq/3-ttyS1 priority fifo/80 -> fifo/50" rdry.txt || fail "restore --dry-run does not go back to fifo/50"
$I restore >restore.txt 2>&1
rc=$?
cat restore.txt
expect "restore status" $rc 0
after=$(snapshot)
echo "after:   $after"
expect "values after restore" "$after" "$before"
[ ! -e /run/irqtune/state ] || fail "state file left after restore"

# the 1996 behaviour refuses on an IO-APIC
$I pic 3 14 >pic.txt 2>&1
rc=$?
cat pic.txt
expect "pic status" $rc 1
grep -q "is delivered by IO-APIC" pic.txt || fail "pic does not explain the IO-APIC"
grep -q "irqtune apply" pic.txt || fail "pic does not point to apply"

exec 3>&-
[ $failed = 0 ] && echo PASS
exit $failed
