"""tests/irdad_attach_test.py SOCKET B_LINK B_LOG A_LOG: irdad's ATTACH
request (docs/irdad-api.md, "ATTACH: endpoints on your descriptors"),
run by tests/irdad-attach.sh.

irdad "alpha" serves its API on SOCKET; this script is its client, through
the independent implementation of the API in tests/irdad_client.py, as the
pppd plugin will be: it passes a channel (a pty master, or a stream
socket) and the write end of a status pipe, and reads the status lines.
The peer "beta" is an irdad with a listening [irnet net0] endpoint whose
pty is at B_LINK (this script is its pppd: it opens the pty, and beta
then offers IrNetv1) and whose log is B_LOG (its status lines, logged
there, say when it is up or down); the framing is
tests/irdad_irnet_test.py's own RFC 1662 code.

Prints one line per check; exits non-zero on the first failure."""
import errno
import os
import select
import socket
import sys
import time
import tty
import random

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from irdad_client import Client, DaemonError, SERVICE, ROLE  # noqa: E402
from irdad_irnet_test import Decoder, check, encode, make_frames, open_raw, pump  # noqa: E402
from ceiling import ceiling


class Lines:
    """Status lines from a descriptor, one at a time, with a deadline."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""
        self.eof = False

    def next(self, timeout):
        deadline = time.time() + ceiling(timeout)
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
    deadline = time.time() + ceiling(timeout)
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                if not os.read(fd, 65536):
                    return True
            except OSError as e:
                return e.errno in (errno.EIO, errno.ECONNRESET)
    return False


def log_count(path, text):
    with open(path, errors="replace") as f:
        return f.read().count(text)


def wait_log(path, text, count, timeout=15):
    """True once beta's log holds text count times."""
    deadline = time.time() + ceiling(timeout)
    while log_count(path, text) < count:
        if time.time() > deadline:
            return False
        time.sleep(0.05)
    return True


class Beta:
    """beta's pppd: its pty, and what its log says."""

    def __init__(self, link, log):
        self.link, self.log, self.fd = link, log, None
        self.offers = self.ups = self.downs = 0
        self.words = {}

    def open(self):
        """Opens the pty as pppd would; beta then offers IrNetv1 again."""
        self.fd = open_raw(self.link)
        self.offers += 1
        check(wait_log(self.log, "irnet net0: IrNetv1 on LSAP", self.offers),
              "beta's pppd is there: beta offers IrNetv1 (%d)" % self.offers)

    def up(self):
        self.ups += 1
        return wait_log(self.log, "irnet net0: up 0x", self.ups)

    def down(self, word):
        """The next down line of beta's is "down WORD"."""
        self.downs += 1
        self.words[word] = self.words.get(word, 0) + 1
        return wait_log(self.log, "irnet net0: down ", self.downs) and \
            log_count(self.log, "irnet net0: down " + word + "\n") == self.words[word]



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
    deadline = time.time() + ceiling(timeout)
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


def run_pty(sock, beta):
    beta.open()
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
    check(beta.up(), "beta is up too")
    c = cl.counters()
    check(c.get("attach.endpoints") == 1 and c.get("attach.up") == 1,
          "STATUS: attach.endpoints 1, attach.up 1")
    rnd = random.Random(5)
    fa, fb = make_frames(rnd, 20, 0x33), make_frames(rnd, 20, 0x44)
    da, db = Decoder(), Decoder()
    os.set_blocking(slave, False)
    ok = pump([(slave, b"".join(encode(f) for f in fa), beta.fd, db, len(fa)),
               (beta.fd, b"".join(encode(f) for f in fb), slave, da, len(fb))], 60)
    check(ok and db.frames == fa and da.frames == fb and da.bad == 0 and db.bad == 0,
          "20 PPP frames each way between the attached pty and beta's came out the same")
    # pppd hangs up: the slave closes, irdad reads EIO on the master
    os.close(slave)
    line = lines.next(15)
    check(line == "down closed", "the pty's slave closed: %r" % line)
    check(lines.wait_eof(5), "irdad closed its copy of the status descriptor")
    check(beta.down("closed-by-peer"), "beta saw the disconnect (down closed-by-peer)")
    check(wait_counter(sock, "attach.endpoints", 0) == 0,
          "STATUS: attach.endpoints 0 once the endpoint ended")
    check(cl.counters().get("conn.rx_dropped") is not None, "the session goes on")
    cl.close()
    os.close(st_r)


