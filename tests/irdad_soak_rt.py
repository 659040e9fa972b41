"""tests/irdad_soak_rt.py: the real-time soak (issue 16 point 3,
docs/reliability.md), run by tests/irdad-soak-rt.sh (`make soak-rt`).

  breaks MINUTES SEED
      the run's irwire --break list, one AT_MS:LEN_MS a line: short
      breaks that IrLAP rides out (0.2 to 2 s, under its 3 s threshold
      time), about one every 15 s from the 10th second, and long ones
      that drop the link (15 to 18 s, past its 12 s disconnect time),
      one every 3 minutes or so, all after the warm-up and none in the
      last 45 s; irwire takes 64 breaks at most.
  run TMP MINUTES SEED NAME=PID... -- CLIENT...
      traffic for MINUTES from the wire's start ($TMP/wire.start, written
      by `date +%s.%N`), all at once:
      - IrCOMM: records both ways between the ptys $TMP/ircomm-a (the
        caller) and $TMP/ircomm-b at a fixed rate, each a magic, its
        direction, a sequence number, a length, a payload that is a
        function of those and a CRC-32;
      - IrNET: PPP frames in async HDLC both ways between $TMP/irnet-a
        and $TMP/irnet-b, each carrying its direction and sequence
        number, its payload again a function of them;
      - CLIENT cycles 0 SECONDS BYTES PAUSE_MS: tests/irsock_classic
        under irsock on the caller's irdad, connect / echo / close again
        and again against `irsock_classic serve` on the other;
      and every 2 s the RSS and open descriptors of each NAME=PID whose
      NAME starts with irdad (the others: CPU time only).

Checked: everything delivered is right and in order; data may be missing
only across a reported disconnect (a daemon's log says "connection lost"
for IrCOMM, "down" for IrNET, or the AF_IRDA program's connection ends);
the only disconnects are during long breaks, each long break gives one at
both ends of IrCOMM and of IrNET; the AF_IRDA program's cycles fail only
then too (or before the link first came up), and none carries a wrong
byte; every service carries data again after the last one; after the warm-up (the first 20 % or 30 s) no irdad's
RSS grows more than RSS_SLACK_KIB over its warm-up maximum and its
descriptors never exceed their warm-up maximum.  Prints one line a figure
("soak-rt: ..."), `bench:` lines, and "FAIL: ..." naming each figure out
of bounds (exit 1)."""
import os
import random
import re
import select
import struct
import subprocess
import sys
import time
import zlib

from irdad_irnet_test import Decoder, encode, open_raw

SAMPLE_S = 2.0
RSS_SLACK_KIB = 256
IRCOMM_RATE = 1000          # bytes/s each way
IRNET_RATE = 2.0            # frames/s each way
CYCLE_BYTES, CYCLE_PAUSE_MS = 4096, 1000
SHORT = (0.2, 2.0)          # under IrLAP's threshold time (3 s)
LONG = (15.0, 18.0)         # past its disconnect time (12 s)
LOSS_SLACK_S = 5            # a loss is reported within a long break (at +12 s) or just after
CUT_SLACK_S = 30            # an AF_IRDA cycle may fail until this long after one
MAX_BREAKS = 64             # irwire's limit


def warm_up_s(total_s):
    return max(30.0, 0.2 * total_s)


def schedule(minutes, seed):
    """[(at_s, len_s, "short"|"long")], sorted."""
    rnd = random.Random(seed)
    total = minutes * 60.0
    first, last = warm_up_s(total) + 10, total - 45
    n_long = max(1, round(total / 180))
    slot = (last - first) / n_long
    out = []
    for k in range(n_long):
        length = round(rnd.uniform(*LONG), 1)
        at = first + k * slot + rnd.uniform(0, max(0.0, slot - length - 5))
        out.append((round(at, 1), length, "long"))
    busy = [(at - 3, at + length + 15) for at, length, _ in out]
    n_short = min(round(total / 15), MAX_BREAKS - n_long)
    tries = 0
    while n_short and tries < 10000:
        tries += 1
        at, length = round(rnd.uniform(10, total - 10), 1), round(rnd.uniform(*SHORT), 1)
        if any(lo < at + length and at < hi for lo, hi in busy):
            continue
        out.append((at, length, "short"))
        busy.append((at - 4, at + length + 4))
        n_short -= 1
    return sorted(out)


