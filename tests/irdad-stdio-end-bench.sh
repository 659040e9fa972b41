#!/bin/sh
# Benchmark (make bench): how soon the listening end of an
# `irdad --stdio` pair exits after the calling end's input ends, over
# irwire at 115200, for IrNET and for IrCOMM (--service ircomm):
#   - `irdad_stdio_end_irnet`, `irdad_stdio_end_ircomm`: seconds from
#     closing the caller's standard input to the listener's exit, the
#     median of 3 runs.  Since the caller closes the IrDA link after its
#     disconnect (docs/irdad.md, "The program"), the listener hears of the
#     end at once; before, it waited for the link timeout (12 s here).
# Also prints the listener's last status line (`down closed-by-peer` when
# the disconnect reached it, `down link-lost` when only the link's loss
# did).  Timings never fail it.
set -u
: "${abs_top_builddir:=$(pwd)}"
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "irdad-stdio-end-bench: SKIP: python3 not found"; exit 0; }
exec "$PYTHON" - "$abs_top_builddir" "$@" <<'PYEOF'
import os, subprocess, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig

top = sys.argv[1]
irdad = os.path.join(top, "irnet/tools/irdad")
wire, ptys = irwire_rig.start(os.path.join(top, "irnet/tools/irwire"))
common = ["--lock-dir", "none", "--log", "stderr"]


def status(fd):
    buf = b""
    while b"\n" not in buf:
        data = os.read(fd, 256)
        if not data:
            break
        buf += data
    return buf.decode().strip()


def helper(service, dev, args, st_w):
    # (irnet is the default: the same script measures an irdad without --service)
    svc = ["--service", service] if service != "irnet" else []
    return subprocess.Popen([irdad, "--stdio", "-D", dev, "--status-fd", "3"] + svc + args
                            + common,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, pass_fds=(3,),
                            preexec_fn=lambda: os.dup2(st_w, 3))


def once(service):
    ra, wa = os.pipe()
    rb, wb = os.pipe()
    pb = helper(service, ptys["b"], ["--listen", "--nickname", "beta"], wb)
    os.close(wb)
    assert status(rb) == "listening"
    pa = helper(service, ptys["a"], ["--nickname", "alpha", "--peer", "beta"], wa)
    os.close(wa)
    up = status(ra)
    assert up.startswith("up"), up
    assert status(rb).startswith("up")
    time.sleep(0.5)
    t0 = time.time()
    pa.stdin.close()
    pb.wait(60)
    secs = time.time() - t0
    pa.wait(30)
    last = status(rb)
    for fd in (ra, rb):
        os.close(fd)
    pb.stdin.close()
    pa.stdout.close()
    pb.stdout.close()
    time.sleep(1)
    return secs, last


for service in sys.argv[2:] or ("irnet", "ircomm"):
    runs = [once(service) for _ in range(3)]
    times = sorted(t for t, _ in runs)
    print("%s: listener exits %s s after the caller's input ends; its last lines: %s"
          % (service, ", ".join("%.2f" % t for t, _ in runs), ", ".join(l for _, l in runs)))
    print("bench: irdad_stdio_end_%s %.2f s" % (service, times[1]), flush=True)
wire.kill()
wire.wait()
PYEOF
