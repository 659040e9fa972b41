"""tests/irdad_attach_test.py IRDAD SOCKET B_DEV TMP: irdad's ATTACH
request (docs/irdad-api.md, "ATTACH: endpoints on your descriptors"),
run by tests/irdad-attach.sh.

irdad "alpha" serves its API on SOCKET; this script is its client, through
the independent implementation of the API in tests/irdad_client.py, as the
pppd plugin will be: it passes a channel (a pty master, or a stream
socket) and the write end of a status pipe, and reads the status lines.
The peer "beta" is `irdad --stdio --listen` on B_DEV, started for each
connection (it serves one), whose standard input and output carry the
frames; the framing is tests/irdad_irnet_test.py's own RFC 1662 code.

Prints one line per check; exits non-zero on the first failure."""
import errno
import os
import select
import socket
import subprocess
import sys
import time
import tty
import random

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from irdad_client import Client, DaemonError, SERVICE, ROLE  # noqa: E402
from irdad_irnet_test import Decoder, check, encode, make_frames, pump  # noqa: E402


class Lines:
    """Status lines from a descriptor, one at a time, with a deadline."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""
        self.eof = False

    def next(self, timeout):
        deadline = time.time() + timeout
        while b"\n" not in self.buf and not self.eof and time.time() < deadline:
            r, _, _ = select.select([self.fd], [], [], 0.2)
            if r:
                data = os.read(self.fd, 256)
                self.eof = not data
                self.buf += data
        if b"\n" not in self.buf:
            return None
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def wait_eof(self, timeout):
        """True once the writers are gone (EOF), lines before it dropped."""
        while self.next(timeout) is not None:
            pass
        return self.eof


def read_eof(fd, timeout):
    """True if fd reads EOF (or EIO, a pty) within timeout."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                if not os.read(fd, 65536):
                    return True
            except OSError as e:
                return e.errno in (errno.EIO, errno.ECONNRESET)
    return False


