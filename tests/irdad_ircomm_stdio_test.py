"""tests/irdad_ircomm_stdio_test.py MODE ...: `irdad --stdio --service
ircomm` as the pppd plugin runs it (stdin and stdout a pty master, status
lines on descriptor 3), against a listening irdad's [ircomm] pty; run by
tests/irdad-ircomm-stdio.sh.

  session IRDAD DEV B_LINK B_LOG B_PID TMP
      three helpers in turn, each calling beta (the [ircomm] listener
      whose pty is B_LINK, whose log is B_LOG):
      1. `up 0x... "beta"`; 64 KiB each way at once, intact; 57600 set on
         the slave reaches beta as IrCOMM's data rate; B0 drops beta's CD,
         57600 raises it again; closing the slave: `down closed`, exit 0,
         beta's connection ends;
      2. beta's program closes its pty (beta's DTR, our CD, drops): the
         helper says `down closed-by-peer`, closes the master (the slave
         reads EOF or EIO: pppd's "Modem hangup") and exits 0;
      3. beta's daemon is stopped (SIGTERM to B_PID): `down closed-by-peer`
         or `down link-lost`, the slave reads EOF or EIO.
  fail IRDAD DEV PEER WORD TMP
      a helper calling PEER says `failed WORD` and exits 1.
  fail IRDAD DEV PEER WORD TMP --connect-timeout S
      the same, and it took S seconds at least.
  plain IRDAD A_DEV B_DEV TMP [WIRE]
      two helpers on socketpairs (plain bytes, no termios), b with
      --listen: `listening`, then `up` at both ends, 8 KiB each way, and
      the caller's end of input ends both (`down closed`,
      `down closed-by-peer`, both exit 0).  WIRE (default 3wire) is the
      caller's --wire; with 3wire-raw the listener's too.

Prints one line per check; exits 1 on the first failure."""
import os
import pty
import random
import select
import signal
import socket
import subprocess
import sys
import termios
import time
import tty

import irwire_rig
from ceiling import ceiling

COMMON = ["--lock-dir", "none", "--log", "stderr", "-v"]


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    print("ok: " + what)


class Helper:
    """irdad --stdio --service ircomm on the descriptors given, its status
    lines read from a pipe on its descriptor 3."""

    def __init__(self, irdad, dev, tmp, tag, args, fd_in, fd_out=None):
        st_r, st_w = os.pipe()
        self.err = os.path.join(tmp, "helper-%s.err" % tag)
        with open(self.err, "w") as err:
            self.proc = subprocess.Popen(
                [irdad, "--stdio", "--service", "ircomm", "-D", dev, "--status-fd", "3"]
                + args + COMMON,
                stdin=fd_in, stdout=fd_out if fd_out is not None else fd_in, stderr=err,
                pass_fds=(3,), preexec_fn=lambda: os.dup2(st_w, 3))
        os.close(st_w)
        self.st = st_r
        self.buf = b""

    def line(self, timeout):
        deadline = time.time() + ceiling(timeout)
        while b"\n" not in self.buf and time.time() < deadline:
            r, _, _ = select.select([self.st], [], [], 0.5)
            if r:
                data = os.read(self.st, 256)
                if not data:
                    break
                self.buf += data
        if b"\n" not in self.buf:
            return None
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("ascii", "replace")

    def wait(self, timeout):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        # in the sanitizer build an error also exits 1: say it
        with open(self.err, errors="replace") as f:
            bad = [l for l in f if "Sanitizer" in l or "runtime error:" in l]
        check(not bad, "%s: no sanitizer report%s" % (os.path.basename(self.err),
                                                    (": " + bad[0].strip()) if bad else ""))
        return rc


def open_raw(path):
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd, termios.TCSANOW)
    return fd


def set_speed(fd, speed):
    attrs = termios.tcgetattr(fd)
    attrs[4] = attrs[5] = speed
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def log_count(path, text):
    with open(path, errors="replace") as f:
        return f.read().count(text)


def wait_log(path, text, count=1, timeout=10):
    deadline = time.time() + ceiling(timeout)
    while time.time() < deadline:
        if log_count(path, text) >= count:
            return True
        time.sleep(0.1)
    return False


