"""irwire_rig.py: an irwire for the Python parts of the test and bench
scripts: find the programs built, start one, open its pseudo-terminals
raw at a speed, and move bytes both ways at once between two
descriptors."""
import os
import select
import subprocess
import sys
import time
import termios
import tty
from ceiling import ceiling


def built(top, who, *paths):
    """The paths (relative to the build tree top), each checked to be
    there; exits with "WHO: PATH not built" otherwise."""
    out = [os.path.join(top, p) for p in paths]
    for p in out:
        if not os.access(p, os.R_OK):
            sys.exit("%s: %s not built" % (who, p))
    return out


def start(irwire, args=()):
    """Starts irwire with args; returns the process and {"a": pty, "b": pty}."""
    proc = subprocess.Popen([irwire, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    ptys = {}
    while len(ptys) < 2:
        side, path = proc.stdout.readline().split()
        ptys[side] = path
    return proc, ptys


def open_raw(path, speed=termios.B115200):
    """Opens a pty raw (8N1, no echo) at speed; returns the descriptor."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    attrs = termios.tcgetattr(fd)
    attrs[4] = attrs[5] = speed
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    return fd


def exchange(a, b, da, db, deadline_s):
    """Writes da into a and db into b (non-blocking descriptors) while
    reading both, until each has read as much as the other was given or
    deadline_s seconds passed; returns (what a read, what b read).  A read
    error (a pty hung up) counts as nothing read: the caller compares."""
    got = {a: bytearray(), b: bytearray()}
    out = {a: bytearray(da), b: bytearray(db)}
    deadline = time.time() + ceiling(deadline_s)
    while time.time() < deadline and (len(got[a]) < len(db) or len(got[b]) < len(da)):
        wl = [fd for fd in (a, b) if out[fd]]
        r, w, _ = select.select([a, b], wl, [], 1)
        for fd in w:
            try:
                del out[fd][:os.write(fd, out[fd][:4096])]
            except BlockingIOError:
                pass
        for fd in r:
            try:
                got[fd] += os.read(fd, 65536)
            except OSError:
                pass
    return bytes(got[a]), bytes(got[b])
