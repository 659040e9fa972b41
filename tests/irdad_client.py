"""tests/irdad_client.py: a second, independent implementation of irdad's
local API (docs/irdad-api.md) for the tests: messages packed and parsed
from the document's tables with struct, descriptors received with
SCM_RIGHTS.  It checks the daemon against the document, not against the
daemon's own codec."""
import array
import socket
import struct
from ceiling import ceiling

VERSION = 1
MSG = dict(HELLO=1, DISCOVER=2, IAS_QUERY=3, IAS_ADD=4, IAS_REMOVE=5, LISTEN=6,
           CONNECT=7, CLOSE=8, STATUS=9, WATCH=10, ATTACH=11, OK=64, ERROR=65, HELLO_REPLY=66,
           STATIONS=67, IAS_RESULT=68, LISTENING=69, CONNECTION=70, STATUS_REPLY=71,
           DISCONNECTED=72, STATION=73)
MSG_NAME = {v: k for k, v in MSG.items()}
# tag: (name, kind); kinds: u8 u16 u32 u64 str bytes nest
ATTR = {1: ("CLIENT", "str"), 2: ("PORT", "str"), 3: ("ADDR", "u32"), 4: ("NICKNAME", "bytes"),
        5: ("MAX_MSG", "u32"), 6: ("FRESH", "u8"), 7: ("STATION", "nest"), 8: ("HINTS", "u16"),
        9: ("CHARSET", "u8"), 10: ("AGE_MS", "u32"), 11: ("DADDR", "u32"), 12: ("CLASS", "str"),
        13: ("ATTR", "str"), 14: ("IAS_VALUE", "nest"), 15: ("OBJ_ID", "u32"), 16: ("TYPE", "u8"),
        17: ("INT", "u32"), 18: ("OCTETS", "bytes"), 19: ("STRING", "bytes"),
        20: ("IAS_ATTR", "nest"), 21: ("MODE", "u8"), 22: ("LSAP", "u8"), 23: ("MAX_SDU", "u32"),
        24: ("BACKLOG", "u8"), 25: ("LISTENER_ID", "u32"), 26: ("CONN_ID", "u32"),
        27: ("TIMEOUT_MS", "u32"), 28: ("LINK", "u8"), 29: ("PEER", "u32"),
        30: ("COUNTER", "nest"), 31: ("VALUE64", "u64"), 32: ("CONN", "nest"),
        33: ("OWNER", "str"), 34: ("EVENTS", "u32"), 35: ("ERRNO", "u32"), 36: ("TEXT", "str"),
        37: ("REASON", "u8"), 38: ("PRESENT", "u8"), 39: ("PEER_LSAP", "u8"),
        40: ("PEER_MAX_SDU", "u32"), 41: ("TX_MAX", "u32"), 42: ("NAME", "str"),
        43: ("SERVICE", "u8"), 44: ("ROLE", "u8"), 45: ("ENDPOINT_ID", "u32"),
        46: ("PORT_STATE", "u8"), 47: ("PORT_GONE_MS", "u32"), 48: ("PORT_PATH", "str")}
TAG = {name: (tag, kind) for tag, (name, kind) in ATTR.items()}
FMT = {"u8": ">B", "u16": ">H", "u32": ">I", "u64": ">Q"}
MODE = dict(stream=1, sar=2, lmp=3)
SERVICE = dict(irnet=1, ircomm=2)   # ATTACH
ROLE = dict(call=0, listen=1)


def attr(name, value):
    tag, kind = TAG[name]
    if kind in FMT:
        val = struct.pack(FMT[kind], value)
    elif kind == "str":
        val = value.encode()
    elif kind == "nest":
        val = b"".join(attr(n, v) for n, v in value)
    else:
        val = bytes(value)
    return struct.pack(">HH", tag, len(val)) + val


def pack(mtype, seq, attrs=()):
    return struct.pack(">BBHI", VERSION, MSG[mtype], 0, seq) + b"".join(attr(n, v) for n, v in attrs)


