#!/usr/bin/env python3
"""The stream side of tests/irdad-unplug.sh.

Usage: irdad_unplug_test.py PTY_A PTY_B WIRE_OUT PID_A LOCK_DIR CYCLES SOCK_A SOCK_B DEV_A
                             IRNET_A IRNET_B

A program on a's IrCOMM pty (the caller) keeps it open from start to end
and writes numbered records; another on b's (the listener) reads.  Meanwhile
irwire unplugs a's port CYCLES times and plugs it back, then unplugs it for
good (its schedule is the shell's).  Checks, each printed as "ok: ...":
  - after every replug, records arrive again on b (a cycle survived);
  - what arrived is right: every record well formed and numbered in
    increasing order; bytes lost in flight at an unplug may leave one gap
    (and one torn line) per unplug, nothing else;
  - the pty stayed in place: same link target, the same descriptor still
    valid (never reopened);
  - an API client of a (tests/irdad_client.py) with a stream connection
    to a listener on b gets DISCONNECTED at the first unplug, reason 2
    (the link went away) and its socket reads end of file; its session
    goes on (STATUS answers, link down, then up after the replug);
  - a's [irnet] pty (a calls b's, both held open from start to end, as
    pppd with persist would) carries numbered PPP frames (RFC 1662
    framing of tests/irdad_irnet_test.py) written every 50 ms: after
    every replug frames written after the unplug arrive on b, intact and
    in increasing order; its link and descriptor stay too;
  - while the port was gone, irdad a used almost no CPU (/proc/PID/stat:
    it waits on inotify, no polling), and a's UUCP lock was released (and
    taken again once the port was back).
Prints "bench: unplug_cycles N count" and "bench: unplug_gone_cpu_s X s".
"""
import os
import re
import socket
import select
import sys
import time
import tty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from irdad_client import MODE, Client  # noqa: E402
from irdad_irnet_test import Decoder, encode  # noqa: E402
from ceiling import ceiling

PPP_FRAME = re.compile(rb"^\xff\x03\x00\x21irnet (\d{8})$")

RECORD = re.compile(rb"^(\d{8}) ([0-9a-f]{8})$")


