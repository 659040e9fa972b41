#!/bin/sh
# make bench: libirsock.so's cost on the data path (docs/irsock.md).
# On one irwire at 115200, both stations asking a 10 us turnaround:
#   - a TinyTP stream echoed, 2000-byte writes, 60000 bytes each way:
#     irspray owning both ports (direct) against tests/irsock_classic under
#     irsock through two irdad, alternately, IRSOCK_BENCH_ROUNDS (3) rounds
#     each, medians compared (both figures count the bytes of both ways);
#   - Debian's ircp of 256 KiB under irsock, against the raw line
#     (11520 bytes/s); the time runs from the sender's start (discovery,
#     IAS, connect included) to its exit.
set -u
: "${abs_top_builddir:=$(pwd)}"
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "irsock-bench: SKIP: python3 not found"; exit 0; }
exec "$PYTHON" - "$abs_top_builddir" <<'PYEOF'
import os, re, shutil, statistics, subprocess, sys, tempfile, time
sys.dont_write_bytecode = True   # nothing written into the source tree
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig

top = sys.argv[1]
irwire, irspray, irdad, irsock, classic, lib = irwire_rig.built(
    top, "irsock-bench", "irnet/tools/irwire", "irnet/tools/irspray", "irnet/tools/irdad",
    "irnet/irsock/irsock", "tests/irsock_classic", "irnet/irsock/.libs/libirsock.so")
os.environ["IRSOCK_LIBRARY"] = lib
ROUNDS = int(os.environ.get("IRSOCK_BENCH_ROUNDS", "3"))
STATION = ["--min-turnaround", "10"]
COUNT, SIZE = 30, 2000
tmp = tempfile.mkdtemp(prefix="irsock-bench.")
wire, ptys = irwire_rig.start(irwire)

def stop(*procs):
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait()

def direct():
    lst = subprocess.Popen([irspray, "--listen", "-D", ptys["b"], "--lock-dir", ""] + STATION,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if not lst.stdout.readline().startswith("listening on"):
        sys.exit("irsock-bench: irspray --listen did not start")
    p = subprocess.run([irspray, "--timeout", "60", "-D", ptys["a"], "--lock-dir", ""] + STATION +
                       ["-n", str(COUNT), "-b", str(SIZE), "--stream"],
                       capture_output=True, text=True)
    stop(lst)
    m = re.search(r"^Efficiency .*\((\d+) bytes/s payload", p.stdout, re.M)
    if p.returncode != 0 or not m:
        sys.exit("irsock-bench: irspray failed (exit %d): %s" % (p.returncode, p.stderr.strip()))
    return int(m.group(1))

def daemons():
    ds = []
    for side in ("a", "b"):
        sock = os.path.join(tmp, side + ".sock")
        ds.append(subprocess.Popen([irdad, "-D", ptys[side], "--socket", sock, "--lock-dir", "",
                                    "--nickname", "bench" + side, "--log", "stderr", "-v"] +
                                   STATION,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        while "serving" not in ds[-1].stderr.readline():
            pass
    return ds

def under(side, *args):
    return [irsock, "--daemon", os.path.join(tmp, side + ".sock")] + list(args)

def peer_address():
    p = subprocess.run(under("a", classic, "discover"), capture_output=True, text=True, timeout=60)
    m = re.search(r'^device (0x[0-9a-f]+) "bench(b)"', p.stdout, re.M)
    if not m:
        sys.exit("irsock-bench: discovery failed: %s" % p.stdout)
    return m.group(1)

def through_irsock():
    ds = daemons()
    srv = subprocess.Popen(under("b", classic, "serve"), stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    while srv.stdout.readline().strip() != "serving":
        pass
    addr = peer_address()
    p = subprocess.run(under("a", classic, "echo", "stream", addr, str(COUNT * SIZE), str(SIZE)),
                       capture_output=True, text=True, timeout=120)
    stop(srv)
    stop(*ds)
    m = re.search(r"every byte checked, ([0-9.]+) s,", p.stdout)
    if p.returncode != 0 or not m:
        sys.exit("irsock-bench: echo failed: %s" % p.stdout)
    # both ways, as irspray counts
    return 2 * COUNT * SIZE / float(m.group(1))

d_rates, s_rates = [], []
for _ in range(ROUNDS):
    d_rates.append(direct())
    s_rates.append(through_irsock())
d, s = statistics.median(d_rates), statistics.median(s_rates)
print("bench: ttp_stream_echo_2000_irspray_direct %.0f bytes/s" % d)
print("bench: ttp_stream_echo_2000_irsock %.0f bytes/s" % s)
print("bench: irsock_ratio_to_irspray_direct %.3f ratio" % (s / d))

# ircp of 256 KiB under irsock
ds = daemons()
rx, tx = os.path.join(tmp, "rx"), os.path.join(tmp, "tx")
os.mkdir(rx)
os.mkdir(tx)
with open(os.path.join(tx, "f256k"), "wb") as f:
    f.write(os.urandom(262144))
recv = subprocess.Popen(under("b", "ircp", "-r", "."), cwd=rx, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
while "as OBEX:IrXfer" not in ds[1].stderr.readline():   # b's irdad: listening
    pass
t0 = time.monotonic()
p = subprocess.run(under("a", "ircp", "f256k"), cwd=tx, capture_output=True, text=True, timeout=180)
dt = time.monotonic() - t0
if p.returncode != 0:
    stop(recv, *ds)
    sys.exit("irsock-bench: ircp failed (exit %d): %s %s" % (p.returncode, p.stdout, p.stderr))
recv.wait(timeout=30)
stop(*ds)
with open(os.path.join(tx, "f256k"), "rb") as f1, open(os.path.join(rx, "f256k"), "rb") as f2:
    if p.returncode != 0 or f1.read() != f2.read():
        sys.exit("irsock-bench: ircp failed or the file differs (exit %d)" % p.returncode)
print("bench: ircp_256k_irsock %.0f bytes/s" % (262144 / dt))
print("bench: ircp_256k_irsock_to_line %.3f ratio" % (262144 / dt / 11520))
stop(wire)
shutil.rmtree(tmp)
PYEOF