# --- the IrCOMM records ---

MAGIC = b"SOAK"
HEAD = struct.Struct(">4sBIH")      # magic, direction, sequence, payload length


def rec_len(d, seq):
    return 64 + (seq * 97 + d * 13) % 449


def payload(d, seq, n):
    return random.Random((d << 32) | seq).randbytes(n)


def record(d, seq):
    n = rec_len(d, seq)
    body = HEAD.pack(MAGIC, d, seq, n) + payload(d, seq, n)
    return body + struct.pack(">I", zlib.crc32(body[4:]))


# --- the IrNET frames ---

def frame(d, seq):
    rnd = random.Random((d << 40) | seq)
    n = rnd.choice([1, 40, 300, 1000, rnd.randint(1, 1000)])
    body = bytes(rnd.choice([0x7E, 0x7D, 0x00, 0x11, 0x13, rnd.randrange(256)]) for _ in range(n))
    return bytes([0xFF, 0x03, 0x00, 0x21, d]) + struct.pack(">I", seq) + body


class Reports:
    """The daemons' logs, followed: (time seen, daemon, kind) of each
    service's connects and losses."""
    KINDS = [("ircomm-lost", re.compile(rb"ircomm \S+: connection lost")),
             ("ircomm-up", re.compile(rb"ircomm \S+: connected to")),
             ("irnet-lost", re.compile(rb"irnet \S+: down")),
             ("irnet-up", re.compile(rb"irnet \S+: up"))]

    def __init__(self, logs, clock):
        self.logs = {name: [path, 0, b""] for name, path in logs.items()}
        self.clock = clock
        self.events = []

    def poll(self):
        for name, st in self.logs.items():
            try:
                with open(st[0], "rb") as f:
                    f.seek(st[1])
                    data = f.read()
            except OSError:
                continue
            st[1] += len(data)
            lines = (st[2] + data).split(b"\n")
            st[2] = lines.pop()
            for line in lines:
                for kind, pat in self.KINDS:
                    if pat.search(line):
                        self.events.append((self.clock(), name, kind))

    def count(self, kind, who=None):
        return sum(1 for _, n, k in self.events if k == kind and who in (None, n))


class Continuity:
    """One direction of one service: units (records, frames) must arrive
    right and in order; a break in them (a gap, bytes that are not a
    unit) is allowed only when a loss of the service was reported since
    the last good unit (or before the first: the call coming up)."""

    def __init__(self, d, name, reports, kind, clock):
        self.d, self.name, self.reports, self.kind, self.clock = d, name, reports, kind, clock
        self.units = self.bytes = self.resumed = 0
        self.corrupt = []
        self.notes = []         # the breaks allowed: when and what
        self.mark = None
        self.last_seq = -1
        self.last_good_t = None
        self.in_break = False

    def good(self, seq, nbytes):
        if seq <= self.last_seq:
            self.in_break = False
            self.bad("unit %d after %d (duplicated or reordered)" % (seq, self.last_seq), always=True)
            return
        if seq != self.last_seq + 1:
            self.bad("%d units missing before unit %d" % (seq - self.last_seq - 1, seq))
        self.last_seq = seq
        self.units += 1
        self.bytes += nbytes
        self.last_good_t = self.clock()
        self.in_break = False
        self.mark = self.reports.count(self.kind)

    def bad(self, what, always=False):
        if self.in_break:
            return
        self.in_break = True
        self.reports.poll()
        if not always and self.mark is None:
            self.notes.append("%.1f s: %s, before the first good unit" % (self.clock(), what))
        elif not always and self.reports.count(self.kind) > self.mark:
            self.resumed += 1
            self.notes.append("%.1f s: %s, after a reported loss" % (self.clock(), what))
        else:
            self.corrupt.append("%.1f s: %s" % (self.clock(), what))


