#!/bin/sh
# Benchmark (make bench, only when umockdev is there): the programs on an
# emulated MCS7780 USB dongle (irusb-emu, its infrared side on one of
# irwire's ptys at 115200) against the same programs on the serial ptys,
# measured side by side in one run (issue 24, the benchmark section).
#   - `bench: usb_sir_vs_serial_115200 R ratio` (goal >= 0.97): irspray
#     unidirectional 2000-byte SDUs (-d -n 30 -b 2000, both stations
#     --min-turnaround 10, as tests/irspray-bench.sh's unidir_2000) with
#     both stations on dongles (two irusb-emu, one on each pty) over both
#     on the serial ptys; the rates in bytes/s (`usb_irspray_2000_115200`,
#     `serial_irspray_2000_115200`) and the mixed case, one side on a
#     dongle, the other serial (`usb_serial_mixed_vs_serial_115200`: the
#     sender on USB; `serial_usb_mixed_vs_serial_115200`: the listener on
#     USB).  Each configuration runs ROUNDS times (USB_BENCH_ROUNDS, 3),
#     interleaved; the medians are compared.
#   - `bench: usb_link_up_ms N ms` (goal <= 1000): irdad -D usb calling a
#     serial irdad's [ircomm] endpoint, a's pty held open; the dongle is
#     unplugged (SIGUSR1), and once b has logged the link's end
#     ("connection lost": b keeps the link up to its 12 s disconnect time)
#     plugged back (SIGUSR2): the time from the replug to b's daemon
#     logging "ircomm phone: connected".  3 times: the median, then each.
#   - `bench: irdad_cpu_s_per_mib_usb S s/MiB` beside `..._serial`:
#     user+system CPU of the calling irdad only (/proc/PID/stat) per MiB
#     moved through IrCOMM (USB_BENCH_KIB, 128, KiB each way at once),
#     with a on the dongle and with a on serial; `irusb_emu_cpu_s_per_mib`
#     for irusb-emu over the same transfer.  Under umockdev the emulated
#     node always polls writable, so libusb in irdad reaps in a busy loop:
#     the USB figure is mostly that emulation artefact (a `bench: note:`
#     line says so), not what a real usbfs node costs.
# Timings never fail it; a failed transfer does.  Skips (exit 0) when
# irusb-emu is not built.
set -u
: "${abs_top_builddir:=$(pwd)}"
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "usb-bench: SKIP: python3 not found"; exit 0; }
[ -x "$abs_top_builddir/irnet/tools/irusb-emu" ] ||
	{ echo "usb-bench: SKIP: irusb-emu not built (configure found no umockdev)"; exit 0; }
command -v umockdev-wrapper >/dev/null ||
	{ echo "usb-bench: SKIP: umockdev not installed"; exit 0; }
exec "$PYTHON" - "$abs_top_builddir" <<'PYEOF'
import grp, os, random, re, select, shutil, signal, statistics, subprocess, sys
import tempfile, termios, threading, time, tty
sys.dont_write_bytecode = True   # nothing written into the source tree
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig
from ceiling import ceiling

top = sys.argv[1]
irwire, irspray, irdad, emu = irwire_rig.built(top, "usb-bench", "irnet/tools/irwire",
                                               "irnet/tools/irspray", "irnet/tools/irdad",
                                               "irnet/tools/irusb-emu")
ROUNDS = int(os.environ.get("USB_BENCH_ROUNDS", "3"))
KIB = int(os.environ.get("USB_BENCH_KIB", "128"))
STATION = ["--min-turnaround", "10"]
USB = ["-D", "usb", "--no-seccomp"]
tmp = tempfile.mkdtemp(prefix="usb-bench.")
lockdir = os.path.join(tmp, "lock")
os.mkdir(lockdir)
os.chmod(lockdir, 0o1777)
os.chmod(tmp, 0o755)
# as 60-irnet-usb.rules leaves the node: irdad, dropped to nobody, reopens
# it after a replug with the node's group kept
try:
    grp.getgrnam("plugdev")
    NODE = ["--node-group", "plugdev", "--node-mode", "0660"]
