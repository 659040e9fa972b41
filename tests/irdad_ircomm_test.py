"""tests/irdad_ircomm_test.py A_LINK B_LINK [KIB]: bytes through two
irdad's [ircomm] ptys (a calls, b listens), run by tests/irdad-ircomm.sh
after its gammu check and by tests/irdad-ircomm-raw.sh.  KIB (256) KiB of
random data each way at once, checked byte for byte; then a speed change
on a's pty (b's daemon logs it, the shell script checks); exits leaving
both ptys closed."""
import os
import random
import select
import sys
import termios
import time
import tty

from irwire_rig import exchange
from ceiling import ceiling


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    print("ok: " + what)


def open_raw(path):
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd, termios.TCSANOW)
    return fd


def main():
    a_link, b_link = sys.argv[1], sys.argv[2]
    kib = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    size = kib * 1024
    rnd = random.Random(3)
    da = bytes(rnd.randrange(256) for _ in range(size))
    db = bytes(rnd.randrange(256) for _ in range(size))
    b = open_raw(b_link)       # the listener's program (DTR up)
    a = open_raw(a_link)       # the caller's: opening it dials
    got = {a: bytearray(), b: bytearray()}
    out = {a: bytearray(da), b: bytearray(db)}
    # b starts sending once the call is up: what a listener's program
    # writes with nobody connected is not kept (as a modem line)
    deadline = time.time() + ceiling(60)
    first = time.time()
    while time.time() < deadline and not got[b]:
        os.write(a, out[a][:1])
        del out[a][:1]
        r, _, _ = select.select([b], [], [], 0.5)
        if r:
            got[b] += os.read(b, 65536)
    check(got[b][:1] == da[:1], "the call is up: a's first byte reached b")
    t0 = time.time()
    ga, gb = exchange(a, b, bytes(out[a]), db, 180)
    secs = time.time() - t0
    check(bytes(got[b]) + gb == da and ga == db,
          "%d KiB each way at once through the IrCOMM ptys, intact (%.1f s, %.0f bytes/s "
          "both ways)" % (kib, secs, 2 * size / secs))
    attrs = termios.tcgetattr(a)
    attrs[4] = attrs[5] = termios.B57600
    termios.tcsetattr(a, termios.TCSANOW, attrs)
    time.sleep(1.5)
    os.close(a)
    time.sleep(1.5)
    os.close(b)
    print("all checks passed")


if __name__ == "__main__":
    main()