class RecordReader(Continuity):
    def __init__(self, *args):
        super().__init__(*args)
        self.buf = bytearray()

    def feed(self, data):
        self.buf += data
        buf, pos = self.buf, 0
        while True:
            i = buf.find(MAGIC, pos)
            if i < 0:
                keep = max(pos, len(buf) - len(MAGIC) + 1)
                if keep > pos:
                    self.bad("%d bytes that are not a record" % (keep - pos))
                pos = keep
                break
            if i > pos:
                self.bad("%d bytes that are not a record" % (i - pos))
            pos = i
            if len(buf) - i < HEAD.size:
                break
            _, d, seq, n = HEAD.unpack_from(buf, i)
            if d != self.d or n != rec_len(d, seq):
                self.bad("a record header that is wrong")
                pos = i + 1
                continue
            end = i + HEAD.size + n + 4
            if len(buf) < end:
                break
            if bytes(buf[i:end]) != record(d, seq):
                self.bad("record %d: wrong bytes (CRC %s)" % (
                    seq, "good" if zlib.crc32(buf[i + 4:end - 4]) ==
                    struct.unpack_from(">I", buf, end - 4)[0] else "bad"))
                pos = i + 1
                continue
            self.good(seq, end - i)
            pos = end
        del buf[:pos]


class FrameReader(Continuity):
    def __init__(self, *args):
        super().__init__(*args)
        self.dec = Decoder()

    def feed(self, data):
        bad_before = self.dec.bad
        self.dec.feed(data)
        if self.dec.bad > bad_before:
            self.bad("%d frames with a bad FCS" % (self.dec.bad - bad_before))
        for f in self.dec.frames:
            seq = struct.unpack_from(">I", f, 5)[0] if len(f) >= 9 else -1
            if len(f) < 9 or f[4] != self.d or f != frame(self.d, seq):
                self.bad("a frame that is not the one sent (%d bytes)" % len(f))
            else:
                self.good(seq, len(f))
        self.dec.frames = []


class Sender:
    """Writes units (make(seq) -> bytes) into fd at rate units or bytes a
    second; credit for a stalled link is not saved up beyond 2 s."""

    def __init__(self, fd, make, rate, by_bytes):
        self.fd, self.make, self.rate, self.by_bytes = fd, make, rate, by_bytes
        self.out = bytearray()
        self.seq = 0
        self.done = 0.0

    def fill(self, elapsed):
        self.done = max(self.done, self.rate * (elapsed - 2))
        while self.done < self.rate * elapsed and len(self.out) < 2048:
            unit = self.make(self.seq)
            self.seq += 1
            self.out += unit
            self.done += len(unit) if self.by_bytes else 1

    def write(self):
        try:
            del self.out[:os.write(self.fd, self.out[:4096])]
        except (BlockingIOError, OSError):
            pass


def proc_sample(pid):
    """(VmRSS, open descriptors, CPU seconds, RssAnon) of a process, in KiB."""
    kib = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("VmRSS:", "RssAnon:")):
                kib[line.split(":")[0]] = int(line.split()[1])
    fds = len(os.listdir("/proc/%d/fd" % pid))
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return kib["VmRSS"], fds, cpu, kib["RssAnon"]