def parse_attrs(data):
    out, off = [], 0
    while off < len(data):
        tag, length = struct.unpack_from(">HH", data, off)
        val = data[off + 4:off + 4 + length]
        assert len(val) == length, "attribute cut short"
        off += 4 + length
        name, kind = ATTR.get(tag, (None, None))
        if name is None:
            continue
        if kind in FMT:
            val = struct.unpack(FMT[kind], val)[0]
        elif kind == "str":
            val = val.decode()
        elif kind == "nest":
            val = parse_attrs(val)
        out.append((name, val))
    return out


class Msg:
    def __init__(self, data, fds):
        version, mtype, flags, self.seq = struct.unpack_from(">BBHI", data, 0)
        assert version == VERSION and flags == 0, "bad header"
        self.type = MSG_NAME.get(mtype, str(mtype))
        self.attrs = parse_attrs(data[8:])
        self.fds = fds

    def get(self, name, default=None):
        for n, v in self.attrs:
            if n == name:
                return v
        return default

    def all(self, name):
        return [v for n, v in self.attrs if n == name]

    def __repr__(self):
        return "%s(%d) %r%s" % (self.type, self.seq, self.attrs, " +fd" if self.fds else "")


class DaemonError(Exception):
    def __init__(self, msg):
        super().__init__("%s: errno %s: %s" % (msg.type, msg.get("ERRNO"), msg.get("TEXT")))
        self.errno = msg.get("ERRNO")
        self.text = msg.get("TEXT")


class Client:
    def __init__(self, path, name="test", timeout=20.0, hello=True):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(ceiling(timeout))
        self.sock.connect(path)
        self.seq = 0
        self.events = []
        if hello:
            self.hello = self.request("HELLO", [("CLIENT", name)], "HELLO_REPLY")

    def send_raw(self, data, fds=()):
        if fds:
            self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                        array.array("i", fds).tobytes())])
        else:
            self.sock.send(data)

    def recv(self):
        fds = array.array("i")
        data, anc, flags, _ = self.sock.recvmsg(8192, socket.CMSG_SPACE(4 * fds.itemsize))
        if not data:
            raise EOFError("the daemon closed the session")
        for level, ctype, cdata in anc:
            if level == socket.SOL_SOCKET and ctype == socket.SCM_RIGHTS:
                fds.frombytes(cdata[:len(cdata) - len(cdata) % fds.itemsize])
        return Msg(data, list(fds))

    def request(self, mtype, attrs=(), want=None, fds=()):
        """fds go with the request in SCM_RIGHTS (ATTACH); the caller
        keeps its copies."""
        self.seq += 1
        self.send_raw(pack(mtype, self.seq, attrs), fds)
        while True:
            m = self.recv()
            if m.seq != self.seq or m.type in ("DISCONNECTED", "STATION"):
                self.events.append(m)
                continue
            if m.type == "ERROR":
                raise DaemonError(m)
            if want and m.type != want:
                raise AssertionError("wanted %s, got %r" % (want, m))
            return m

    def next_event(self, want):
        for i, m in enumerate(self.events):
            if m.type == want:
                return self.events.pop(i)
        while True:
            m = self.recv()
            if m.type == want:
                return m
            self.events.append(m)

    def connection_socket(self, m):
        """The socket object for a CONNECTION message's descriptor."""
        assert len(m.fds) == 1, "CONNECTION without exactly one descriptor"
        kind = socket.SOCK_STREAM if m.get("MODE") == MODE["stream"] else socket.SOCK_SEQPACKET
        return socket.socket(socket.AF_UNIX, kind, fileno=m.fds[0])

    def counters(self):
        """STATUS's counters as a dict."""
        m = self.request("STATUS", want="STATUS_REPLY")
        return {dict(c)["NAME"]: dict(c)["VALUE64"] for c in m.all("COUNTER")}

    def close(self):
        self.sock.close()
