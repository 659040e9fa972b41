#!/bin/sh
# Benchmark (make bench): "the 1996 experiment in modern form".  In a
# QEMU (TCG, 2 CPUs, threadirqs) guest, 16 KiB go from the host into
# ttyS1 (115200, raw) while a SCHED_FIFO 80 load keeps the UART's CPU busy
# 80 % of every 10 ms: 10 times without irqtune (irq/3-ttyS1 at the
# default FIFO 50) and 10 times with it (FIFO 90), interleaved, plus an
# unloaded baseline.  Prints mean and SD of the receive time (first byte
# to last) of each set and the ratio without/with as `bench:` lines.
# Timings never fail it; a VM that does not run or a run that loses
# bytes does.  IRQTUNE_BENCH_RUNS (10) and IRQTUNE_BENCH_BASELINE (3)
# change the counts; IRQTUNE_BENCH_KEEP=1 keeps the guest's log.
set -u
: "${top_srcdir:=.}"
: "${abs_top_srcdir:=$(cd "$top_srcdir" && pwd)}"
: "${abs_top_builddir:=$(pwd)}"
vmdir=$abs_top_srcdir/tests/vm
VM_PROG=irqtune-bench
. "$vmdir/vm-common.sh"
for tool in qemu-system-x86_64 busybox cpio python3; do
	vm_have "$tool" || { echo "irqtune-bench: SKIP: $tool is not installed"; exit 0; }
done
"$vmdir/fetch-kernels.sh" --print-dir generic >/dev/null 2>&1 ||
	"$vmdir/fetch-kernels.sh" >/dev/null || { echo "irqtune-bench: SKIP: no kernel"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/irqtune-bench.XXXXXX")
sock=$work/ttyS1.sock
runs=${IRQTUNE_BENCH_RUNS:-10}
base=${IRQTUNE_BENCH_BASELINE:-3}

# The host side of ttyS1: send 16 KiB each time the guest says READY.
python3 - "$sock" >"$work/feeder.log" 2>&1 <<'PY' &
import os, socket, sys, time
path = sys.argv[1]
payload = bytes(range(256)) * 64
deadline = time.time() + 120
while not os.path.exists(path):
    if time.time() > deadline:
        sys.exit("no socket")
    time.sleep(0.05)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
buf, sent = b"", 0
while True:
    d = s.recv(4096)
    if not d:
        break
    buf += d
    while b"READY\n" in buf:
        buf = buf.split(b"READY\n", 1)[1]
        s.sendall(payload)
        sent += 1
print("sent", sent, "payloads")
PY
feeder=$!
rc=0
"$vmdir/qemu-run.sh" --kernel generic -t 600 -r "$work/res" \
	--qemu-arg -smp --qemu-arg 2 \
	--qemu-arg -chardev --qemu-arg "socket,id=s1,path=$sock,server=on,wait=off" \
	--qemu-arg -serial --qemu-arg chardev:s1 \
	-e IRQTUNE_BENCH_RUNS="$runs" -e IRQTUNE_BENCH_BASELINE="$base" \
	--file "$abs_top_builddir/irqtune/irqtune=/usr/local/sbin/irqtune" \
	--file "$abs_top_builddir/irqtune/serial-bench=/usr/local/bin/serial-bench" \
	"$vmdir/guest/irqtune-bench.sh" >"$work/run.out" 2>&1 || rc=$?
kill $feeder 2>/dev/null
wait $feeder 2>/dev/null
if [ $rc -ne 0 ]; then
	cat "$work/run.out"
	echo "irqtune-bench: the guest failed (status $rc); results in $work" >&2
	exit 1
fi
python3 - "$work/res/irqtune-bench.log" <<'PY' || { echo "results in $work" >&2; exit 1; }
import re, statistics, sys
t = {}
for m in re.finditer(r"^result (\w+) \d+ bytes=(\d+) us=(\d+) overrun=(\d+)", open(sys.argv[1]).read(), re.M):
    if int(m.group(2)) != 16384:
        sys.exit(f"a {m.group(1)} run received {m.group(2)} of 16384 bytes")
    t.setdefault(m.group(1), []).append(int(m.group(3)) / 1000.0)
def line(name, v, unit):
    print(f"bench: {name} {v:.2f} {unit}")
for cond in ("unloaded", "without", "with"):
    v = t.get(cond, [])
    if not v:
        sys.exit(f"no {cond} runs in the log")
    label = {"unloaded": "irqtune-serial16k-unloaded",
             "without": "irqtune-serial16k-load-without-irqtune",
             "with": "irqtune-serial16k-load-with-irqtune"}[cond]
    line(label + "-mean", statistics.mean(v), "ms")
    line(label + "-sd", statistics.stdev(v) if len(v) > 1 else 0.0, "ms")
    print(f"bench: {label}-runs {len(v)} runs")
line("irqtune-serial16k-ratio-without-over-with",
     statistics.mean(t["without"]) / statistics.mean(t["with"]), "x")
PY
if [ -n "${IRQTUNE_BENCH_KEEP:-}" ]; then echo "irqtune-bench: log in $work/res/irqtune-bench.log"; else rm -rf "$work"; fi
