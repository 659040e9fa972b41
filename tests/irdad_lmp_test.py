"""tests/irdad_lmp_test.py A.SOCK B.SOCK: plain IrLMP connections (MODE
lmp) through the local API of two irdad on one link (run by
tests/irdad-lmp.sh).  Prints one line per check; exits non-zero on the
first failure."""
import errno
import select
import socket
import struct
import sys
import threading
import time

from irdad_client import Client, DaemonError, MODE
from ceiling import ceiling

A, B = sys.argv[1], sys.argv[2]
REASON_USER = 0x01


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    print("ok: " + what)


def pattern(n, seed):
    return bytes(((i * 131) ^ (i >> 9) ^ seed) & 0xFF for i in range(n))


def counters(cl):
    st = cl.request("STATUS", [], "STATUS_REPLY")
    return st, {dict(c)["NAME"]: dict(c)["VALUE64"] for c in st.all("COUNTER")}


def send_all(sock, msgs):
    """Each message with one send (blocking: irdad reads at the link's pace)."""
    for m in msgs:
        n = sock.send(m)
        assert n == len(m), "a SEQPACKET send was cut"


def recv_n(sock, n, timeout=30):
    got = []
    end = time.time() + ceiling(timeout)
    while len(got) < n:
        r, _, _ = select.select([sock], [], [], max(0.0, end - time.time()))
        if not r:
            break
        m = sock.recv(65536)
        if not m:
            break
        got.append(m)
    return got


def messages(count, tx_max, seed):
    """Sizes from 1 to tx_max, each message numbered in its first 2 bytes."""
    out = []
    for i in range(count):
        n = 2 + (i * 97 + seed) % (tx_max - 1)
        out.append(struct.pack(">H", i) + pattern(n - 2, (i + seed) & 0xFF))
    out[-1] = struct.pack(">H", count - 1) + pattern(tx_max - 2, seed)  # a full LM-PDU
    return out


b_lis = Client(B, "lmp-listener")
a_cli = Client(A, "lmp-caller")

lst = b_lis.request("LISTEN", [("MODE", MODE["lmp"]), ("CLASS", "Test:Lmp")], "LISTENING")
check(1 <= lst.get("LSAP") <= 0x6F, "LISTEN lmp as Test:Lmp on LSAP 0x%02x" % lst.get("LSAP"))

st = a_cli.request("DISCOVER", [("FRESH", 1)], "STATIONS")
stations = [dict(s) for s in st.all("STATION")]
beta = [s["ADDR"] for s in stations if s.get("NICKNAME") == b"beta"]
check(beta, "DISCOVER found beta")
beta = beta[0]

res = a_cli.request("IAS_QUERY", [("DADDR", beta), ("CLASS", "Test:Lmp"),
                                  ("ATTR", "IrDA:IrLMP:LsapSel")], "IAS_RESULT")
vals = [dict(v) for v in res.all("IAS_VALUE")]
check(vals and vals[0].get("INT") == lst.get("LSAP"),
      "IAS: Test:Lmp IrDA:IrLMP:LsapSel is the listener's LSAP")
try:
    a_cli.request("IAS_QUERY", [("DADDR", beta), ("CLASS", "Test:Lmp"),
                                ("ATTR", "IrDA:TinyTP:LsapSel")])
    check(False, "no TinyTP attribute on an IrLMP service")
except DaemonError as e:
    check(e.errno == errno.ENOENT and "no such attribute" in e.text,
          "no IrDA:TinyTP:LsapSel on an IrLMP service (%s)" % e.text)
# a TinyTP caller does not find the IrLMP service
try:
    a_cli.request("CONNECT", [("DADDR", beta), ("CLASS", "Test:Lmp"), ("MODE", MODE["sar"]),
                              ("TIMEOUT_MS", 5000)])
    check(False, "CONNECT sar to an IrLMP service fails")
except DaemonError as e:
    check(e.errno == errno.ENOENT, "CONNECT sar to Test:Lmp: ENOENT (%s)" % e.text)

conn = a_cli.request("CONNECT", [("DADDR", 0), ("CLASS", "Test:Lmp"), ("MODE", MODE["lmp"])],
                     "CONNECTION")
tx_max = conn.get("TX_MAX")
check(conn.get("MODE") == MODE["lmp"] and conn.get("DADDR") == beta and
      conn.get("PEER_LSAP") == lst.get("LSAP") and conn.get("PEER_MAX_SDU") == 0 and
      tx_max and tx_max <= 2046,
      "CONNECT lmp by class: peer 0x%08x LSAP 0x%02x, TX_MAX %d" % (
          conn.get("DADDR"), conn.get("PEER_LSAP"), tx_max))
