#!/usr/bin/env python3
"""irnet_capture_compare.py REFERENCE OURS: the structure of an IrNET
session, read field by field with tshark from two captures (link type
144), must be the same:

  - an IAS GetValueByClass "IrNetv1" "IrDA:TinyTP:LsapSel" answered
    with an integer LSAP;
  - an IrLMP Connect to that LSAP whose data is a TinyTP Connect (P=1,
    a credit) with a MaxSduSize parameter (PI 1), and a Connect Confirm
    carrying a TinyTP header with P=1 too, in both captures;
  - on that LSAP pair, every TinyTP SDU (its PDUs joined while M=1) one
    whole PPP frame: a PPP header (FF 03 unless ACFC, then a protocol of
    one or two bytes), and a length field (LCP/IPCP/CCP/IPv6CP code-id-
    length, IPv4 total length) equal to what the SDU holds: one frame
    per SDU, neither cut nor glued;
  - LCP seen both ways.
Prints what it compared; exit 0 same structure, 1 a difference (named),
2 usage or tshark failure.  tshark does not dissect TinyTP on IrNET's
LSAP (only IAS-announced IrCOMM/OBEX ones), so the TinyTP and PPP bytes
are read from IrLMP's data field.
"""
import subprocess
import sys

FIELDS = ["frame.number", "irlap.a.cr", "irlmp.dst.c", "irlmp.dst.lsap", "irlmp.src.lsap",
          "irlmp.opcode", "iap.classname", "iap.attrname", "iap.int", "data.data"]
CONTROL_PROTOCOLS = {0xc021: "LCP", 0x8021: "IPCP", 0x80fd: "CCP", 0x8057: "IPv6CP",
                     0xc023: "PAP", 0xc223: "CHAP"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def frames(path):
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print("tshark failed on %s: %s" % (path, e))
        sys.exit(2)
    for line in out.splitlines():
        yield dict(zip(FIELDS, line.split("\t")))


def ppp_frame_ok(sdu):
    """(protocol name, why-not or None) for one SDU holding a PPP frame."""
    b = sdu
    if b[:2] == b"\xff\x03":
        b = b[2:]
    if not b:
        return None, "empty PPP frame"
    if b[0] & 1:               # PFC: one-byte protocol
        proto, b = b[0], b[1:]
    elif len(b) >= 2:
        proto, b = (b[0] << 8) | b[1], b[2:]
    else:
        return None, "cut protocol field"
    if proto in CONTROL_PROTOCOLS:
        if len(b) < 4:
            return CONTROL_PROTOCOLS[proto], "cut header"
        n = (b[2] << 8) | b[3]
        if n != len(b):
            return CONTROL_PROTOCOLS[proto], "length field %d, SDU holds %d" % (n, len(b))
        return CONTROL_PROTOCOLS[proto], None
    if proto == 0x21:
        if len(b) < 4 or b[0] >> 4 != 4:
            return "IPv4", "not an IPv4 header"
        n = (b[2] << 8) | b[3]
        if n != len(b):
            return "IPv4", "total length %d, SDU holds %d" % (n, len(b))
        return "IPv4", None
    # VJ-compressed TCP/IP and others carry no length: one per SDU is all
    # that can be said.
    return "0x%04x" % proto, None


def session(path):
    rows = list(frames(path))
    ias = [r for r in rows if r["iap.classname"]]
    if not ias:
        fail("%s: no IAS GetValueByClass" % path)
    q = ias[0]
    if (q["iap.classname"], q["iap.attrname"]) != ("IrNetv1", "IrDA:TinyTP:LsapSel"):
        fail("%s: IAS asked for %s %s" % (path, q["iap.classname"], q["iap.attrname"]))
    answers = [r for r in rows if r["iap.int"] and int(r["frame.number"]) > int(q["frame.number"])]
    if not answers:
        fail("%s: the IAS query got no integer answer" % path)
    lsap = int(answers[0]["iap.int"])
    conn = [r for r in rows if r["irlmp.dst.c"] == "1" and r["irlmp.opcode"] == "0x01"
            and r["irlmp.dst.lsap"] == str(lsap)]
    if not conn:
        fail("%s: no IrLMP Connect to LSAP %d" % (path, lsap))
    ours = int(conn[0]["irlmp.src.lsap"])
    ttp = bytes.fromhex(conn[0]["data.data"])
    if len(ttp) < 1 or not ttp[0] & 0x80:
        fail("%s: the Connect carries no TinyTP parameters (P=0)" % path)
    params = ttp[2:2 + ttp[1]] if len(ttp) >= 2 else b""
    if params[:1] != b"\x01":
        fail("%s: TinyTP Connect without MaxSduSize: %s" % (path, ttp.hex()))
    conf = [r for r in rows if r["irlmp.dst.c"] == "1" and r["irlmp.opcode"] == "0x81"
            and r["irlmp.src.lsap"] == str(lsap) and r["irlmp.dst.lsap"] == str(ours)]
    if not conf:
        fail("%s: no Connect Confirm from LSAP %d" % (path, lsap))
    cttp = bytes.fromhex(conf[0]["data.data"])
    if len(cttp) < 1 or not cttp[0] & 0x80:
        fail("%s: the Confirm carries no TinyTP parameters" % path)
    seen = {"to": {}, "from": {}}
    partial = {"to": b"", "from": b""}
    segmented = 0
    for r in rows:
        if r["irlmp.dst.c"] != "0" or not r["data.data"]:
            continue
        pair = (r["irlmp.src.lsap"], r["irlmp.dst.lsap"])
        if pair == (str(ours), str(lsap)):
            way = "to"
        elif pair == (str(lsap), str(ours)):
            way = "from"
        else:
            continue
        pdu = bytes.fromhex(r["data.data"])
        if len(pdu) == 1 and not partial[way]:
            continue          # a credit-only PDU
        partial[way] += pdu[1:]
        if pdu[0] & 0x80:     # M: more of this SDU follows
            segmented += 1
            continue
        sdu, partial[way] = partial[way], b""
        name, why = ppp_frame_ok(sdu)
        if why:
            fail("%s frame %s: %s: %s" % (path, r["frame.number"], name, why))
        seen[way][name] = seen[way].get(name, 0) + 1
    for way in ("to", "from"):
        if not seen[way].get("LCP"):
            fail("%s: no LCP %s the IrNET service" % (path, way))
    return {"ias": (q["iap.classname"], q["iap.attrname"]), "lsap": lsap,
            "connect": ttp.hex(), "confirm": cttp.hex(), "seen": seen, "segmented": segmented}


def main():
    if len(sys.argv) != 3:
        print("usage: irnet_capture_compare.py REFERENCE.pcap OURS.pcap")
        return 2
    ref, ours = session(sys.argv[1]), session(sys.argv[2])
    for name, s in (("reference", ref), ("ours", ours)):
        print("%-9s IAS %s %s -> LSAP %d; TinyTP connect %s, confirm %s; SDUs to %s, from %s;"
              " %d PDUs with M=1" % (name, s["ias"][0], s["ias"][1], s["lsap"], s["connect"],
                                     s["confirm"], s["seen"]["to"], s["seen"]["from"],
                                     s["segmented"]))
    if ref["ias"] != ours["ias"]:
        fail("IAS queries differ")
    print("same structure: IAS IrNetv1, TinyTP with MaxSduSize both ways, one PPP frame per SDU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
