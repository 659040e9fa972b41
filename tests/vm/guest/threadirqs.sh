#!/bin/sh
# Guest test (QEMU, kernel booted with threadirqs): the 8250 console port
# ttyS0 has its IRQ 4 handled by a thread named exactly irq/4-ttyS0,
# whose real-time priority can be raised to SCHED_FIFO 90 and read back.
# Exit: 0 pass, 1 fail, 77 skip.
set -eu
export LC_ALL=C

IRQ=4
THREAD=irq/$IRQ-ttyS0

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v chrt >/dev/null || { echo "SKIP: chrt not in the guest"; exit 77; }
case " $(cat /proc/cmdline) " in
*" threadirqs "*) ;;
*) fail "kernel command line lacks threadirqs: $(cat /proc/cmdline)" ;;
esac

# Usage: find_thread NAME -> the PIDs whose comm is exactly NAME. An exact
# match, so irq/4- can never match irq/40-... or irq/4-ttyS0x.
find_thread() {
	for _d in /proc/[0-9]*; do
		read -r _comm <"$_d/comm" 2>/dev/null || continue
		[ "$_comm" != "$1" ] || echo "${_d#/proc/}"
	done
}

pids=$(find_thread "$THREAD")
echo "threads named $THREAD: ${pids:-none}"
[ -n "$pids" ] || { ps; fail "no $THREAD thread"; }
[ "$(echo "$pids" | wc -l)" -eq 1 ] || fail "more than one $THREAD thread"
pid=$pids

irq=$(cat /sys/class/tty/ttyS0/irq)
echo "/sys/class/tty/ttyS0/irq: $irq"
[ "$irq" = "$IRQ" ] || fail "ttyS0 uses IRQ $irq, not $IRQ"
[ -d "/proc/irq/$IRQ/ttyS0" ] || fail "/proc/irq/$IRQ has no ttyS0 handler"

echo "before: $(chrt -p "$pid" | tr '\n' ' ')"
chrt -f -p 90 "$pid" || fail "chrt -f -p 90 $pid failed"
after=$(chrt -p "$pid")
echo "after:  $(echo "$after" | tr '\n' ' ')"
echo "$after" | grep -q "scheduling policy: SCHED_FIFO\$" || fail "policy is not SCHED_FIFO"
echo "$after" | grep -q "scheduling priority: 90\$" || fail "priority is not 90"
echo PASS