def exchange(x, y, size, seed, timeout):
    """size random bytes each way at once between descriptors x and y;
    returns (ok, seconds)."""
    rnd = random.Random(seed)
    dx = bytes(rnd.randrange(256) for _ in range(size))
    dy = bytes(rnd.randrange(256) for _ in range(size))
    t0 = time.time()
    gx, gy = irwire_rig.exchange(x, y, dx, dy, timeout)
    return gy == dx and gx == dy, time.time() - t0


def reads_hangup(fd, timeout):
    """True once fd reads EOF or EIO (what the tty gives pppd when the
    other end of its line went away)."""
    deadline = time.time() + ceiling(timeout)
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.5)
        if not r:
            continue
        try:
            if not os.read(fd, 4096):
                return True
        except BlockingIOError:
            continue
        except OSError:
            return True
    return False


def call_beta(irdad, dev, tmp, tag):
    """A helper calling beta on a fresh pty; returns (helper, slave)."""
    master, slave = pty.openpty()
    tty.setraw(slave, termios.TCSANOW)
    set_speed(slave, termios.B115200)
    h = Helper(irdad, dev, tmp, tag, ["--nickname", "alpha", "--peer", "beta"], master)
    os.close(master)  # the helper's is the only one: its close is the hang-up
    os.set_blocking(slave, False)
    line = h.line(30)
    check(line is not None and line.startswith("up 0x") and line.endswith(' "beta"')
          and len(line.split()[1]) == 10,
          "%s: the status line says the call is up: %r" % (tag, line))
    return h, slave


def run_session(irdad, dev, b_link, b_log, b_pid, tmp):
    b = open_raw(b_link)          # beta's program: beta's DTR up
    time.sleep(0.5)

    # 1. data, settings, our hang-up
    h, s = call_beta(irdad, dev, tmp, "1")
    ok, secs = exchange(s, b, 64 * 1024, 5, 120)
    check(ok, "64 KiB each way at once between the helper's pty and beta's, intact "
          "(%.1f s, %.0f bytes/s both ways)" % (secs, 2 * 64 * 1024 / secs))
    set_speed(s, termios.B57600)
    check(wait_log(b_log, "peer's data rate 57600, format 8N1 (0x03)"),
          "57600 set on the slave reached beta as IrCOMM's data rate, 8N1 decoded")
    downs = log_count(b_log, "peer's carrier (CD) down")
    set_speed(s, termios.B0)
    check(wait_log(b_log, "peer's carrier (CD) down", downs + 1),
          "B0 on the slave dropped DTR: beta saw its CD go down")
    ups = log_count(b_log, "peer's carrier (CD) up")
    set_speed(s, termios.B57600)
    check(wait_log(b_log, "peer's carrier (CD) up", ups + 1),
          "57600 again raised DTR: beta saw its CD come up, the connection kept")
    os.write(s, b"last words\r\n")
    lost = log_count(b_log, "connection lost")
    os.close(s)
    line = h.line(15)
    check(line == "down closed", "closing the slave: the helper says %r" % line)
    rc = h.wait(15)
    check(rc == 0, "the helper exits 0 after its connection (%s)" % rc)
    check(wait_log(b_log, "connection lost", lost + 1), "beta saw the connection end")
    got = b""
    deadline = time.time() + ceiling(5)
    while not got.endswith(b"last words\r\n") and time.time() < deadline:
        r, _, _ = select.select([b], [], [], 0.5)
        if r:
            got += os.read(b, 4096)
    check(got.endswith(b"last words\r\n"), "what was written just before the close reached beta")
    time.sleep(1)                 # beta listens again

    # 2. beta's program hangs up
    h, s = call_beta(irdad, dev, tmp, "2")
    os.write(b, b"NO CARRIER\r\n")
    time.sleep(0.5)
    os.close(b)
    # as pppd does: the line is read all along
    got = b""
    deadline = time.time() + ceiling(15)
    while b"NO CARRIER\r\n" not in got and time.time() < deadline:
        r, _, _ = select.select([s], [], [], 0.5)
        if r:
            try:
                got += os.read(s, 4096)
            except OSError:
                break
    check(b"NO CARRIER\r\n" in got, "beta's last bytes reached the slave")
    line = h.line(15)
    check(line == "down closed-by-peer",
          "beta's program closed its pty (CD dropped): the helper says %r" % line)
    check(reads_hangup(s, 10), "the helper closed the master: the slave reads EOF/EIO")
    rc = h.wait(15)
    check(rc == 0, "the helper exits 0 (%s)" % rc)
    os.close(s)
    time.sleep(1)

    # 3. beta's daemon goes away
    b = open_raw(b_link)
    time.sleep(0.5)
    h, s = call_beta(irdad, dev, tmp, "3")
    os.kill(b_pid, signal.SIGTERM)
    line = h.line(30)
    check(line in ("down closed-by-peer", "down link-lost"),
          "beta's daemon stopped: the helper says %r" % line)
    check(reads_hangup(s, 10), "the slave reads EOF/EIO")
    rc = h.wait(15)
    check(rc == 0, "the helper exits 0 (%s)" % rc)
    os.close(s)
    os.close(b)


