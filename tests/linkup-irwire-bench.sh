#!/bin/sh
# Benchmark (make bench): link set-up time in real time over irwire at
# 115200.  `irdiscover --connect` finds an `irdiscover --listen` peer
# (6 slots) and opens a link at once; its capture (our side's view:
# frames sent stamped when written, frames received when read) gives
# the times.  Link-up runs from the final XID (the connect request is
# made as discovery reports the peer, right after it) to the listener's
# first frame at 115200 (the answer to our first poll: data can flow).
# Prints the mean over RUNS runs as `bench: link_up_ms_irwire N ms`, the
# worst run, and the breakdown: final XID -> SNRM written, SNRM -> UA
# read, UA -> first answer read, and the RR(P) frames sent before that
# answer (1 = the first poll was not lost).  Timings never fail it; a
# run that does not link does.
set -u
: "${abs_top_builddir:=$(pwd)}"
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "linkup-irwire-bench: SKIP: python3 not found"; exit 0; }
exec "$PYTHON" - "$abs_top_builddir" "${RUNS:-6}" <<'PYEOF'
import os, struct, subprocess, sys, tempfile
sys.dont_write_bytecode = True   # nothing written into the source tree
sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "tests"))
import irwire_rig

top, runs = sys.argv[1], int(sys.argv[2])
irwire = os.path.join(top, "irnet/tools/irwire")
irdiscover = os.path.join(top, "irnet/tools/irdiscover")
for prog in (irwire, irdiscover):
    if not os.access(prog, os.X_OK):
        sys.exit("linkup-irwire-bench: %s not built" % prog)

def frames(path):
    """(time us, sent?, frame bytes) of each record of a link type 144 pcap."""
    with open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack_from("<I", data, 0)
    if magic != 0xa1b2c3d4 or struct.unpack_from("<I", data, 20)[0] != 144:
        sys.exit("linkup-irwire-bench: %s: not a little-endian link type 144 capture" % path)
    off, out = 24, []
    while off + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack_from("<IIII", data, off)
        rec = data[off + 16:off + 16 + incl]
        if len(rec) < 18:
            sys.exit("linkup-irwire-bench: %s: short record at offset %d" % (path, off))
        ptype, = struct.unpack_from(">H", rec, 0)
        out.append((sec * 1000000 + usec, ptype == 4, rec[16:]))
        off += 16 + incl
    return out

def times(path):
    """The set-up's times (ms) from one capture, or None."""
    t = {"polls": 0}
    for ts, sent, f in frames(path):
        a, c = f[0], f[1]
        if "snrm" not in t:
            if sent and c == 0x3f and len(f) > 12 and f[12] == 0xff:
                t["final_xid"] = ts
            elif sent and c == 0x93:
                t["snrm"] = ts
        elif "ua" not in t:
            if not sent and c == 0x73:
                t["ua"] = ts
        elif sent and c & 0x1f == 0x11:          # RR command with P
            t["polls"] += 1
        elif not sent and t["polls"]:
            t["answer"] = ts
            break
    if not all(k in t for k in ("final_xid", "snrm", "ua", "answer")):
        return None
    ms = lambda a, b: (t[b] - t[a]) / 1000.0
    return {"link_up": ms("final_xid", "answer"), "xid_to_snrm": ms("final_xid", "snrm"),
            "snrm_to_ua": ms("snrm", "ua"), "ua_to_data": ms("ua", "answer"),
            "polls": t["polls"]}

wire, ptys = irwire_rig.start(irwire)
lst = subprocess.Popen([irdiscover, "--listen", "-d", ptys["b"], "--nickname", "beta",
                        "--lock-dir", ""],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
if not lst.stdout.readline().startswith("listening on"):
    sys.exit("linkup-irwire-bench: listener did not start")
results, ok = [], True
with tempfile.TemporaryDirectory() as tmp:
    for i in range(runs):
        cap = os.path.join(tmp, "c%d.pcap" % i)
        p = subprocess.run([irdiscover, "-d", ptys["a"], "--connect", "--slots", "6",
                            "--speed", "115200", "--timeout", "8", "--lock-dir", "",
                            "--pcap", cap], capture_output=True, text=True)
        r = times(cap) if p.returncode == 0 else None
        if r is None:
            print("linkup-irwire-bench: run %d did not link (exit %d): %s" %
                  (i, p.returncode, p.stderr.strip()))
            ok = False
            continue
        print("# run %d: link up %.1f ms (SNRM %.1f ms after the final XID, UA %.1f ms after "
              "it, answer %.1f ms after the UA, %d RR(P))" % (i, r["link_up"], r["xid_to_snrm"],
              r["snrm_to_ua"], r["ua_to_data"], r["polls"]))
        results.append(r)
lst.terminate()
lst.wait()
wire.terminate()
wire.wait()
if results:
    mean = lambda k: sum(r[k] for r in results) / len(results)
    print("bench: link_up_ms_irwire %.1f ms" % mean("link_up"))
    print("bench: link_up_ms_irwire_worst %.1f ms" % max(r["link_up"] for r in results))
    for k in ("xid_to_snrm", "snrm_to_ua", "ua_to_data"):
        print("bench: link_up_irwire_%s_ms %.1f ms" % (k, mean(k)))
    print("bench: link_up_irwire_polls %.2f frames" % mean("polls"))
sys.exit(0 if ok else 1)
PYEOF
