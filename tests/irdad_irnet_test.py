"""tests/irdad_irnet_test.py MODE ...: IrNET through two irdad processes,
checked with an RFC 1662 async HDLC implementation of its own (FCS-16
computed bit by bit, not from the daemon's table), run by
tests/irdad-irnet.sh.

  pty A_LINK B_LINK       the two daemons' [irnet] ptys (a calls, b
                          listens): frames both ways come out the same;
                          frames with a bad FCS are dropped
  stdio IRDAD A_DEV B_DEV irdad --stdio at both ends (b --listen), driven
                          through pipes as pppd's pty option would: the
                          status line, frames both ways, the end

Prints one line per check; exits non-zero on the first failure."""
import os
import random
import select
import subprocess
import sys
import termios
import time
import tty
from ceiling import ceiling

FLAG, ESC = 0x7E, 0x7D


def fcs16(data):
    fcs = 0xFFFF
    for b in data:
        fcs ^= b
        for _ in range(8):
            fcs = (fcs >> 1) ^ 0x8408 if fcs & 1 else fcs >> 1
    return fcs


def encode(frame, bad_fcs=False):
    """frame: address..information (no FCS); returns the async HDLC bytes,
    every control character escaped."""
    fcs = fcs16(frame) ^ 0xFFFF
    if bad_fcs:
        fcs ^= 0x0101
    body = frame + bytes([fcs & 0xFF, fcs >> 8])
    out = bytearray([FLAG])
    for b in body:
        if b < 0x20 or b in (FLAG, ESC):
            out += bytes([ESC, b ^ 0x20])
        else:
            out.append(b)
    out.append(FLAG)
    return bytes(out)


class Decoder:
    def __init__(self):
        self.buf = bytearray()
        self.esc = False
        self.frames = []
        self.bad = 0
        self.skip = None     # a frame not kept (copies of a call's first frame)

    def feed(self, data):
        for b in data:
            if b == FLAG:
                if len(self.buf) >= 4:
                    if fcs16(bytes(self.buf)) == 0xF0B8:
                        if bytes(self.buf[:-2]) != self.skip:
                            self.frames.append(bytes(self.buf[:-2]))
                    else:
                        self.bad += 1
                self.buf = bytearray()
                self.esc = False
            elif b == ESC:
                self.esc = True
            else:
                self.buf.append(b ^ 0x20 if self.esc else b)
                self.esc = False


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    print("ok: " + what)


def make_frames(rnd, n, seed_byte):
    """PPP frames (FF 03 protocol ...), sizes up to 1500, with flag, escape
    and control bytes in them."""
    frames = []
    for i in range(n):
        size = rnd.choice([1, 2, 40, 300, 1500, rnd.randint(1, 1500)])
        payload = bytes(rnd.choice([FLAG, ESC, 0x00, 0x11, 0x13, seed_byte, rnd.randrange(256)])
                        for _ in range(size))
        frames.append(bytes([0xFF, 0x03, 0x00, 0x21]) + payload)
    return frames


def pump(ends, deadline_s):
    """ends: list of (fd_out, data_to_write, fd_in, decoder, want_frames).
    Writes and reads until every decoder has its frames or time is up."""
    pending = [[fo, bytearray(data)] for fo, data, _, _, _ in ends]
    deadline = time.time() + ceiling(deadline_s)
    while time.time() < deadline:
        if all(len(dec.frames) >= want for _, _, _, dec, want in ends):
            return True
        rl = [fi for _, _, fi, _, _ in ends]
        wl = [p[0] for p in pending if p[1]]
        r, w, _ = select.select(rl, wl, [], 0.5)
        for p in pending:
            if p[0] in w and p[1]:
                n = os.write(p[0], p[1][:4096])
                del p[1][:n]
        for _, _, fi, dec, _ in ends:
            if fi in r:
                try:
                    data = os.read(fi, 65536)
                except OSError:
                    data = b""
                dec.feed(data)
    return False


def open_raw(path):
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd, termios.TCSANOW)
    return fd


