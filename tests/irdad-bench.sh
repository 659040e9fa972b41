#!/bin/sh
# Benchmark (make bench): irspray through irdad's local API against
# irspray owning the port, side by side on one irwire at 115200 with a
# 10 us turnaround (as tests/irspray-bench.sh), and irdad's CPU cost.
#   - `bench: irspray_daemon_ratio_to_direct R ratio` (target >= 0.98):
#     payload bytes/s of `irspray --daemon` (a sender through irdad on
#     one side, `irspray --listen --daemon` through irdad on the other)
#     over that of irspray owning both ports, for SAR 2000-byte SDUs
#     echoed and a stream of 4096-byte writes echoed; each case runs the
#     two ways alternately, ROUNDS times, and the medians are compared;
#     the rates are printed too (`..._direct`, `..._daemon` bytes/s);
#   - `bench: irdad_cpu_s_per_mib X s/MiB` (target <= 0.5): user+system
#     CPU of both irdad (/proc/PID/stat before and after) per MiB of
#     payload moved (both ways), over the stream runs (4096-byte writes);
#   - `bench: irdad_wakeups_per_mib N per_MiB`: context switches of both
#     irdad (/proc/PID/status) per MiB over the same runs: the wake-ups,
#     which are most of that CPU (docs/irdad.md, "Where irdad's CPU goes").
# Timings never fail it; a failed transfer does.
set -u
: "${abs_top_builddir:=$(pwd)}"
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "irdad-bench: SKIP: python3 not found"; exit 0; }
exec "$PYTHON" - "$abs_top_builddir" <<'PYEOF'
import os, re, shutil, statistics, subprocess, sys, tempfile, time
sys.dont_write_bytecode = True   # nothing written into the source tree
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig

top = sys.argv[1]
irwire, irspray, irdad = irwire_rig.built(top, "irdad-bench", "irnet/tools/irwire",
                                          "irnet/tools/irspray", "irnet/tools/irdad")
ROUNDS = int(os.environ.get("IRDAD_BENCH_ROUNDS", "3"))
STATION = ["--min-turnaround", "10"]
tmp = tempfile.mkdtemp(prefix="irdad-bench.")
wire, ptys = irwire_rig.start(irwire)

def cpu_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def switches_of(pid):
    with open("/proc/%d/status" % pid) as f:
        return sum(int(l.split()[1]) for l in f if "ctxt_switches" in l)

def wait_line(proc, prefix, what):
    line = proc.stdout.readline()
    if not line.startswith(prefix):
        sys.exit("irdad-bench: %s did not start (%r)" % (what, line))

def stop(*procs):
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait()

def sender(args):
    p = subprocess.run([irspray, "--timeout", "60"] + STATION + args,
                       capture_output=True, text=True)
    m = re.search(r"^Efficiency .*\((\d+) bytes/s payload", p.stdout, re.M)
    t = re.search(r"^Total (\d+) bytes", p.stdout, re.M)
    if p.returncode != 0 or not m or not t:
        sys.exit("irdad-bench: irspray %s failed (exit %d): %s" % (
            " ".join(args), p.returncode, p.stderr.strip()))
    return int(m.group(1)), int(t.group(1))

def direct(args):
    lst = subprocess.Popen([irspray, "--listen", "-D", ptys["b"], "--lock-dir", ""] + STATION,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wait_line(lst, "listening on", "irspray --listen")
    rate, _ = sender(["-D", ptys["a"], "--lock-dir", ""] + args)
    stop(lst)
    return rate

def daemon(args):
    """One run through two irdad; the rate, payload bytes, irdad CPU s,
    irdad context switches."""
    ds = []
    for side in ("a", "b"):
        sock = os.path.join(tmp, side + ".sock")
        ds.append(subprocess.Popen([irdad, "-D", ptys[side], "--socket", sock, "--lock-dir", "",
                                    "--nickname", "bench" + side, "--log", "stderr", "-v"] +
                                   STATION,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        while "serving" not in ds[-1].stderr.readline():
            pass
    lst = subprocess.Popen([irspray, "--listen", "--daemon", os.path.join(tmp, "b.sock")],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wait_line(lst, "listening on", "irspray --listen --daemon")
    c0 = sum(cpu_of(d.pid) for d in ds)
    x0 = sum(switches_of(d.pid) for d in ds)
    rate, total = sender(["--daemon", os.path.join(tmp, "a.sock")] + args)
    c1 = sum(cpu_of(d.pid) for d in ds)
    x1 = sum(switches_of(d.pid) for d in ds)
    stop(lst)
    stop(*ds)
    return rate, total, c1 - c0, x1 - x0

cases = [("sar_bidir_2000", ["-n", "15", "-b", "2000"]),
         ("stream_bidir_4096", ["-n", "12", "-b", "4096", "--stream"])]
ratios = []
cpu = mib = wakeups = 0.0
for name, args in cases:
    d_rates, a_rates = [], []
    for _ in range(ROUNDS):
        d_rates.append(direct(args))
        rate, total, c, x = daemon(args)
        a_rates.append(rate)
        if "--stream" in args:
            cpu += c
            wakeups += x
            mib += total / 1048576.0
    d, a = statistics.median(d_rates), statistics.median(a_rates)
    print("bench: irspray_%s_direct %.0f bytes/s" % (name, d))
    print("bench: irspray_%s_daemon %.0f bytes/s" % (name, a))
    print("bench: irspray_daemon_ratio_%s %.3f ratio" % (name, a / d))
    ratios.append(a / d)
print("bench: irspray_daemon_ratio_to_direct %.3f ratio" % min(ratios))
print("bench: irdad_cpu_s_per_mib %.3f s/MiB" % (cpu / mib))
print("bench: irdad_wakeups_per_mib %.0f per_MiB" % (wakeups / mib))
stop(wire)
shutil.rmtree(tmp)
PYEOF
