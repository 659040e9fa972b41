#!/bin/sh
# irwire's receive timing at 115200: the tail of a burst reaches the other
# side 4 character times after its last byte (a 16550's receive timeout;
# 347 us), and with --low-latency as each byte arrives.  Four bytes: 347 us
# on the line, so by default all four are there no sooner than 694 us
# after the write, a bound no machine can beat.  --low-latency must carry
# the bytes intact; its latency is printed, not judged (timings never fail
# a test on a shared machine).
. "${top_srcdir:-.}/tests/lib.sh"
irwire="$abs_top_builddir/irnet/tools/irwire"
[ -x "$irwire" ] || { echo "FAIL: $irwire not built"; exit 1; }
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || skip "python3 not found"
exec "$PYTHON" - "$irwire" <<'PYEOF'
import os, select, sys, time
sys.dont_write_bytecode = True   # nothing written into the source tree
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig

def latency_ms(args):
    """Median time from writing one byte on side a to reading it on b."""
    w, ptys = irwire_rig.start(sys.argv[1], args)
    fds = [irwire_rig.open_raw(ptys[k]) for k in ("a", "b")]
    time.sleep(0.2)
    took = []
    for i in range(9):
        t0 = time.monotonic()
        os.write(fds[0], b"\x55\x0f\xf0\xaa")
        got = b""
        while len(got) < 4:
            r, _, _ = select.select([fds[1]], [], [], 1.0)
            if not r:
                break
            got += os.read(fds[1], 16)
        if got != b"\x55\x0f\xf0\xaa":
            sys.exit("FAIL: irwire %s: the bytes did not arrive intact" % " ".join(args))
        took.append((time.monotonic() - t0) * 1000)
        time.sleep(0.02)
    for fd in fds:
        os.close(fd)
    w.terminate()
    w.wait()
    return sorted(took)[4], min(took)

(default, default_min), (low, low_min) = latency_ms([]), latency_ms(["--low-latency"])
print("four bytes at 115200, median: %.3f ms by default, %.3f ms with --low-latency"
      % (default, low))
if default_min < 0.694:
    sys.exit("FAIL: default delivery faster than line time + 4-character timeout")
print("PASS")
PYEOF