def record(n):
    return b"%08d %08x\n" % (n, (n * 2654435761) & 0xFFFFFFFF)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid, "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    # utime and stime are fields 14 and 15 of stat(5); fields[0] is field 3
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_pty_pair(obj, pty_a, pty_b):
    """Opens a's and b's ptys raw and non-blocking, once for the whole test
    (the unplugs must not make us reopen them): sets obj.fa, obj.fb, the
    link's target and a's device number, checked at the end."""
    obj.target_a = os.readlink(pty_a)
    obj.fa = os.open(pty_a, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    obj.fb = os.open(pty_b, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(obj.fa)
    tty.setraw(obj.fb)
    obj.rdev_a = os.fstat(obj.fa).st_rdev


class IrnetPair:
    """a's and b's [irnet] ptys: a numbered PPP frame into a's every 50 ms
    (dropped when the pty is full, as a link that does not take them),
    b's frames decoded and checked: well formed, numbers increasing."""

    def __init__(self, pty_a, pty_b):
        open_pty_pair(self, pty_a, pty_b)
        self.dec = Decoder()
        self.next_n = 0
        self.next_at = 0.0
        self.last_n = -1
        self.frames = 0

    def step(self):
        now = time.monotonic()
        if now >= self.next_at:
            self.next_at = now + 0.05
            try:
                os.write(self.fa, encode(b"\xff\x03\x00\x21irnet %08d" % self.next_n))
            except BlockingIOError:
                pass
            self.next_n += 1
        try:
            while True:
                self.dec.feed(os.read(self.fb, 65536))
        except (BlockingIOError, OSError):
            pass
        for f in self.dec.frames:
            m = PPP_FRAME.match(f)
            if not m:
                sys.exit("FAIL: IrNET: a frame on b that a did not write: %r" % f[:40])
            n = int(m.group(1))
            if n <= self.last_n:
                sys.exit("FAIL: IrNET: frame %d after %d on b" % (n, self.last_n))
            self.last_n = n
            self.frames += 1
        self.dec.frames = []
        if self.dec.bad:
            sys.exit("FAIL: IrNET: %d frames with a bad FCS on b" % self.dec.bad)


class Rig:
    def __init__(self, pty_a, pty_b, wire_out, pid_a, lock_dir, irnet):
        self.wire_out = wire_out
        self.pid_a = pid_a
        self.lock_dir = lock_dir
        open_pty_pair(self, pty_a, pty_b)
        self.next_n = 0
        self.pending = b""
        self.got = bytearray()
        self.written = 0   # bytes written into a's pty
        self.last_n = -1   # the last complete record seen on b
        self.irnet = irnet

    def pump(self, seconds):
        """Writes records on a and reads b for this long."""
        end = time.monotonic() + seconds
        while True:
            self.irnet.step()
            left = end - time.monotonic()
            if left <= 0:
                return
            if not self.pending:
                self.pending = b"".join(record(self.next_n + i) for i in range(16))
                self.next_n += 16
            r, w, _ = select.select([self.fb, self.irnet.fb], [self.fa], [], min(left, 0.05))
            if w:
                try:
                    n = os.write(self.fa, self.pending)
                    self.pending = self.pending[n:]
                    self.written += n
                except BlockingIOError:
                    pass
            if self.fb in r:
                try:
                    self.got += os.read(self.fb, 65536)
                except BlockingIOError:
                    pass
                self.update_last()

    def update_last(self):
        end = self.got.rfind(b"\n")
        if end < 0:
            return
        start = self.got.rfind(b"\n", 0, end) + 1
        m = RECORD.match(bytes(self.got[start:end]))
        if m:
            self.last_n = int(m.group(1))

    def wire_events(self):
        with open(self.wire_out) as f:
            return [l.split()[0] for l in f if l.startswith(("unplug ", "replug "))]

    def wait_event(self, kind, count, timeout):
        """Pumps until irwire said kind (unplug/replug) count times."""
        end = time.monotonic() + ceiling(timeout)
        while self.wire_events().count(kind) < count:
            if time.monotonic() > end:
                sys.exit("FAIL: irwire did not %s a (%d) within %d s" % (kind, count, timeout))
            self.pump(0.05)

    def locks(self):
        return sorted(n for n in os.listdir(self.lock_dir) if n.startswith("LCK.."))


def check_stream(got, written, unplugs):
    lines = bytes(got).split(b"\n")
    lines.pop()  # after the last newline: a record still on its way
    prev = -1
    gaps = torn = good = 0
    after_torn = False
    for i, line in enumerate(lines):
        m = RECORD.match(line)
        n = int(m.group(1)) if m else -1
        if not m or record(n) != line + b"\n":
            torn += 1
            after_torn = True
            continue
        if n <= prev:
            sys.exit("FAIL: record %d after %d (line %d): out of order or repeated" % (n, prev, i))
        if n != prev + 1:
            gaps += 1
        elif after_torn:
            # a bad line between two consecutive records is damage, not loss
            sys.exit("FAIL: line %d damaged between records %d and %d: %r" %
                     (i - 1, prev, n, lines[i - 1]))
        after_torn = False
        prev = n
        good += 1
    if good == 0:
        sys.exit("FAIL: no record arrived")
    if torn > unplugs or gaps > unplugs:
        sys.exit("FAIL: %d gaps and %d torn lines for %d unplugs" % (gaps, torn, unplugs))
    print("ok: %d records intact and in order on b (%d bytes of the %d written into a's "
          "pty), %d gaps and %d torn lines for %d unplugs (data in flight lost, nothing "
          "corrupted)" % (good, len(got), written, gaps, torn, unplugs))


def api_connect(sock_a, sock_b):
    """A stream connection from a's API to a listener on b's, over the
    link the IrCOMM stream keeps up."""
    a_cli = Client(sock_a, "unplug-a", timeout=10)
    b_lis = Client(sock_b, "unplug-b", timeout=10)
    b_lis.request("LISTEN", [("MODE", MODE["stream"]), ("CLASS", "Test:Unplug")], "LISTENING")
    end = time.monotonic() + ceiling(10)
    while a_cli.request("STATUS", want="STATUS_REPLY").get("LINK") != 2:
        if time.monotonic() > end:
            sys.exit("FAIL: a's link never came up")
        time.sleep(0.1)
    beta = a_cli.request("STATUS", want="STATUS_REPLY").get("PEER")
    conn = a_cli.request("CONNECT", [("DADDR", beta), ("CLASS", "Test:Unplug"),
                                     ("MODE", MODE["stream"])], "CONNECTION")
    b_lis.next_event("CONNECTION")
    a_conn = a_cli.connection_socket(conn)
    a_conn.settimeout(10)
    return a_cli, b_lis, conn, a_conn


def api_link_lost(a_cli, conn, a_conn, dev_a):
    ev = a_cli.next_event("DISCONNECTED")
    if ev.get("CONN_ID") != conn.get("CONN_ID") or ev.get("REASON") != 2:
        sys.exit("FAIL: a's API client: %r at the unplug, wanted DISCONNECTED of conn %d, "
                 "reason 2" % (ev, conn.get("CONN_ID")))
    # a stream connection's descriptor reports a link loss as a reset
    # (docs/irdad-api.md): ECONNRESET once, then end of file
    try:
        rest = a_conn.recv(4096)
        sys.exit("FAIL: a's API connection socket read %r, not ECONNRESET" % rest)
    except socket.timeout:
        sys.exit("FAIL: a's API connection socket did not end at the unplug")
    except ConnectionResetError:
        pass
    if a_conn.recv(4096) != b"":
        sys.exit("FAIL: a's API connection socket: no end of file after the reset")
    st = a_cli.request("STATUS", want="STATUS_REPLY")
    if st.get("LINK") == 2:
        sys.exit("FAIL: a's STATUS says the link is up with the port gone")
    if (st.get("PORT_STATE") != 1 or st.get("PORT_PATH") != dev_a or
            not 0 <= st.get("PORT_GONE_MS", -1) < 20000):
        sys.exit("FAIL: a's STATUS with the port gone: PORT_STATE %r, PORT_GONE_MS %r, "
                 "PORT_PATH %r (wanted 1, under 20000, %s)" %
                 (st.get("PORT_STATE"), st.get("PORT_GONE_MS"), st.get("PORT_PATH"), dev_a))
    print("ok: a's API client: DISCONNECTED reason 2 (%s) at the unplug, its socket reset "
          "(ECONNRESET) then at end of file, its session answering STATUS (link down; port "
          "gone for %d ms, waiting for %s)" % (ev.get("TEXT"), st.get("PORT_GONE_MS"),
                                                st.get("PORT_PATH")))


def main():
    (pty_a, pty_b, wire_out, pid_a, lock_dir, cycles, sock_a, sock_b, dev_a, irnet_a,
     irnet_b) = sys.argv[1:12]
    pid_a, cycles = int(pid_a), int(cycles)
    irnet = IrnetPair(irnet_a, irnet_b)
    rig = Rig(pty_a, pty_b, wire_out, pid_a, lock_dir, irnet)
    rig.pump(0.5)
    a_cli, b_lis, conn, a_conn = api_connect(sock_a, sock_b)
    if rig.wire_events():
        sys.exit("FAIL: the API connection was not up before the first unplug")
    survived = 0
    cpu = None
    locks_up = rig.locks()
    end = time.monotonic() + ceiling(10)
    while irnet.last_n < 0:
        if time.monotonic() > end:
            sys.exit("FAIL: IrNET: no frame on b before the first unplug")
        rig.pump(0.1)
    for c in range(1, cycles + 1):
        rig.wait_event("unplug", c, 20)
        irnet_unplug = irnet.next_n
        if c == 1:
            api_link_lost(a_cli, conn, a_conn, dev_a)
        rig.pump(1.0)   # what was on its way has arrived by now
        before = rig.last_n
        if before < 0:
            sys.exit("FAIL: nothing arrived before unplug %d" % c)
        gone_locks = rig.locks()
        if len(gone_locks) != len(locks_up) - 1:
            sys.exit("FAIL: a's lock not released while its port is gone (%s, up: %s)" %
                     (gone_locks, locks_up))
        if c == 2:
            # a long absence: irdad a waits on inotify, no polling
            t0, c0 = time.monotonic(), cpu_seconds(pid_a)
            rig.pump(8.0)
            cpu = cpu_seconds(pid_a) - c0
            span = time.monotonic() - t0
        rig.wait_event("replug", c, 20)
        end = time.monotonic() + ceiling(15)
        while rig.last_n <= before + 64:
            if time.monotonic() > end:
                sys.exit("FAIL: no records after replug %d (last before the unplug %d, now %d)" %
                         (c, before, rig.last_n))
            rig.pump(0.1)
        while irnet.last_n < irnet_unplug:
            if time.monotonic() > end:
                sys.exit("FAIL: IrNET: no frame written after unplug %d arrived (last %d, "
                         "first after the unplug %d)" % (c, irnet.last_n, irnet_unplug))
            rig.pump(0.1)
        print("ok: cycle %d: IrNET frames resumed on b (frame %d; written from %d on after "
              "the unplug)" % (c, irnet.last_n, irnet_unplug))
        if len(rig.locks()) != len(locks_up):
            sys.exit("FAIL: after replug %d the locks are %s (up: %s)" % (c, rig.locks(), locks_up))
        if c == 1:
            st = a_cli.request("STATUS", want="STATUS_REPLY")
            if st.get("LINK") != 2:
                sys.exit("FAIL: a's API session: link %s after the replug" % st.get("LINK"))
            if st.get("PORT_STATE") != 0 or st.get("PORT_GONE_MS") is not None:
                sys.exit("FAIL: a's STATUS after the replug: PORT_STATE %r, PORT_GONE_MS %r" %
                         (st.get("PORT_STATE"), st.get("PORT_GONE_MS")))
            print("ok: a's API session kept through the unplug: STATUS says the link is up "
                  "again, the port up")
        survived += 1
        print("ok: cycle %d: records %d .. %d arrived after the replug" % (c, before, rig.last_n))
        sys.stdout.flush()
    # the last unplug: the port does not come back within the test
    rig.wait_event("unplug", cycles + 1, 20)
    rig.pump(1.0)
    if os.readlink(pty_a) != rig.target_a:
        sys.exit("FAIL: a's pty link moved: %s, was %s" % (os.readlink(pty_a), rig.target_a))
    if os.fstat(rig.fa).st_rdev != rig.rdev_a:
        sys.exit("FAIL: a's descriptor no longer the pty it was")
    print("ok: a's pty stayed in place: %s -> %s, the descriptor opened once and still valid" %
          (pty_a, rig.target_a))
    if os.readlink(irnet_a) != irnet.target_a or os.fstat(irnet.fa).st_rdev != irnet.rdev_a:
        sys.exit("FAIL: a's IrNET pty link moved or its descriptor changed")
    print("ok: IrNET: %d frames in order on b of %d written, a's pty %s -> %s kept with its "
          "descriptor" % (irnet.frames, irnet.next_n, irnet_a, irnet.target_a))
    check_stream(rig.got, rig.written, cycles)
    if cpu is None or cpu > 1.0:
        sys.exit("FAIL: irdad a used %.2f s of CPU in %.1f s with its port gone (a poll?)" %
                 (cpu, span))
    print("ok: irdad a used %.2f s of CPU in %.1f s while its port was gone" % (cpu, span))
    print("bench: unplug_gone_cpu_s %.2f s" % cpu)
    print("bench: unplug_cycles %d count" % survived)


if __name__ == "__main__":
    main()