except KeyError:
    NODE = []

procs = []   # everything started, each in its own process group

def start(argv, **kw):
    p = subprocess.Popen(argv, start_new_session=True, **kw)
    p.own_group = True
    procs.append(p)
    return p

def signal_to(p, sig):
    """sig to p's process group when it leads one (start), else to p."""
    try:
        if getattr(p, "own_group", False):
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass

def stop(p, sig=signal.SIGTERM):
    """Ends p (and what it started, its process group) within a bound."""
    if p.poll() is None:
        signal_to(p, sig)
        try:
            p.wait(timeout=ceiling(10))
        except subprocess.TimeoutExpired:
            pass
    signal_to(p, signal.SIGKILL)   # anything left (irusb-emu's child)
    if p.poll() is None:
        p.wait()
    if p in procs:
        procs.remove(p)
    return p.returncode

def cleanup():
    for p in list(procs):
        stop(p)
    shutil.rmtree(tmp, ignore_errors=True)

def fail(why):
    print("usb-bench: FAIL: " + why, flush=True)
    raise SystemExit(1)

signal.signal(signal.SIGTERM, lambda *_: fail("terminated"))
signal.signal(signal.SIGINT, lambda *_: fail("interrupted"))

def cpu_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def child_of(pid, name, within):
    """The pid of pid's child called name (irusb-emu's command)."""
    deadline = time.monotonic() + ceiling(within)
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                for c in f.read().split():
                    with open("/proc/%s/comm" % c) as g:
                        if g.read().strip() == name:
                            return int(c)
        except OSError:
            pass
        time.sleep(0.05)
    fail("no %s under pid %d" % (name, pid))

class Log:
    """A process's stderr read on a thread, each line with its arrival
    time (time.monotonic), kept in a file too for a failure's report."""
    def __init__(self, proc, path):
        self.lines, self.cv, self.path = [], threading.Condition(), path
        self.t = threading.Thread(target=self._run, args=(proc.stderr,), daemon=True)
        self.t.start()
    def _run(self, f):
        with open(self.path, "w") as out:
            for line in f:
                out.write(line)
                out.flush()
                with self.cv:
                    self.lines.append((time.monotonic(), line))
                    self.cv.notify_all()
    def count(self, text):
        with self.cv:
            return sum(1 for _, l in self.lines if text in l)
    def wait(self, text, n, within):
        """The arrival time of the n-th line containing text."""
        deadline = time.monotonic() + ceiling(within)
        with self.cv:
            while True:
                hits = [t for t, l in self.lines if text in l]
                if len(hits) >= n:
                    return hits[n - 1]
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cv.wait(left)
        tail = "".join(l for _, l in self.lines[-15:])
        fail("no %r (%d) in %s within %.0f s; its end:\n%s" % (
            text, n, os.path.basename(self.path), ceiling(within), tail))

