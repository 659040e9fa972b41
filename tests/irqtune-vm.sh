#!/bin/sh
# irqtune in QEMU (TCG) guests with real 8250 UARTs and IRQ threads: the
# generic Debian kernel booted with threadirqs, then the PREEMPT_RT one,
# each with 2 CPUs, running tests/vm/guest/irqtune-apply.sh (apply sets
# and reads back irq/4-ttyS0 and irq/3-ttyS1 priority, IRQ affinity and
# rx_trig_bytes; restore returns every value; pic refuses on the
# IO-APIC).  Then, on the host, `irqtune list --json` from each guest is
# compared with what the guest kernel reported in /proc and /sys.
# Exit: 0 pass, 1 fail, 77 skip (IRNET_VM_REQUIRE=1 turns skips into
# failures, as for the other VM tests).
set -u
: "${top_srcdir:=.}"
: "${abs_top_srcdir:=$(cd "$top_srcdir" && pwd)}"
: "${abs_top_builddir:=$(pwd)}"
vmdir=$abs_top_srcdir/tests/vm
VM_PROG=irqtune-vm
. "$vmdir/vm-common.sh"

for tool in qemu-system-x86_64 busybox cpio chrt python3; do
	vm_have "$tool" || vm_skip "$tool is not installed"
done
IRQTUNE=$abs_top_builddir/irqtune/irqtune
[ -x "$IRQTUNE" ] || vm_die 1 "$IRQTUNE not built"
for flavour in generic rt; do
	"$vmdir/fetch-kernels.sh" --print-dir $flavour >/dev/null 2>&1 ||
		"$vmdir/fetch-kernels.sh" --rt >/dev/null ||
		vm_skip "no cached $flavour kernel and fetch-kernels.sh --rt failed"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/irqtune-vm.XXXXXX")
failed=0
for flavour in generic rt; do
	rc=0
	"$vmdir/qemu-run.sh" --kernel $flavour -t 360 -r "$work/$flavour" \
		--qemu-arg -smp --qemu-arg 2 \
		--file "$IRQTUNE=/usr/local/sbin/irqtune" \
		--file "$vmdir/guest/proc-lib.sh" \
		"$vmdir/guest/irqtune-apply.sh" >"$work/$flavour.out" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: $flavour kernel: guest test (status $rc)"
		cat "$work/$flavour.out"
		failed=1
		continue
	fi
	echo "ok: $flavour kernel: apply, read-back, restore, pic refusal"
	if python3 - "$work/$flavour/irqtune-apply.log" $flavour <<'PY'; then
import json, re, sys
log = open(sys.argv[1]).read()
rt = sys.argv[2] == "rt"
j = json.loads(log.split("@@json-begin\n")[1].split("@@json-end")[0])
k = log.split("@@kernel-begin\n")[1].split("@@kernel-end")[0].splitlines()
bad = []
def want(what, got, exp):
    if got != exp:
        bad.append(f"{what}: list --json says {got!r}, the kernel {exp!r}")
ports = {p["name"]: p for p in j["ports"]}
want("ports (type-0 slots ttyS2, ttyS3 skipped)", sorted(ports), ["ttyS0", "ttyS1"])
want("threaded_irqs", j["threaded_irqs"], True)
want("preempt_rt", j["preempt_rt"], rt)
for line in k:
    f = line.split()
    if f[0] == "affinity":
        p = ports["ttyS0" if f[1] == "4" else "ttyS1"]
        want(f"IRQ {f[1]} affinity", p["irq"]["affinity"], f[2])
    elif f[0] == "tty":
        v = dict(x.split("=") for x in f[2:])
        p = ports[f[1]]
        want(f"{f[1]} irq", p["irq"]["irq"], int(v["irq"]))
        want(f"{f[1]} uart_type", p["uart_type"], int(v["type"]))
        want(f"{f[1]} rx_trig_bytes", p["rx_trig_bytes"], int(v["rx"]))
    elif f[0] == "thread":
        p = ports["ttyS0" if f[1] == "irq/4-ttyS0" else "ttyS1"]
        t = [x for x in p["irq"]["threads"] if x["name"] == f[1]]
        want(f"{f[1]} listed once", len(t), 1)
        if t:
            pol, prio = f[3].split("/")
            want(f"{f[1]} pid", t[0]["pid"], int(f[2]))
            want(f"{f[1]} policy", "SCHED_" + t[0]["policy"].upper(), pol)
            want(f"{f[1]} priority", t[0]["priority"], int(prio))
    elif f[0] == "count":
        irq = int(f[1].rstrip(":"))
        p = ports["ttyS0" if irq == 4 else "ttyS1"]
        n = p["irq"]["interrupts"]
        # the kernel's count was read after the list: never smaller
        if not (isinstance(n, int) and 0 <= n <= int(f[2])):
            bad.append(f"IRQ {irq} interrupts: list --json {n}, /proc later {f[2]}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
		echo "ok: $flavour kernel: list --json agrees with /proc and /sys"
	else
		echo "FAIL: $flavour kernel: list --json disagrees (log: $work/$flavour/irqtune-apply.log)"
		failed=1
	fi
done
if [ $failed = 0 ]; then
	rm -rf "$work"
	echo PASS
	exit 0
fi
echo "results kept in $work"
exit 1
