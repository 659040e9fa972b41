"""tests/irsock_obex_check.py [--pcapng OUT]: reads `tshark -T fields`
lines of an IrDA capture (frame.time_epoch, irlap.a.cr, irlmp.dst.lsap,
irlmp.src.lsap, irlmp.dst.c, irlmp.opcode, data.data, iap.classname,
iap.int; tab-separated; the IrLAP C/R bit tells the two stations apart,
since both may use the same LSAP number) and checks the TinyTP layer,
which tshark 4.0 does not dissect for OBEX (its IrDA plugin follows IAS
only for the Device, IrDA:IrCOMM and IrLPT classes, and has no Decode-As
table for IrLMP selectors):

  - the IAS answers name the LSAPs of the OBEX classes asked for;
  - every IrLMP connection to one of those LSAPs carries TinyTP data PDUs
    with a header byte each (no SAR: the M bit never set);
  - the bytes after the header bytes, per direction, are a sequence of
    whole OBEX packets (opcode, 16-bit length >= 3, exactly consumed):
    the initiator's start with CONNECT (0x80) and end with DISCONNECT
    (0x81), and every request has one response.

With --pcapng, writes every OBEX packet it split out to OUT, one packet
per pcapng block with link type USER0 (147), in the order they completed
on the air, with the frame's time: requests flagged outbound, responses
inbound (tshark's OBEX dissector tells requests from responses by that
direction).  tests/irsock-ircp.sh has tshark decode that file with its
own OBEX dissector (a user DLT mapped to "obex"), so the OBEX headers are
checked by a parser that is not ours.

Prints a summary line per connection; exits 1 with the reason otherwise.
Run by tests/irsock-ircp.sh."""
import struct
import sys

REQUESTS = {0x80: "CONNECT", 0x81: "DISCONNECT", 0x02: "PUT", 0x82: "PUT",
            0x03: "GET", 0x83: "GET", 0x85: "SETPATH", 0xFF: "ABORT"}
LINKTYPE_USER0 = 147
DIRECTION_INBOUND, DIRECTION_OUTBOUND = 1, 2


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


class Pcapng:
    """The few pcapng blocks tshark needs: a section header, one
    interface, and enhanced packet blocks with a direction flag."""

    def __init__(self, path):
        self.out = open(path, "wb")
        self.block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + self.end_of_options())
        self.block(1, struct.pack("<HHI", LINKTYPE_USER0, 0, 65535) + self.end_of_options())

    @staticmethod
    def padded(b):
        return b + b"\0" * (-len(b) % 4)

    @staticmethod
    def end_of_options():
        return struct.pack("<HH", 0, 0)

    def block(self, kind, body):
        n = 12 + len(body)
        self.out.write(struct.pack("<II", kind, n) + body + struct.pack("<I", n))

    def packet(self, seconds, data, direction):
        us = int(round(seconds * 1e6))
        flags = struct.pack("<HHI", 2, 4, direction)   # epb_flags
        body = struct.pack("<IIIII", 0, us >> 32, us & 0xFFFFFFFF, len(data), len(data))
        self.block(6, body + self.padded(data) + flags + self.end_of_options())

    def close(self):
        self.out.close()


class Direction:
    """One direction of one connection: the bytes after the TinyTP
    header bytes, cut into OBEX packets as they complete."""

    def __init__(self, what, pcap, flag):
        self.what, self.pcap, self.flag = what, pcap, flag
        self.pending = bytearray()
        self.opcodes = []

    def add(self, seconds, data):
        self.pending += data
        while len(self.pending) >= 3:
            n = self.pending[1] << 8 | self.pending[2]
            if n < 3:
                fail("%s: OBEX packet %d has length %d" % (self.what, len(self.opcodes) + 1, n))
            if n > len(self.pending):
                return
            self.opcodes.append(self.pending[0])
            if self.pcap:
                self.pcap.packet(seconds, bytes(self.pending[:n]), self.flag)
            del self.pending[:n]

    def finish(self):
        if self.pending:
            fail("%s: %d bytes left after %d OBEX packets, not a whole packet" % (
                self.what, len(self.pending), len(self.opcodes)))
        return self.opcodes


def num(x):
    return int(x, 16) if x.startswith("0x") else int(x)


def main():
    pcap = None
    if len(sys.argv) == 3 and sys.argv[1] == "--pcapng":
        pcap = Pcapng(sys.argv[2])
    elif len(sys.argv) != 1:
        fail("usage: irsock_obex_check.py [--pcapng OUT] < tshark fields")
    obex_lsaps = {}          # LSAP -> class, from IAS answers
    asked = None
    conns = {}               # (initiator lsap, responder lsap, n, cr) -> {...}
    current = {}             # frozenset(pair) -> key
    nconn = 0
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        if len(f) < 9:
            continue
        when, cr, dst, src, dstc, opcode, data, cls, integer = f[:9]
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
                key = (s, d, nconn, cr)
                current[pair] = key
                what = "connection %d" % nconn
                conns[key] = {"req": Direction(what + " requests", pcap, DIRECTION_OUTBOUND),
                              "rsp": Direction(what + " responses", pcap, DIRECTION_INBOUND),
                              "pdus": 0}
            continue
        key = current.get(pair)
        if key is None or not data:
            continue
        b = bytes.fromhex(data)
        if b[0] & 0x80:
            fail("connection %d: a TinyTP PDU with the M bit set (SAR) on a stream" % key[2])
        c = conns[key]
        c["pdus"] += 1
        c["req" if cr == key[3] else "rsp"].add(float(when), b[1:])
    if pcap:
        pcap.close()
    if not obex_lsaps:
        fail("no IAS answer for an OBEX class")
    if not conns:
        fail("no connection to an OBEX LSAP")
    for key, c in sorted(conns.items(), key=lambda kv: kv[0][2]):
        what = "connection %d (LSAP %d -> %d, %s)" % (key[2], key[0], key[1], obex_lsaps[key[1]])
        req = c["req"].finish()
        rsp = c["rsp"].finish()
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