def main():
    wire, ptys = irwire_rig.start(irwire)
    procs.append(wire)
    a, b = ptys["a"], ptys["b"]

    # ---- 1. irspray, 2000-byte SDUs one way -------------------------------
    def station(pty, usb, args):
        if usb:
            return [emu, "--port", pty, "--", irspray] + USB + args
        return [irspray, "-D", pty] + args

    def spray(a_usb, b_usb):
        lst = start(station(b, b_usb, ["--listen", "--lock-dir", ""] + STATION),
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = ""
        if select.select([lst.stdout], [], [], ceiling(15))[0]:
            line = lst.stdout.readline()
        if not line.startswith("listening on"):
            fail("irspray --listen (%s) did not start: %r" % ("usb" if b_usb else "serial", line))
        snd = start(station(a, a_usb, ["--lock-dir", "", "--timeout", "60"] + STATION +
                            ["-d", "-n", "30", "-b", "2000"]),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = snd.communicate(timeout=ceiling(90))
        except subprocess.TimeoutExpired:
            stop(snd)
            fail("irspray (a %s, b %s) did not end" % (a_usb, b_usb))
        procs.remove(snd)
        stop(lst)
        m = re.search(r"^Efficiency .*\((\d+) bytes/s payload", out, re.M)
        t = re.search(r"^Total 60000 bytes", out, re.M)
        if snd.returncode != 0 or not m or not t:
            fail("irspray (a %s, b %s) failed (exit %d): %s" % (
                "usb" if a_usb else "serial", "usb" if b_usb else "serial",
                snd.returncode, err.strip()))
        return int(m.group(1))

    configs = [("serial", False, False), ("usb", True, True),
               ("usb_serial", True, False), ("serial_usb", False, True)]
    rates = {name: [] for name, _, _ in configs}
    for _ in range(ROUNDS):
        for name, au, bu in configs:
            rates[name].append(spray(au, bu))
    med = {k: statistics.median(v) for k, v in rates.items()}
    print("bench: serial_irspray_2000_115200 %.0f bytes/s" % med["serial"])
    print("bench: usb_irspray_2000_115200 %.0f bytes/s" % med["usb"])
    print("bench: usb_serial_mixed_irspray_2000_115200 %.0f bytes/s" % med["usb_serial"])
    print("bench: serial_usb_mixed_irspray_2000_115200 %.0f bytes/s" % med["serial_usb"])
    print("bench: usb_sir_vs_serial_115200 %.3f ratio" % (med["usb"] / med["serial"]))
    print("bench: usb_serial_mixed_vs_serial_115200 %.3f ratio" %
          (med["usb_serial"] / med["serial"]))
    print("bench: serial_usb_mixed_vs_serial_115200 %.3f ratio" %
          (med["serial_usb"] / med["serial"]), flush=True)

    # ---- 2 and 3: irdad with an [ircomm] call -----------------------------
    pty_a, pty_b = os.path.join(tmp, "ircomm-a"), os.path.join(tmp, "ircomm-b")
    with open(os.path.join(tmp, "a.conf"), "w") as f:
        f.write('[ircomm modem]\nrole call\npeer nickname "beta"\npty %s\n' % pty_a)
    with open(os.path.join(tmp, "b.conf"), "w") as f:
        f.write('[ircomm phone]\nrole listen\npty %s\n' % pty_b)

    def daemon(name, dev, conf, usb_pty=None):
        argv = [irdad, "-D", dev, "--socket", os.path.join(tmp, name + ".sock"),
                "--lock-dir", lockdir, "--nickname", name, "--log", "stderr", "-c",
                os.path.join(tmp, conf), "-v"]
        if usb_pty:
            argv = [emu, "--port", usb_pty] + NODE + ["--"] + argv + ["--no-seccomp"]
        p = start(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        log = Log(p, os.path.join(tmp, "irdad-%s.err" % name))
        log.wait("serving", 1, 10)
        return p, log

    def open_raw(path):
        deadline = time.monotonic() + ceiling(10)
        while not os.path.exists(path):
            if time.monotonic() > deadline:
                fail("no pty link %s" % path)
            time.sleep(0.05)
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(fd, termios.TCSANOW)
        return fd

    def transfer(pids):
        """KIB KiB each way at once through the IrCOMM ptys (as
        tests/irdad_ircomm_test.py); the CPU seconds of each pid over the
        exchange alone, the MiB moved and the seconds."""
        rnd = random.Random(3)
        size = KIB * 1024
        da = bytes(rnd.randrange(256) for _ in range(size))
        db = bytes(rnd.randrange(256) for _ in range(size))
        fb = open_raw(pty_b)   # the listener's program first (DTR up)
        fa = open_raw(pty_a)   # the caller's: opening it dials
        try:
            deadline = time.monotonic() + ceiling(60)
            sent, got = 0, b""
            # b starts sending once the call is up: what a listener's
            # program writes with nobody connected is not kept
            while time.monotonic() < deadline and not got:
                os.write(fa, da[sent:sent + 1])
                sent += 1
                if select.select([fb], [], [], 0.5)[0]:
                    got = os.read(fb, 65536)
            if not got or got != da[:len(got)]:
                fail("the IrCOMM call did not come up, or a's first bytes came wrong")
            c0 = [cpu_of(p) for p in pids]
            t0 = time.monotonic()
            ga, gb = irwire_rig.exchange(fa, fb, da[sent:], db, 8 * size / 5000 + 60)
            secs = time.monotonic() - t0
            c1 = [cpu_of(p) for p in pids]
            if ga != db or got + gb != da:
                fail("IrCOMM: %d KiB each way not intact (a got %d of %d, b %d of %d)" % (
                    KIB, len(ga), size, len(got) + len(gb), size))
        finally:
            os.close(fa)
            os.close(fb)
        mib = (size - sent + size) / 1048576.0
        return [y - x for x, y in zip(c0, c1)], mib, secs

    # irdad on the dongle calls the serial irdad; a's pty held open
    pb, logb = daemon("beta", b, "b.conf")
    pe, loga = daemon("alpha", "usb", "a.conf", usb_pty=a)
    pa = child_of(pe.pid, "irdad", 10)
    held = open_raw(pty_a)
    logb.wait("ircomm phone: connected", 1, 30)
    ups = []
    for i in range(1, 4):
        os.kill(pe.pid, signal.SIGUSR1)
        loga.wait("usb went away", i, 10)
        logb.wait("ircomm phone: connection lost", i, 40)
        t0 = time.monotonic()
        os.kill(pe.pid, signal.SIGUSR2)
        back = loga.wait("usb is back", i, 20)
        up = logb.wait("ircomm phone: connected", i + 1, 30)
        ups.append(((up - t0) * 1000, (back - t0) * 1000))
    os.close(held)
    print("bench: usb_link_up_ms %.0f ms" % statistics.median(u for u, _ in ups))
    for n, (u, r) in enumerate(ups, 1):
        print("bench: usb_link_up_ms_%d %.0f ms" % (n, u))
    print("bench: usb_reopen_ms %.0f ms" % statistics.median(r for _, r in ups), flush=True)

    # a on the dongle: irdad's CPU and irusb-emu's over one transfer
    idle0, ti = cpu_of(pa), time.monotonic()
    time.sleep(2)
    idle = (cpu_of(pa) - idle0) / (time.monotonic() - ti)
    (c_irdad, c_emu, c_b), mib, secs = transfer([pa, pe.pid, pb.pid])
    print("bench: irdad_cpu_s_per_mib_usb %.3f s/MiB" % (c_irdad / mib))
    print("bench: irusb_emu_cpu_s_per_mib %.3f s/MiB" % (c_emu / mib))
    print("bench: irdad_usb_ircomm_bytes_per_s %.0f bytes/s" % (mib * 1048576 / secs))
    print("bench: irdad_usb_idle_cpu %.2f s/s" % idle, flush=True)
    stop(pe)
    stop(pb)
    # a on serial: the same daemons, the same transfer
    pb, logb = daemon("beta", b, "b.conf")
    pe, loga = daemon("alpha", a, "a.conf")
    (c_irdad, c_b2), mib, secs = transfer([pe.pid, pb.pid])
    print("bench: irdad_cpu_s_per_mib_serial %.3f s/MiB" % (c_irdad / mib))
    print("bench: irdad_serial_ircomm_bytes_per_s %.0f bytes/s" % (mib * 1048576 / secs))
    print("bench: note: irdad_cpu_s_per_mib_usb includes umockdev's busy poll (the emulated "
          "node always polls writable, so libusb reaps in a loop; irdad_usb_idle_cpu is that "
          "loop with no traffic): it is not what a real usbfs node costs")
    stop(pe)
    stop(pb)

try:
    main()
finally:
    cleanup()
PYEOF