def run(tmp, minutes, seed, procs, client):
    total = minutes * 60.0
    warm = warm_up_s(total)
    brk = schedule(minutes, seed)
    longs = [(at, at + length) for at, length, kind in brk if kind == "long"]
    wire_real = float(open(os.path.join(tmp, "wire.start")).read())
    t0 = time.monotonic() - (time.time() - wire_real)     # the wire's start, monotonic
    clock = lambda: time.monotonic() - t0   # noqa: E731
    reports = Reports({n: os.path.join(tmp, "irdad-%s.err" % n) for n in ("alpha", "beta")}, clock)

    cb, nb = open_raw(os.path.join(tmp, "ircomm-b")), open_raw(os.path.join(tmp, "irnet-b"))
    time.sleep(1)   # a listening IrNET endpoint offers the service once it has seen the open
    ca, na = open_raw(os.path.join(tmp, "ircomm-a")), open_raw(os.path.join(tmp, "irnet-a"))
    senders = [Sender(ca, lambda s: record(0, s), IRCOMM_RATE, True),
               Sender(cb, lambda s: record(1, s), IRCOMM_RATE, True),
               Sender(na, lambda s: encode(frame(0, s)), IRNET_RATE, False),
               Sender(nb, lambda s: encode(frame(1, s)), IRNET_RATE, False)]
    readers = {cb: RecordReader(0, "ircomm a->b", reports, "ircomm-lost", clock),
               ca: RecordReader(1, "ircomm b->a", reports, "ircomm-lost", clock),
               nb: FrameReader(0, "irnet a->b", reports, "irnet-lost", clock),
               na: FrameReader(1, "irnet b->a", reports, "irnet-lost", clock)}
    client_out = open(os.path.join(tmp, "cycles.out"), "w")
    cl = subprocess.Popen(client + ["cycles", "0", "%.1f" % max(1.0, total - clock()),
                                    str(CYCLE_BYTES), str(CYCLE_PAUSE_MS)],
                          stdout=client_out, stderr=subprocess.STDOUT)

    samples = {n: [] for n in procs}
    next_sample = next_report = next_progress = clock()
    while clock() < total:
        now = clock()
        for s in senders:
            s.fill(now)
        r, w, _ = select.select(list(readers), [s.fd for s in senders if s.out], [], 0.2)
        for s in senders:
            if s.fd in w:
                s.write()
        for fd in r:
            try:
                data = os.read(fd, 65536)
            except (BlockingIOError, OSError):
                continue
            readers[fd].feed(data)
        if now >= next_report:
            reports.poll()
            next_report = now + 0.5
        if now >= next_sample:
            for n, pid in procs.items():
                samples[n].append((now,) + proc_sample(pid))
            next_sample += SAMPLE_S
        if now >= next_progress + 60:
            next_progress += 60
            print("soak-rt: at %.0f s: %s; %s" % (now, ", ".join(
                "%s %d bytes" % (rd.name, rd.bytes) for rd in readers.values()), ", ".join(
                "%s rss_kib %d fds %d" % (n, rows[-1][1], rows[-1][2])
                for n, rows in samples.items() if n.startswith("irdad"))), flush=True)
    for n, pid in procs.items():
        samples[n].append((clock(),) + proc_sample(pid))
    try:
        rc = cl.wait(60)
    except subprocess.TimeoutExpired:
        cl.kill()
        rc = cl.wait()
    client_out.close()
    reports.poll()
    for fd in list(readers) + [s.fd for s in senders]:
        try:
            os.close(fd)
        except OSError:
            pass
    return verdict(minutes, brk, longs, warm, samples, readers, reports, rc,
                   open(os.path.join(tmp, "cycles.out")).read(), t0)


def in_long(t, longs, slack):
    return any(lo <= t <= hi + slack for lo, hi in longs)


