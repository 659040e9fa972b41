#!/bin/sh
# Benchmark (make bench): irdad's endpoints between two irdad processes
# on one irwire at 115200 (both asking for a 10 us turnaround), against
# the raw line measured on the same irwire in the same run:
#   - `irdad_ircomm_ratio_large` (target >= 0.95): 128 KiB written into
#     alpha's [ircomm] pty in 4096-byte writes, read from beta's;
#   - `irdad_ircomm_ratio_10byte` (target >= 0.90): 48000 bytes in 10-byte
#     writes (a terminal program or a chatty device);
#   - `irdad_irnet_ratio_1500` (target >= 0.93): 60 PPP frames of 1500
#     bytes through the [irnet] ptys, counting PPP frame bytes;
#   - `irdad_idle_wakeups_nolink`, `irdad_idle_wakeups_link`: context
#     switches per second of one idle irdad (voluntary + involuntary,
#     /proc/PID/status over 10 s), with no link and with an IrCOMM
#     connection up and idle.
# Rates are from the first write to the last byte read; timings never fail
# it.
set -u
: "${abs_top_builddir:=$(pwd)}"
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "irdad-endpoints-bench: SKIP: python3 not found"; exit 0; }
exec "$PYTHON" - "$abs_top_builddir" <<'PYEOF'
import os, select, shutil, subprocess, sys, tempfile, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig
from irdad_irnet_test import Decoder, encode, open_raw

top = sys.argv[1]
irwire = os.path.join(top, "irnet/tools/irwire")
irdad = os.path.join(top, "irnet/tools/irdad")
tmp = tempfile.mkdtemp(prefix="irdad-ep-bench.")
wire, ptys = irwire_rig.start(irwire)


def bench(name, value, unit):
    print("bench: %s %s %s" % (name, value, unit), flush=True)


def transfer(wfd, rfd, chunks, total, decoder=None, deadline_s=120):
    """Writes chunks into wfd while reading rfd until total bytes (or
    decoded frame bytes) arrived; bytes/s from the first write to the
    last byte read (so the pipe's fill at the start is not counted as
    speed)."""
    got, t_first = 0, time.time()
    end = time.time() + deadline_s
    pending = list(chunks)
    while got < total and time.time() < end:
        wl = [wfd] if pending else []
        r, w, _ = select.select([rfd], wl, [], 1)
        if w:
            c = pending[0]
            try:
                n = os.write(wfd, c)
                pending[0] = c[n:]
                if not pending[0]:
                    pending.pop(0)
            except BlockingIOError:
                pass
        if r:
            data = os.read(rfd, 65536)
            if decoder:
                decoder.feed(data)
                got = sum(len(f) for f in decoder.frames)
            else:
                got += len(data)
    if got < total:
        sys.exit("irdad-endpoints-bench: %d of %d bytes arrived" % (got, total))
    return got / (time.time() - t_first)


# 1. the raw line, a to b
a = irwire_rig.open_raw(ptys["a"])
b = irwire_rig.open_raw(ptys["b"])
os.set_blocking(a, False)
raw = transfer(a, b, [bytes(4096)] * 16, 16 * 4096)
os.close(a)
os.close(b)
bench("irdad_endpoints_raw_line", "%.0f" % raw, "bytes/s")

# 2. the daemons
for side, role, peer in (("b", "listen", ""), ("a", "call", 'peer nickname "beta"\n')):
    with open(os.path.join(tmp, side + ".conf"), "w") as f:
        f.write("[ircomm c]\nrole %s\n%spty %s/ircomm-%s\n" % (role, peer, tmp, side))
        f.write("[irnet n]\nrole %s\n%spty %s/irnet-%s\n" % (role, peer, tmp, side))
procs = {}
for side, nick in (("b", "beta"), ("a", "alpha")):
    procs[side] = subprocess.Popen(
        [irdad, "-D", ptys[side], "-c", os.path.join(tmp, side + ".conf"), "--socket",
         os.path.join(tmp, side + ".sock"), "--lock-dir", "none", "--log", "stderr",
         "--nickname", nick, "--min-turnaround", "10", "--idle-timeout", "3600s"],
        stderr=open(os.path.join(tmp, side + ".err"), "w"))
    for _ in range(100):
        if os.path.exists(os.path.join(tmp, "irnet-" + side)):
            break
        time.sleep(0.05)


def ctx_switches(pid):
    """voluntary + nonvoluntary context switches so far."""
    with open("/proc/%d/status" % pid) as f:
        return sum(int(l.split()[1]) for l in f if l.split(":")[0].endswith("ctxt_switches"))


def wakeups(pid, secs=10):
    c0 = ctx_switches(pid)
    time.sleep(secs)
    return (ctx_switches(pid) - c0) / secs


time.sleep(1)
bench("irdad_idle_wakeups_nolink", "%.1f" % wakeups(procs["a"].pid), "per_s")

try:
    cb = open_raw(os.path.join(tmp, "ircomm-b"))
    ca = open_raw(os.path.join(tmp, "ircomm-a"))
    # the call: bytes until one arrives, then let the rest drain
    end = time.time() + 60
    while time.time() < end:
        os.write(ca, b"\0")
        if select.select([cb], [], [], 1)[0] and os.read(cb, 4096):
            break
    time.sleep(1.5)
    while select.select([cb], [], [], 0.2)[0]:
        os.read(cb, 65536)
    bench("irdad_idle_wakeups_link", "%.1f" % wakeups(procs["a"].pid), "per_s")
    large = transfer(ca, cb, [os.urandom(4096) for _ in range(32)], 32 * 4096)
    bench("irdad_ircomm_large", "%.0f" % large, "bytes/s")
    bench("irdad_ircomm_ratio_large", "%.3f" % (large / raw), "ratio")
    small = transfer(ca, cb, [os.urandom(10) for _ in range(4800)], 48000)
    bench("irdad_ircomm_10byte", "%.0f" % small, "bytes/s")
    bench("irdad_ircomm_ratio_10byte", "%.3f" % (small / raw), "ratio")

    nb = open_raw(os.path.join(tmp, "irnet-b"))
    time.sleep(1)   # beta offers IrNetv1 once it has seen its pppd (200 ms watch)
    na = open_raw(os.path.join(tmp, "irnet-a"))
    hello = bytes([0xFF, 0x03, 0xC0, 0x21, 1, 1, 0, 4])
    dec = Decoder()
    end = time.time() + 60
    while not dec.frames and time.time() < end:
        os.write(na, encode(hello))
        if select.select([nb], [], [], 1)[0]:
            dec.feed(os.read(nb, 65536))
    time.sleep(1.5)
    while select.select([nb], [], [], 0.2)[0]:
        os.read(nb, 65536)
    frames = [bytes([0xFF, 0x03, 0x00, 0x21]) + os.urandom(1496) for _ in range(60)]
    rate = transfer(na, nb, [encode(f) for f in frames], 60 * 1500, decoder=Decoder())
    bench("irdad_irnet_1500", "%.0f" % rate, "bytes/s")
    bench("irdad_irnet_ratio_1500", "%.3f" % (rate / raw), "ratio")
finally:
    for p in procs.values():
        p.terminate()
    for p in procs.values():
        p.wait()
    wire.terminate()
    wire.wait()
    if os.environ.get("IRDAD_BENCH_KEEP"):
        print("irdad-endpoints-bench: logs in %s" % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
PYEOF