def run_pty(a_link, b_link):
    rnd = random.Random(7)
    # b listens: its IrNetv1 exists only once a pppd has the pty open
    b = open_raw(b_link)
    time.sleep(1)   # b offers IrNetv1 once it has seen its pppd (200 ms watch)
    a = open_raw(a_link)
    fa, fb = make_frames(rnd, 30, 0x5A), make_frames(rnd, 30, 0xA5)
    bad = encode(b"\xff\x03\x00\x21bad", bad_fcs=True)
    # a's first frame makes the call (a listener drops what its pppd sends
    # before a call arrives, as pppd repeats its LCP requests anyway)
    hello = bytes([0xFF, 0x03, 0xC0, 0x21, 1, 1, 0, 4])
    da, db = Decoder(), Decoder()
    deadline = time.time() + ceiling(30)
    while not db.frames and time.time() < deadline:
        os.write(a, encode(hello))
        pump([(a, b"", b, db, 1)], 1)
    check(db.frames[:1] == [hello], "the caller's first frame reached the listener's pppd")
    db.frames = []
    # copies of the hello written before the link was up may still trail
    # in, or not (one hello when the call came up within a second): they
    # are not counted
    db.skip = hello
    # a bad frame first, then the good ones, both ways at once
    ok = pump([(a, bad + b"".join(encode(f) for f in fa), b, db, len(fa)),
               (b, bad + b"".join(encode(f) for f in fb), a, da, len(fb))], 60)
    time.sleep(0.5)
    pump([(a, b"", b, db, 10**6), (b, b"", a, da, 10**6)], 0.5)
    check(ok, "30 PPP frames each way through the [irnet] ptys in time (%d and %d arrived)"
          % (len(db.frames), len(da.frames)))
    check(db.frames == fa and da.frames == fb,
          "the frames came out the same, in order, up to 1500 bytes with flag/escape/control bytes")
    check(da.bad == 0 and db.bad == 0, "every frame out of the ptys has a good FCS")
    os.close(a)
    os.close(b)


def start_stdio(irdad, args, err):
    """irdad --stdio ARGS with --status-fd 3 on a pipe: (process, read end)."""
    st_r, st_w = os.pipe()
    p = subprocess.Popen([irdad, "--stdio", "--status-fd", "3"] + args,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                         pass_fds=(3,), preexec_fn=lambda: os.dup2(st_w, 3))
    os.close(st_w)
    return p, st_r


def first_status_line(fd):
    """The first line on a --status-fd pipe, waited for up to 30 s (scaled)."""
    status = b""
    deadline = time.time() + ceiling(30)
    while b"\n" not in status and time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 1)
        if r:
            data = os.read(fd, 256)
            if not data:
                break
            status += data
    return status.split(b"\n")[0].decode()


def run_stdio(irdad, a_dev, b_dev, tmp):
    common = ["--lock-dir", "none", "--log", "stderr"]
    err_b = open(os.path.join(tmp, "stdio-b.err"), "w")
    err_a = open(os.path.join(tmp, "stdio-a.err"), "w")
    # the caller starts once the listener says it listens: a caller gives
    # up after 3 discoveries, which a listener still starting (ASan, a
    # loaded machine) can miss
    pb, stb_r = start_stdio(irdad, ["--listen", "-D", b_dev, "--nickname", "beta"] + common,
                            err_b)
    line = first_status_line(stb_r)
    check(line == "listening", "--status-fd of the listener says %r" % line)
    pa, st_r = start_stdio(irdad, ["-D", a_dev, "--nickname", "alpha", "--peer", "beta"]
                           + common, err_a)
    line = first_status_line(st_r)
    check(line.startswith("up 0x") and line.endswith('"beta"'),
          "--status-fd says the link is up: %r" % line)
    rnd = random.Random(11)
    fa, fb = make_frames(rnd, 15, 0x11), make_frames(rnd, 15, 0x22)
    da, db = Decoder(), Decoder()
    for p in (pa, pb):
        os.set_blocking(p.stdin.fileno(), False)
    ok = pump([(pa.stdin.fileno(), b"".join(encode(f) for f in fa), pb.stdout.fileno(), db,
                len(fa)),
               (pb.stdin.fileno(), b"".join(encode(f) for f in fb), pa.stdout.fileno(), da,
                len(fb))], 60)
    check(ok and db.frames == fa and da.frames == fb,
          "--stdio: 15 frames each way through two irdad --stdio came out the same")
    # the caller's pppd goes away: both ends finish
    pa.stdin.close()
    rc_a = pa.wait(ceiling(30))
    rc_b = pb.wait(ceiling(30))
    rest = os.read(st_r, 256).decode()
    check(rc_a == 0 and rc_b == 0, "--stdio: both exit 0 when the caller's input ends (%d, %d)"
          % (rc_a, rc_b))
    check(rest.startswith("down"), "--status-fd then says %r" % rest.strip())


if __name__ == "__main__":
    if sys.argv[1] == "pty":
        run_pty(sys.argv[2], sys.argv[3])
    else:
        run_stdio(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    print("all checks passed")