def verdict(minutes, brk, longs, warm, samples, readers, reports, client_rc, cycles_text, t0):
    fails = []
    n_short = sum(1 for b in brk if b[2] == "short")
    print("soak-rt: minutes %.1f" % minutes)
    print("soak-rt: breaks short %d long %d (%s)" % (n_short, len(longs), " ".join(
        "%g+%g" % (at, length) for at, length, kind in brk if kind == "long")))
    for n, rows in samples.items():
        warm_rows = [r for r in rows if r[0] < warm]
        later = [r for r in rows if r[0] >= warm]
        cpu = rows[-1][3] - rows[0][3]
        if not n.startswith("irdad"):
            print("soak-rt: %s cpu_s %.1f" % (n, cpu))
            continue
        # RssAnon (the heap, stacks) is shown beside VmRSS, not checked:
        # VmRSS holds it
        for col, what, slack in ((1, "rss_kib", RSS_SLACK_KIB), (4, "anon_kib", None),
                                 (2, "fds", 0)):
            vals = [r[col] for r in rows]
            wmax = max(r[col] for r in warm_rows)
            lmax = max(r[col] for r in later)
            print("soak-rt: %s %s start %d end %d max %d warm-up-max %d after-warm-up-max %d"
                  % (n, what, vals[0], vals[-1], max(vals), wmax, lmax))
            if slack is not None and lmax > wmax + slack:
                fails.append("%s %s grew after the warm-up: %d, warm-up maximum %d (+%d allowed)"
                             % (n, what, lmax, wmax, slack))
        print("soak-rt: %s cpu_s %.1f samples %d" % (n, cpu, len(rows)))
        print("bench: soak_rt_%s_rss_growth %d KiB" % (n.replace("-", "_"),
                                                        rows[-1][1] - warm_rows[-1][1]))
        print("bench: soak_rt_%s_fds_end %d fds" % (n.replace("-", "_"), rows[-1][2]))
    last_long = max(hi for _, hi in longs)
    corrupted = 0
    for rd in readers.values():
        print("soak-rt: %s bytes_verified %d units %d resumed-after-loss %d corrupted %d"
              % (rd.name, rd.bytes, rd.units, rd.resumed, len(rd.corrupt)))
        for note in rd.notes:
            print("soak-rt: note: %s: %s" % (rd.name, note))
        corrupted += len(rd.corrupt)
        for c in rd.corrupt[:5]:
            fails.append("%s: %s, with no loss reported since the last good unit" % (rd.name, c))
        if rd.last_good_t is None or rd.last_good_t < last_long:
            fails.append("%s: no data after the last long break (last good unit at %s s)"
                         % (rd.name, "never" if rd.last_good_t is None else "%.1f" % rd.last_good_t))
    # the AF_IRDA program: before its first good cycle the link may not
    # be up yet (no station known: ENETUNREACH)
    ok = cut = failed = verified = early = 0
    first_ok = None
    for line in cycles_text.splitlines():
        m = re.match(r"cycle \d+ (\S+) (\S+) (\S+) (\d+)", line)
        if not m:
            continue
        end, how, got = float(m.group(2)) - t0, m.group(3), int(m.group(4))
        verified += got
        if how == "ok":
            ok += 1
            first_ok = end if first_ok is None else first_ok
            continue
        if how == "wrong":
            corrupted += 1
            fails.append("irsock: %s" % line)
            continue
        cut += how == "cut"
        failed += how == "connect-failed"
        if first_ok is None:
            early += 1
        elif not in_long(end, longs, CUT_SLACK_S):
            fails.append("irsock: a cycle failed outside a long break: %s" % line)
    if first_ok is None or first_ok > warm:
        fails.append("irsock: no cycle completed in the warm-up")
    ok_after = sum(1 for line in cycles_text.splitlines()
                   if re.match(r"cycle \d+ \S+ (\S+) ok", line)
                   and float(line.split()[3]) - t0 > last_long)
    print("soak-rt: irsock cycles ok %d cut %d connect-failed %d (%d before the first ok) "
          "bytes_verified %d ok-after-last-long %d" % (ok, cut, failed, early, verified, ok_after))
    if client_rc != 0:
        fails.append("irsock: the program exited %d: %s" % (client_rc, cycles_text.strip()[-300:]))
    if ok_after == 0:
        fails.append("irsock: no cycle completed after the last long break")
    # the disconnects reported
    for t, who, kind in reports.events:
        if kind.endswith("-lost") and not in_long(t, longs, LOSS_SLACK_S):
            fails.append("%s reported %s at %.1f s, outside every long break" % (who, kind, t))
    for who, kind in (("alpha", "ircomm"), ("beta", "ircomm"), ("alpha", "irnet"),
                      ("beta", "irnet")):
        lost = reports.count(kind + "-lost", who)
        up = reports.count(kind + "-up", who)
        print("soak-rt: %s %s losses %d connects %d (reconnects %d)" % (who, kind, lost, up, up - 1))
        if lost != len(longs):
            fails.append("%s %s: %d losses reported for %d long breaks" % (who, kind, lost, len(longs)))
    print("soak-rt: corrupted %d" % corrupted)
    print("bench: soak_rt_minutes %.1f min" % minutes)
    print("bench: soak_rt_bytes_verified %d bytes" % (sum(rd.bytes for rd in readers.values()) + verified))
    print("bench: soak_rt_reconnects %d connects" % (reports.count("ircomm-up", "alpha") - 1))
    print("bench: soak_rt_corrupted %d units" % corrupted)
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


def main():
    if sys.argv[1] == "breaks":
        for at, length, _ in schedule(float(sys.argv[2]), int(sys.argv[3])):
            print("%d:%d" % (round(at * 1000), round(length * 1000)))
        return 0
    tmp, minutes, seed = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    sep = sys.argv.index("--")
    procs = {a.split("=")[0]: int(a.split("=")[1]) for a in sys.argv[5:sep]}
    return run(tmp, minutes, seed, procs, sys.argv[sep + 1:])


if __name__ == "__main__":
    sys.exit(main())
