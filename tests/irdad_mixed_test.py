"""tests/irdad_mixed_test.py TMP BREAK_AT BREAK_LEN: run by
tests/irdad-mixed.sh, with two irdad (alpha calls, beta listens) that
each serve an [ircomm] and an [irnet] pty, and an irspray transfer
through beta's local API that the shell script runs at the same time.

1. Three things at once on one link: 48 KiB each way through the IrCOMM
   ptys and 20 PPP frames each way through the IrNET ptys, all checked,
   while irspray moves its own data through the API.
2. The link breaks (irwire --break, longer than IrLAP's disconnect
   time): both IrCOMM ends see it (the daemons' logs, checked by the
   script), alpha's IrCOMM endpoint (reconnect yes) calls again, and
   16 KiB each way after it arrive intact."""
import os
import random
import select
import sys
import time

from irdad_irnet_test import Decoder, check, encode, make_frames, open_raw, pump
from irwire_rig import exchange
from ceiling import ceiling


def call_up(a, b):
    """Bytes from the caller until one reaches the listener (a caller
    dials when its pty is opened, or again after a link loss); then what
    else is still on its way is drained, so the data that follows starts
    clean."""
    deadline = time.time() + ceiling(60)
    while time.time() < deadline:
        os.write(a, b"\x00")
        r, _, _ = select.select([b], [], [], 1)
        if r and os.read(b, 4096):
            end = time.time() + 1.5
            while time.time() < end:
                r, _, _ = select.select([b], [], [], 0.2)
                if r:
                    os.read(b, 4096)
            return True
    return False


def main():
    tmp, break_at, break_len = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    t_start = float(open(os.path.join(tmp, "wire.start")).read())
    rnd = random.Random(5)
    cb = open_raw(os.path.join(tmp, "ircomm-b"))
    nb = open_raw(os.path.join(tmp, "irnet-b"))
    time.sleep(1)   # the listeners offer their service once they have seen the open
    ca = open_raw(os.path.join(tmp, "ircomm-a"))
    na = open_raw(os.path.join(tmp, "irnet-a"))
    check(call_up(ca, cb), "IrCOMM call up")
    hello = bytes([0xFF, 0x03, 0xC0, 0x21, 1, 1, 0, 4])
    dn = Decoder()
    deadline = time.time() + ceiling(60)
    while not dn.frames and time.time() < deadline:
        os.write(na, encode(hello))
        pump([(na, b"", nb, dn, 1)], 1)
    check(dn.frames[:1] == [hello], "IrNET call up")
    open(os.path.join(tmp, "calls.up"), "w").close()   # the script starts irspray now

    # 1. both services at once, beside irspray
    size = 48 * 1024
    da = bytes(rnd.randrange(256) for _ in range(size))
    db = bytes(rnd.randrange(256) for _ in range(size))
    fa, fb = make_frames(rnd, 20, 0x33), make_frames(rnd, 20, 0x44)
    dna, dnb = Decoder(), Decoder()
    # IrNET and IrCOMM in one loop
    out_n = {na: bytearray(b"".join(encode(f) for f in fa)), nb: bytearray(b"".join(encode(f) for f in fb))}
    out_c = {ca: bytearray(da), cb: bytearray(db)}
    in_c = {ca: bytearray(), cb: bytearray()}
    deadline = time.time() + ceiling(150)
    while time.time() < deadline:
        done_c = len(in_c[ca]) >= size and len(in_c[cb]) >= size
        done_n = len([f for f in dnb.frames if f != hello]) >= len(fa) and len(dna.frames) >= len(fb)
        if done_c and done_n:
            break
        wl = [fd for fd, o in list(out_n.items()) + list(out_c.items()) if o]
        r, w, _ = select.select([na, nb, ca, cb], wl, [], 1)
        for fd in w:
            o = out_n.get(fd, out_c.get(fd))
            try:
                del o[:os.write(fd, o[:4096])]
            except BlockingIOError:
                pass
        for fd in r:
            try:
                data = os.read(fd, 65536)
            except (BlockingIOError, OSError):
                continue
            if fd in in_c:
                in_c[fd] += data
            else:
                (dna if fd == na else dnb).feed(data)
    check(bytes(in_c[cb]) == da and bytes(in_c[ca]) == db,
          "IrCOMM: 48 KiB each way intact while IrNET and irspray shared the link")
    check([f for f in dnb.frames if f != hello] == fa and dna.frames == fb,
          "IrNET: 20 PPP frames each way intact while IrCOMM and irspray shared the link")

    # 2. the break: wait until it is over, then data again
    now = time.time() - t_start
    wait = break_at + break_len - now + 1
    check(wait > 0, "phase 1 ended %.1f s before the break" % (break_at - now))
    time.sleep(wait)
    open(os.path.join(tmp, "break.over"), "w").close()
    d2a = bytes(rnd.randrange(256) for _ in range(16 * 1024))
    d2b = bytes(rnd.randrange(256) for _ in range(16 * 1024))
    check(call_up(ca, cb), "after the break, alpha's IrCOMM endpoint called again")
    ga, gb = exchange(ca, cb, d2a, d2b, 60)
    check(gb == d2a and ga == d2b, "16 KiB each way intact after the reconnection")
    for fd in (ca, cb, na, nb):
        os.close(fd)
    print("all checks passed")


if __name__ == "__main__":
    main()