inc = b_lis.next_event("CONNECTION")
check(inc.get("MODE") == MODE["lmp"] and inc.get("LISTENER_ID") == lst.get("LISTENER_ID") and
      inc.get("TX_MAX") == tx_max, "the listener got the connection (TX_MAX %d)"
      % inc.get("TX_MAX"))
a_sock = a_cli.connection_socket(conn)
b_sock = b_lis.connection_socket(inc)
check(a_sock.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE) == socket.SOCK_SEQPACKET and
      b_sock.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE) == socket.SOCK_SEQPACKET,
      "both descriptors are SOCK_SEQPACKET")
status, _ = counters(a_cli)
listed = [dict(c) for c in status.all("CONN") if dict(c)["CONN_ID"] == conn.get("CONN_ID")]
check(listed and listed[0]["MODE"] == MODE["lmp"] and listed[0]["PEER_LSAP"] == lst.get("LSAP"),
      "STATUS lists the connection as lmp")

# datagrams both ways, boundaries and content kept
for name, src, dst, seed in (("a -> b", a_sock, b_sock, 3), ("b -> a", b_sock, a_sock, 11)):
    msgs = messages(60, tx_max, seed)
    t = threading.Thread(target=send_all, args=(src, msgs))
    t.start()
    got = recv_n(dst, len(msgs))
    t.join(30)
    check(got == msgs, "%s: %d datagrams of 2..%d bytes arrived whole and in order (%d bytes)"
          % (name, len(msgs), tx_max, sum(map(len, msgs))))

# what went on the air, for the capture check: messages and their bytes
sent = [60 + 60, sum(map(len, messages(60, tx_max, 3))) + sum(map(len, messages(60, tx_max, 11)))]

# a write over TX_MAX is refused (dropped, counted, logged); the next goes
a_sock.send(b"\x01" * (tx_max + 1))
a_sock.send(b"after the oversize one")
got = recv_n(b_sock, 1)
_, ca = counters(a_cli)
sent[0] += 1
sent[1] += len(b"after the oversize one")
check(got == [b"after the oversize one"] and ca.get("conn.tx_oversize") == 1,
      "a %d-byte write is refused (conn.tx_oversize %s), the next arrives"
      % (tx_max + 1, ca.get("conn.tx_oversize")))

# the reader does not read: IrLMP cannot stop the sender, so irdad drops
# what its queue cannot hold and counts it; what was kept is whole and in order
N = 1500
msgs = [struct.pack(">H", i) + pattern(18, i & 0xFF) for i in range(N)]
sent[0] += N
sent[1] += sum(map(len, msgs))
t = threading.Thread(target=send_all, args=(a_sock, msgs))
t.start()
t.join(120)
check(not t.is_alive(), "the writer was not blocked by the reader (IrLMP has no flow control)")
dropped = 0
end = time.time() + ceiling(60)
got = []
b_sock.setblocking(False)
while time.time() < end:
    _, cb = counters(b_lis)
    dropped = cb.get("conn.rx_dropped", 0)
    if dropped and len(got) + dropped >= N:
        break
    if dropped:   # drops seen: now read all that was kept
        while True:
            try:
                got.append(b_sock.recv(65536))
            except BlockingIOError:
                break
    time.sleep(0.3)
while True:
    try:
        got.append(b_sock.recv(65536))
    except BlockingIOError:
        break
b_sock.setblocking(True)
seqs = [struct.unpack(">H", m[:2])[0] for m in got]
intact = all(m == msgs[s] for s, m in zip(seqs, got))
check(dropped > 0 and len(got) + dropped == N and seqs == sorted(seqs) and intact,
      "a reader that stopped: %d kept (whole, in order) + %d dropped and counted = %d"
      % (len(got), dropped, N))

# the caller closes: the listener's client reads EOF, its session hears why
a_sock.close()
b_sock.settimeout(20)
check(b_sock.recv(65536) == b"", "the listener's descriptor reads EOF")
ev = b_lis.next_event("DISCONNECTED")
check(ev.get("CONN_ID") == inc.get("CONN_ID") and ev.get("REASON") == REASON_USER,
      "DISCONNECTED, reason 0x%02x: %s" % (ev.get("REASON"), ev.get("TEXT")))
b_sock.close()
ev = a_cli.events and [e for e in a_cli.events if e.type == "DISCONNECTED"]
check(not ev, "no DISCONNECTED for the side that closed")
retx = counters(a_cli)[1].get("irlap.iframes_retx", 0) + \
    counters(b_lis)[1].get("irlap.iframes_retx", 0)
b_lis.close()
a_cli.close()
print("sent: %d messages, %d bytes, %d I-frames retransmitted" % (sent[0], sent[1], retx))
print("all checks passed")