def run_fail(irdad, dev, peer, word, tmp, *extra):
    master, slave = pty.openpty()
    h = Helper(irdad, dev, tmp, "fail-" + word, ["--nickname", "alpha", "--peer", peer]
               + list(extra), master)
    os.close(master)
    t0 = time.time()
    line = h.line(60)
    secs = time.time() - t0
    check(line == "failed " + word, "calling %s%s: the helper says %r (after %.1f s)"
          % (peer, " " + " ".join(extra) if extra else "", line, secs))
    if "--connect-timeout" in extra:
        # a lower bound only (a loaded machine is slower, never faster):
        # without the option it gives up after 3 discoveries, about 2.3 s
        limit = float(extra[list(extra).index("--connect-timeout") + 1])
        check(secs >= limit - 0.2, "it kept looking for the %.0f s it was given" % limit)
    rc = h.wait(15)
    check(rc == 1, "it exits 1 (%s)" % rc)
    check(reads_hangup(slave, 5), "it closed the master: the slave reads EOF/EIO")
    os.close(slave)


def run_plain(irdad, a_dev, b_dev, tmp, wire="3wire"):
    la, ra = socket.socketpair()
    lb, rb = socket.socketpair()
    b_wire = ["--wire", wire] if wire == "3wire-raw" else []
    hb = Helper(irdad, b_dev, tmp, "plain-b-" + wire, ["--nickname", "beta", "--listen"] + b_wire,
                rb.fileno())
    rb.close()
    line = hb.line(15)
    check(line == "listening", "--listen on a socketpair: %r" % line)
    ha = Helper(irdad, a_dev, tmp, "plain-a-" + wire, ["--nickname", "alpha", "--peer", "beta",
                                                       "--wire", wire], ra.fileno())
    ra.close()
    la_line, lb_line = ha.line(30), hb.line(30)
    check(la_line is not None and la_line.startswith("up 0x") and la_line.endswith('"beta"'),
          "the caller says %r" % la_line)
    check(lb_line is not None and lb_line.startswith("up 0x") and lb_line.endswith('"alpha"'),
          "the listener says %r (the caller's address and nickname)" % lb_line)
    la.setblocking(False)
    lb.setblocking(False)
    ok, secs = exchange(la.fileno(), lb.fileno(), 8192, 9, 60)
    check(ok, "8 KiB each way through two helpers on socketpairs, %s, intact (%.1f s)"
          % (wire, secs))
    la.shutdown(socket.SHUT_WR)
    a_end, b_end = ha.line(15), hb.line(15)
    check(a_end == "down closed" and b_end == "down closed-by-peer",
          "the caller's end of input ends both: %r, %r" % (a_end, b_end))
    rc_a, rc_b = ha.wait(15), hb.wait(15)
    check(rc_a == 0 and rc_b == 0, "both exit 0 (%s, %s)" % (rc_a, rc_b))
    want = "3-wire raw" if wire == "3wire-raw" else "3-wire"
    kind = [l.split(", ", 1)[1].strip() for l in open(ha.err, errors="replace")
            if "ircomm stdio: connected to" in l]
    check(kind and kind[0].startswith(want) and (wire == "3wire-raw" or "raw" not in kind[0]),
          "the caller's log says it ran %s: %r" % (want, kind))
    la.close()
    lb.close()


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "session":
        run_session(args[0], args[1], args[2], args[3], int(args[4]), args[5])
    elif mode == "fail":
        run_fail(*args)
    else:
        run_plain(*args)
    print("all checks passed")
