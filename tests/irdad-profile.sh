#!/bin/sh
# Not a test: a helper to see where irdad's CPU goes (docs/irdad.md,
# "Where irdad's CPU goes").  One run of irdad-bench.sh's stream case
# (irspray --daemon, 12 4096-byte writes echoed, through two irdad on one
# irwire at 115200; other irspray arguments may replace those) with a
# command attached to both irdad during the transfer; {pids} in it
# becomes their process ids, comma-separated.  Prints the payload moved,
# the rate, both irdad's CPU (schedstat) and context switches per MiB.
# From the build directory:
#   top_srcdir=.. sh ../tests/irdad-profile.sh [IRSPRAY ARGS] -- \
#     perf stat -e task-clock,context-switches,raw_syscalls:sys_enter -p {pids}
#   top_srcdir=.. sh ../tests/irdad-profile.sh -- \
#     perf record -g -o irdad.perf -p {pids}
set -u
: "${abs_top_builddir:=$(pwd)}"
PYTHON=${PYTHON:-/usr/bin/python3}
exec "$PYTHON" - "$abs_top_builddir" "$@" <<'PYEOF'
import os, re, signal, subprocess, sys, tempfile, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig

top, args = sys.argv[1], sys.argv[2:]
wrap = args[args.index("--") + 1:] if "--" in args else []
opts = args[:args.index("--")] if "--" in args else args
spray = opts or ["-n", "12", "-b", "4096", "--stream"]
irwire, irspray, irdad = irwire_rig.built(top, "irdad-profile", "irnet/tools/irwire",
                                          "irnet/tools/irspray", "irnet/tools/irdad")
STATION = ["--min-turnaround", "10"]
tmp = tempfile.mkdtemp(prefix="irdad-profile.")
wire, ptys = irwire_rig.start(irwire)

def cpu_s(pid):
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0]) / 1e9

def switches(pid):
    """Voluntary and involuntary context switches: the wake-ups."""
    with open("/proc/%d/status" % pid) as f:
        return sum(int(l.split()[1]) for l in f if "ctxt_switches" in l)

ds = []
for side in ("a", "b"):
    ds.append(subprocess.Popen([irdad, "-D", ptys[side], "--socket", os.path.join(tmp, side + ".sock"),
                                "--lock-dir", "", "--nickname", "prof" + side, "--log", "stderr",
                                "-v"] + STATION,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    while "serving" not in ds[-1].stderr.readline():
        pass
lst = subprocess.Popen([irspray, "--listen", "--daemon", os.path.join(tmp, "b.sock")],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
lst.stdout.readline()
w = None
if wrap:
    pids = ",".join(str(d.pid) for d in ds)
    w = subprocess.Popen([a.replace("{pids}", pids) for a in wrap])
    time.sleep(0.5)
c0 = sum(cpu_s(d.pid) for d in ds)
x0 = sum(switches(d.pid) for d in ds)
p = subprocess.run([irspray, "--timeout", "60"] + STATION +
                   ["--daemon", os.path.join(tmp, "a.sock")] + spray,
                   capture_output=True, text=True)
c1 = sum(cpu_s(d.pid) for d in ds)
x1 = sum(switches(d.pid) for d in ds)
if w:
    w.send_signal(signal.SIGINT)
    w.wait()
total = re.search(r"^Total (\d+) bytes", p.stdout, re.M)
rate = re.search(r"\((\d+) bytes/s payload", p.stdout)
for q in [lst] + ds + [wire]:
    q.terminate()
    q.wait()
if p.returncode != 0 or not total:
    sys.exit("irdad-profile: irspray failed (exit %d): %s" % (p.returncode, p.stderr.strip()))
mib = int(total.group(1)) / 1048576.0
print("moved %s bytes at %s bytes/s; irdad CPU %.3f s = %.3f s/MiB; %d switches = %.0f /MiB" % (
    total.group(1), rate.group(1) if rate else "?", c1 - c0, (c1 - c0) / mib, x1 - x0,
    (x1 - x0) / mib))
PYEOF
