"""tests/irsock_obex_check.py: reads `tshark -T fields` lines of a capture
(frame, irlap.a.cr, irlmp.dst.lsap, irlmp.src.lsap, irlmp.dst.c,
irlmp.opcode, data.data, iap.classname, iap.int; tab-separated; the
IrLAP C/R bit tells the two stations apart, since both may use the same
LSAP number) and checks the TinyTP
and OBEX layers that tshark 4.0 does not dissect (its IrDA plugin follows
IAS only for the Device, IrDA:IrCOMM and IrLPT classes):

  - the IAS answers name the LSAPs of the OBEX classes asked for;
  - every IrLMP connection to one of those LSAPs carries TinyTP data PDUs
    with a header byte each (no SAR: the M bit never set);
  - the bytes after the header bytes, per direction, are a sequence of
    whole OBEX packets (opcode, 16-bit length >= 3, exactly consumed):
    the initiator's start with CONNECT (0x80) and end with DISCONNECT
    (0x81), and every request has one response.

Prints a summary line per connection; exits 1 with the reason otherwise.
Run by tests/irsock-ircp.sh."""
import sys

REQUESTS = {0x80: "CONNECT", 0x81: "DISCONNECT", 0x02: "PUT", 0x82: "PUT",
            0x03: "GET", 0x83: "GET", 0x85: "SETPATH", 0xFF: "ABORT"}


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def obex_packets(data, what):
    out, at = [], 0
    while at < len(data):
        if len(data) - at < 3:
            fail("%s: %d bytes left, not an OBEX packet" % (what, len(data) - at))
        n = data[at + 1] << 8 | data[at + 2]
        if n < 3 or at + n > len(data):
            fail("%s: OBEX packet at %d has length %d (%d bytes left)" % (what, at, n, len(data) - at))
        out.append(data[at])
        at += n
    return out


def num(x):
    return int(x, 16) if x.startswith("0x") else int(x)


def main():
    obex_lsaps = {}          # LSAP -> class, from IAS answers
    asked = None
    conns = {}               # (initiator lsap, responder lsap, n) -> {dir: bytes}
    current = {}             # frozenset(pair) -> key
    nconn = 0
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        if len(f) < 9:
            continue
        _, cr, dst, src, dstc, opcode, data, cls, integer = f[:9]
        if cls:
            asked = cls
        if integer and asked and asked.startswith("OBEX"):
            obex_lsaps[num(integer)] = asked
            asked = None
        if not dst or not src:
            continue
        d, s = num(dst), num(src)
        pair = frozenset((d, s))
        if dstc == "1":
            if opcode and num(opcode) == 0x01 and d in obex_lsaps:
                nconn += 1
                current[pair] = (s, d, nconn, cr)
                conns[current[pair]] = {"req": bytearray(), "rsp": bytearray(), "pdus": 0}
            continue
        key = current.get(pair)
        if key is None or not data:
            continue
        b = bytes.fromhex(data)
        if b[0] & 0x80:
            fail("connection %d: a TinyTP PDU with the M bit set (SAR) on a stream" % key[2])
        c = conns[key]
        c["pdus"] += 1
        c["req" if cr == key[3] else "rsp"] += b[1:]
    if not obex_lsaps:
        fail("no IAS answer for an OBEX class")
    if not conns:
        fail("no connection to an OBEX LSAP")
    for key, c in sorted(conns.items(), key=lambda kv: kv[0][2]):
        what = "connection %d (LSAP %d -> %d, %s)" % (key[2], key[0], key[1], obex_lsaps[key[1]])
        req = obex_packets(c["req"], what + " requests")
        rsp = obex_packets(c["rsp"], what + " responses")
        if not req or req[0] != 0x80 or req[-1] != 0x81:
            fail("%s: requests do not run CONNECT ... DISCONNECT: %s" % (what, [hex(x) for x in req]))
        if len(rsp) != len(req):
            fail("%s: %d requests, %d responses" % (what, len(req), len(rsp)))
        bad = [hex(x) for x in req if x not in REQUESTS]
        if bad:
            fail("%s: unknown request opcodes %s" % (what, bad))
        names = {}
        for x in req:
            names[REQUESTS[x]] = names.get(REQUESTS[x], 0) + 1
        print("ok: %s: %d TinyTP data PDUs; OBEX %s, %d responses (%s)" % (
            what, c["pdus"], " ".join("%s x%d" % kv for kv in names.items()), len(rsp),
            " ".join(sorted({hex(x) for x in rsp}))))


main()
