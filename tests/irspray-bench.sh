#!/bin/sh
# Benchmark (make bench): irspray over irwire at 115200 against the raw
# irwire line measured in the same run (bytes written raw into one pty,
# timed until all arrive at the other).  Cases: unidirectional 2000-byte
# SDUs, bidirectional 2000-byte SDUs, unidirectional and bidirectional
# 10-byte SDUs, two bidirectional streams; 4096-byte SDUs one way with
# SAR and as a TinyTP stream (--stream), a stream both ways, a SAR and a
# stream connection at once (--mixed).  Prints `bench: irspray_<case> RATIO ratio`
# (payload bytes/s over the raw line's bytes/s) and
# `bench: irspray_<case>_cpu S s/MiB` (user+system CPU of both
# processes per MiB of payload).  Timings never fail it; a failed
# transfer does.
#
# Both stations ask for a 10 us minimum turnaround (--min-turnaround 10):
# irwire's receivers are never blind (its --turnaround-us is 0), and 10 us
# is what ACTiSYS and LiteLink transceivers announce and Linux's floor.
# With the "none" dongle's 5 ms, every turn of the line costs 58 byte
# times more; the *_tat5ms lines show what that does to small SDUs.
# Without the option the stations take the 10 us irwire's ptys name
# (the *_default line).  The *_lowlat lines run on a second irwire with --low-latency
# (every byte handed up as it arrives, no 4-character receive timeout at
# the end of a burst): small SDUs are all turns of the line, and each
# turn waits for that timeout twice.
set -u
: "${abs_top_builddir:=$(pwd)}"
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "irspray-bench: SKIP: python3 not found"; exit 0; }
exec "$PYTHON" - "$abs_top_builddir" <<'PYEOF'
import os, re, resource, subprocess, sys, time
sys.dont_write_bytecode = True   # nothing written into the source tree
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig

top = sys.argv[1]
irwire = os.path.join(top, "irnet/tools/irwire")
irspray = os.path.join(top, "irnet/tools/irspray")
for prog in (irwire, irspray):
    if not os.access(prog, os.X_OK):
        sys.exit("irspray-bench: %s not built" % prog)
def start_wire(args):
    """An irwire with args; sets the global ptys."""
    global ptys
    w, ptys = irwire_rig.start(irwire, args)
    return w

wire = start_wire([])

def raw_line(nbytes=16000):
    fds = [irwire_rig.open_raw(ptys[k]) for k in ("a", "b")]
    data = bytes((i * 7) & 0xff for i in range(nbytes))
    t0 = time.monotonic()
    os.write(fds[0], data[:1])
    got = os.read(fds[1], 1)
    t0 = time.monotonic()
    os.write(fds[0], data[1:])
    while len(got) < nbytes:
        got += os.read(fds[1], 4096)
    dt = time.monotonic() - t0
    for fd in fds:
        os.close(fd)
    if got != data:
        sys.exit("irspray-bench: raw irwire line corrupted the data")
    return (nbytes - 1) / dt

def cpu_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

raw = raw_line()
print("bench: irwire_raw_115200 %.0f bytes/s" % raw)

def run_cases(station_args, cases, suffix):
    """Runs the cases against one listener; False if one failed."""
    ok = True
    lst = subprocess.Popen([irspray, "--listen", "-D", ptys["b"], "--lock-dir", ""] +
                           station_args,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if not lst.stdout.readline().startswith("listening on"):
        sys.exit("irspray-bench: listener did not start")
    for name, args in cases:
        l0 = cpu_of(lst.pid)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([irspray, "-D", ptys["a"], "--lock-dir", "", "--timeout", "60"] +
                           station_args + args, capture_output=True, text=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime) + cpu_of(lst.pid) - l0
        m = re.search(r"^Efficiency .*\((\d+) bytes/s payload", p.stdout, re.M)
        t = re.search(r"^Total (\d+) bytes", p.stdout, re.M)
        if p.returncode != 0 or not m or not t:
            print("irspray-bench: %s failed (exit %d): %s" % (name, p.returncode,
                                                             p.stderr.strip()))
            ok = False
            continue
        print("bench: irspray_%s%s %.3f ratio" % (name, suffix, int(m.group(1)) / raw))
        print("bench: irspray_%s%s_cpu %.3f s/MiB" % (name, suffix,
                                                    cpu / (int(t.group(1)) / 1048576.0)))
    lst.terminate()
    lst.wait()
    return ok and lst.returncode == 0

ok = run_cases(["--min-turnaround", "10"],
               [("unidir_2000", ["-d", "-n", "30", "-b", "2000"]),
                ("bidir_2000", ["-n", "15", "-b", "2000"]),
                ("unidir_10", ["-d", "-n", "2000", "-b", "10"]),
                ("bidir_10", ["-n", "1000", "-b", "10"]),
                ("streams2_2000", ["-n", "8", "-b", "2000", "--streams", "2"]),
                # TinyTP without SAR: the same PDUs on the wire as SAR's
                # segments (4096 = 2045 + 2045 + 6), so the same ratio.
                ("unidir_4096", ["-d", "-n", "15", "-b", "4096"]),
                ("stream_unidir_4096", ["-d", "-n", "15", "-b", "4096", "--stream"]),
                ("stream_bidir_2000", ["-n", "15", "-b", "2000", "--stream"]),
                ("mixed2_2000", ["-n", "8", "-b", "2000", "--streams", "2", "--mixed"])], "")
# The none dongle's 5 ms must be asked for: irwire's ptys name 10 us,
# which the stations take when given no option (the _default line).
ok = run_cases(["--min-turnaround", "5000"], [("unidir_10", ["-d", "-n", "600", "-b", "10"])],
               "_tat5ms") and ok
ok = run_cases([], [("unidir_10", ["-d", "-n", "2000", "-b", "10"])], "_default") and ok
wire.terminate()
wire.wait()

# The same small SDUs on a line whose receivers hand each byte up at once
# (irwire --low-latency: a 16550 with its receive trigger at 1 byte, as
# irqtune sets it), against that line's own raw rate.
wire = start_wire(["--low-latency"])
raw = raw_line()
print("bench: irwire_raw_115200_lowlat %.0f bytes/s" % raw)
ok = run_cases(["--min-turnaround", "10"],
               [("unidir_10", ["-d", "-n", "2000", "-b", "10"]),
                ("bidir_2000", ["-n", "15", "-b", "2000"])], "_lowlat") and ok
wire.terminate()
wire.wait()
sys.exit(0 if ok else 1)
PYEOF
