# tests/vm/guest/proc-lib.sh: what the irqtune guest tests read of the
# kernel's threads (sourced, not run; the QEMU initramfs guest of
# irqtune-apply.sh and the Debian guest of irqtune-boot.sh both have it
# next to the test).

# Usage: tid NAME -> the PID whose comm is exactly NAME
tid() {
	for _d in /proc/[0-9]*; do
		read -r _c <"$_d/comm" 2>/dev/null || continue
		[ "$_c" = "$1" ] && echo "${_d#/proc/}"
	done
}
# Usage: sched PID -> "SCHED_FIFO/50"
sched() { chrt -p "$1" | awk -F': ' '/policy/ { p = $2 } /priority/ { n = $2 } END { print p "/" n }'; }