def start_beta(irdad, b_dev, tmp, n):
    """irdad --stdio --listen as "beta": (process, its status Lines)."""
    st_r, st_w = os.pipe()
    err = open(os.path.join(tmp, "beta-%d.err" % n), "w")
    p = subprocess.Popen([irdad, "--stdio", "--listen", "-D", b_dev, "--nickname", "beta",
                          "--lock-dir", "none", "--log", "stderr", "-v", "--status-fd", "3"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                         pass_fds=(3,), preexec_fn=lambda: os.dup2(st_w, 3))
    os.close(st_w)
    lines = Lines(st_r)
    check(lines.next(10) == "listening", "beta %d (irdad --stdio --listen) is listening" % n)
    return p, lines


def attach(cl, fds, **kw):
    """ATTACH irnet with kw's attributes; returns ENDPOINT_ID."""
    attrs = [("SERVICE", SERVICE[kw.pop("service", "irnet")]),
             ("ROLE", ROLE[kw.pop("role", "call")])]
    attrs += list(kw.items())
    return cl.request("ATTACH", attrs, "OK", fds=fds).get("ENDPOINT_ID")


def refused(cl, fds, want_errno, text, **kw):
    try:
        attach(cl, fds, **kw)
    except DaemonError as e:
        return e.errno == want_errno and text in e.text
    return False


def wait_counter(sock, name, value, timeout=5):
    deadline = time.time() + timeout
    while True:
        cl = Client(sock, "status")
        got = cl.counters().get(name)
        cl.close()
        if got == value or time.time() > deadline:
            return got
        time.sleep(0.1)


def run_refusals(sock):
    cl = Client(sock, "refusals")
    r, w = os.pipe()
    a, b = socket.socketpair()
    check(refused(cl, [], errno.EINVAL, "exactly 2 descriptors"),
          "ATTACH without descriptors: ERROR EINVAL")
    check(refused(cl, [a.fileno()], errno.EINVAL, "not 1"),
          "ATTACH with one descriptor: ERROR EINVAL")
    check(refused(cl, [a.fileno(), w, w], errno.EINVAL, "not 3"),
          "ATTACH with three descriptors: ERROR EINVAL")
    check(refused(cl, [a.fileno(), w], errno.EOPNOTSUPP, "IrCOMM", service="ircomm"),
          "ATTACH ircomm: ERROR EOPNOTSUPP")
    check(refused(cl, [a.fileno(), w], errno.EINVAL, "for calling", role="listen",
                  NICKNAME=b"beta"), "ATTACH listen with a NICKNAME: ERROR EINVAL")
    check(refused(cl, [r, w], errno.EINVAL, "neither a pty master nor a stream socket"),
          "ATTACH with a pipe for the channel: ERROR EINVAL")
    check(refused(cl, [a.fileno(), r], errno.EINVAL, "not open for writing"),
          "ATTACH with a read-only status descriptor: ERROR EINVAL")
    # descriptors with another request end the session
    cl.seq += 1
    cl.send_raw(bytes([1, 9, 0, 0, 0, 0, 0, cl.seq]), [w])
    ended = False
    try:
        m = cl.recv()
        ended = m.type == "ERROR" and "takes no descriptor" in m.get("TEXT")
        cl.recv()
    except (EOFError, ConnectionResetError):
        pass
    check(ended, "STATUS with a descriptor: ERROR, and the session ends")
    cl.close()
    cl = Client(sock, "refusals")
    c = cl.counters()
    check(c.get("attach.endpoints") == 0 and c.get("attach.total") == 0,
          "the refusals left no endpoint (STATUS attach.endpoints 0, attach.total 0)")
    cl.close()
    for fd in (r, w):
        os.close(fd)
    a.close()
    b.close()


def run_no_peer(sock):
    cl = Client(sock, "no-peer")
    st_r, st_w = os.pipe()
    ours, theirs = socket.socketpair()
    t0 = time.time()
    eid = attach(cl, [theirs.fileno(), st_w], NICKNAME=b"nobody", TIMEOUT_MS=2000)
    theirs.close()
    os.close(st_w)
    lines = Lines(st_r)
    line = lines.next(15)
    took = time.time() - t0
    check(line == "failed no-peer",
          "ATTACH calling \"nobody\" with TIMEOUT_MS 2000 (endpoint %s): %r after %.1f s"
          % (eid, line, took))
    check(read_eof(ours.fileno(), 5), "then irdad closed the channel (EOF)")
    check(lines.wait_eof(5), "and its copy of the status descriptor (EOF)")
    cl.close()
    ours.close()
    os.close(st_r)


def run_pty(irdad, sock, b_dev, tmp):
    beta, blines = start_beta(irdad, b_dev, tmp, 1)
    cl = Client(sock, "pppd-pty")
    master, slave = os.openpty()
    tty.setraw(slave)
    st_r, st_w = os.pipe()
    eid = attach(cl, [master, st_w], NICKNAME=b"beta")
    os.close(master)
    os.close(st_w)
    lines = Lines(st_r)
    line = lines.next(20)
    check(line is not None and line.startswith("up 0x") and line.endswith(' "beta"'),
          "ATTACH (a pty master) calling beta: endpoint %s says %r" % (eid, line))
    check(blines.next(5).startswith("up 0x"), "beta is up too")
    c = cl.counters()
    check(c.get("attach.endpoints") == 1 and c.get("attach.up") == 1,
          "STATUS: attach.endpoints 1, attach.up 1")
    rnd = random.Random(5)
    fa, fb = make_frames(rnd, 20, 0x33), make_frames(rnd, 20, 0x44)
    da, db = Decoder(), Decoder()
    os.set_blocking(slave, False)
    os.set_blocking(beta.stdin.fileno(), False)
    ok = pump([(slave, b"".join(encode(f) for f in fa), beta.stdout.fileno(), db, len(fa)),
               (beta.stdin.fileno(), b"".join(encode(f) for f in fb), slave, da, len(fb))], 60)
    check(ok and db.frames == fa and da.frames == fb and da.bad == 0,
          "20 PPP frames each way between the attached pty and beta came out the same")
    # pppd hangs up: the slave closes, irdad reads EIO on the master
    os.close(slave)
    line = lines.next(15)
    check(line == "down closed", "the pty's slave closed: %r" % line)
    check(lines.wait_eof(5), "irdad closed its copy of the status descriptor")
    line = blines.next(15)
    rc = beta.wait(15)
    check(line == "down closed-by-peer" and rc == 0,
          "beta saw the disconnect (%r) and exited %d" % (line, rc))
    check(wait_counter(sock, "attach.endpoints", 0) == 0,
          "STATUS: attach.endpoints 0 once the endpoint ended")
    check(cl.counters().get("conn.rx_dropped") is not None, "the session goes on")
    cl.close()
    os.close(st_r)


def run_session_close(irdad, sock, b_dev, tmp):
    beta, blines = start_beta(irdad, b_dev, tmp, 2)
    cl = Client(sock, "pppd-socket")
    ours, theirs = socket.socketpair()
    st_r, st_w = os.pipe()
    eid = attach(cl, [theirs.fileno(), st_w], TIMEOUT_MS=20000)
    theirs.close()
    os.close(st_w)
    lines = Lines(st_r)
    line = lines.next(20)
    check(line is not None and line.startswith("up 0x") and line.endswith(' "beta"'),
          "ATTACH (a stream socket) calling any IrNET station: endpoint %s says %r" % (eid, line))
    check(blines.next(5).startswith("up 0x"), "beta is up too")
    frame = bytes([0xFF, 0x03, 0x00, 0x21]) + b"\x7e\x7d\x00 over a socket"
    db, da = Decoder(), Decoder()
    os.set_blocking(beta.stdin.fileno(), False)
    ok = pump([(ours.fileno(), encode(frame), beta.stdout.fileno(), db, 1),
               (beta.stdin.fileno(), encode(frame[::-1]), ours.fileno(), da, 1)], 30)
    check(ok and db.frames == [frame] and da.frames == [frame[::-1]],
          "a frame each way through the socket channel")
    cl.close()
    line = blines.next(15)
    rc = beta.wait(15)
    check(line is not None and line.startswith("down") and rc == 0,
          "the session closed: beta saw the disconnect (%r) and exited %d" % (line, rc))
    check(read_eof(ours.fileno(), 5), "irdad closed the channel (EOF)")
    check(lines.wait_eof(5), "and the status descriptor")
    ours.close()
    os.close(st_r)


def run_peer_hangup(irdad, sock, b_dev, tmp):
    beta, blines = start_beta(irdad, b_dev, tmp, 3)
    cl = Client(sock, "pppd-hangup")
    ours, theirs = socket.socketpair()
    st_r, st_w = os.pipe()
    attach(cl, [theirs.fileno(), st_w], NICKNAME=b"beta")
    theirs.close()
    os.close(st_w)
    lines = Lines(st_r)
    line = lines.next(20)
    check(line is not None and line.startswith("up 0x"), "calling beta again: %r" % line)
    # beta's pppd goes away: beta disconnects
    beta.stdin.close()
    # (beta exits right after its disconnect: whether its LM disconnect or
    # the end of its link is heard first varies; either is a "down")
    line = lines.next(15)
    check(line in ("down closed-by-peer", "down link-lost"),
          "beta hung up: the endpoint says %r" % line)
    check(read_eof(ours.fileno(), 5), "and irdad closed the channel, so pppd sees the hangup")
    check(lines.wait_eof(5), "and the status descriptor")
    check(beta.wait(15) == 0, "beta exited 0")
    check(cl.counters().get("attach.endpoints") == 0, "STATUS: attach.endpoints 0")
    cl.close()
    ours.close()
    os.close(st_r)


def run_limit(sock):
    cl = Client(sock, "greedy")
    held = []
    for i in range(4):
        ours, theirs = socket.socketpair()
        st_r, st_w = os.pipe()
        attach(cl, [theirs.fileno(), st_w], role="listen")
        theirs.close()
        os.close(st_w)
        held.append((ours, Lines(st_r)))
    check(all(ln.next(5) == "listening" for _, ln in held),
          "four listening endpoints of one session each say \"listening\"")
    ours, theirs = socket.socketpair()
    st_r, st_w = os.pipe()
    check(refused(cl, [theirs.fileno(), st_w], errno.EBUSY, "4 endpoints", role="listen"),
          "a fifth: ERROR EBUSY")
    c = cl.counters()
    check(c.get("attach.endpoints") == 4, "STATUS: attach.endpoints 4")
    cl.close()
    check(wait_counter(sock, "attach.endpoints", 0) == 0,
          "the session closed: its endpoints are gone")
    check(all(read_eof(o.fileno(), 5) and ln.wait_eof(5) for o, ln in held),
          "and their channels and status descriptors closed")
    total = wait_counter(sock, "attach.total", 8)
    check(total == 8, "STATUS: attach.total 8 (%s)" % total)
    for o, ln in held:
        o.close()
        os.close(ln.fd)
    for s in (ours, theirs):
        s.close()
    os.close(st_r)
    os.close(st_w)


if __name__ == "__main__":
    irdad_path, sock_path, b_dev, tmp_dir = sys.argv[1:5]
    run_refusals(sock_path)
    run_no_peer(sock_path)
    run_pty(irdad_path, sock_path, b_dev, tmp_dir)
    run_session_close(irdad_path, sock_path, b_dev, tmp_dir)
    run_peer_hangup(irdad_path, sock_path, b_dev, tmp_dir)
    run_limit(sock_path)
    print("all checks passed")