def run_session_close(sock, beta):
    # beta listens again at once: its pppd stayed, IrNetv1 stayed registered
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
    check(beta.up(), "beta is up too")
    frame = bytes([0xFF, 0x03, 0x00, 0x21]) + b"\x7e\x7d\x00 over a socket"
    db, da = Decoder(), Decoder()
    ok = pump([(ours.fileno(), encode(frame), beta.fd, db, 1),
               (beta.fd, encode(frame[::-1]), ours.fileno(), da, 1)], 30)
    check(ok and db.frames == [frame] and da.frames == [frame[::-1]],
          "a frame each way through the socket channel")
    cl.close()
    check(beta.down("closed-by-peer"), "the session closed: beta saw the disconnect")
    check(read_eof(ours.fileno(), 5), "irdad closed the channel (EOF)")
    check(lines.wait_eof(5), "and the status descriptor")
    ours.close()
    os.close(st_r)


def run_peer_hangup(sock, beta):
    cl = Client(sock, "pppd-hangup")
    ours, theirs = socket.socketpair()
    st_r, st_w = os.pipe()
    attach(cl, [theirs.fileno(), st_w], NICKNAME=b"beta")
    theirs.close()
    os.close(st_w)
    lines = Lines(st_r)
    line = lines.next(20)
    check(line is not None and line.startswith("up 0x"), "calling beta again: %r" % line)
    check(beta.up(), "beta is up too")
    # beta's pppd goes away: beta disconnects
    os.close(beta.fd)
    line = lines.next(15)
    check(line == "down closed-by-peer", "beta's pppd hung up: the endpoint says %r" % line)
    check(read_eof(ours.fileno(), 5), "and irdad closed the channel, so pppd sees the hangup")
    check(lines.wait_eof(5), "and the status descriptor")
    check(cl.counters().get("attach.endpoints") == 0, "STATUS: attach.endpoints 0")
    cl.close()
    ours.close()
    os.close(st_r)


def run_status_full(sock, a_log):
    """A status reader that does not read must not block irdad."""
    cl = Client(sock, "no-reader")
    st_r, st_w = os.pipe()
    os.set_blocking(st_w, False)
    filled = 0
    try:
        while True:
            filled += os.write(st_w, b"x" * 4096)
    except BlockingIOError:
        pass
    # (O_NONBLOCK belongs to the open pipe, shared with irdad's copy:
    # blocking again, so that irdad must set it itself)
    os.set_blocking(st_w, True)
    ours, theirs = socket.socketpair()
    t0 = time.time()
    attach(cl, [theirs.fileno(), st_w], role="listen")
    theirs.close()
    c = cl.counters()
    check(c.get("attach.endpoints") == 1 and time.time() - t0 < 5,
          "ATTACH with a full status pipe (%d bytes): answered, and STATUS after it" % filled)
    check(wait_log(a_log, 'line "listening" dropped', 1, 5),
          "irdad logged the \"listening\" line it could not write")
    data = b""
    os.set_blocking(st_r, False)
    try:
        while True:
            chunk = os.read(st_r, 65536)
            if not chunk:
                break
            data += chunk
    except BlockingIOError:
        pass
    check(data == b"x" * filled, "the pipe holds the filler only: the line was dropped whole")
    cl.close()
    check(read_eof(ours.fileno(), 5), "the session closed: the channel closed")
    ours.close()
    os.close(st_r)
    os.close(st_w)


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
    total = wait_counter(sock, "attach.total", 9)
    check(total == 9, "STATUS: attach.total 9 (%s)" % total)
    for o, ln in held:
        o.close()
        os.close(ln.fd)
    for s in (ours, theirs):
        s.close()
    os.close(st_r)
    os.close(st_w)


if __name__ == "__main__":
    sock_path, b_link, b_log, a_log = sys.argv[1:5]
    run_refusals(sock_path)
    run_no_peer(sock_path)
    b = Beta(b_link, b_log)
    run_pty(sock_path, b)
    run_session_close(sock_path, b)
    run_peer_hangup(sock_path, b)
    run_status_full(sock_path, a_log)
    run_limit(sock_path)
    print("all checks passed")
