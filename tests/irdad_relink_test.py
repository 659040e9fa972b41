"""tests/irdad_relink_test.py A.SOCK B.SOCK: after a link ends, the next
one starts at once (issue 23 point 5; shared/data/linux-interop/
obex-after-peer-disc-run*.pcap).  Two irdad on one wire; beta keeps
discovering (as Linux does every 3 s) while the stations take turns:
one looks the other up (it is primary), both LSAPs close, the idle
timers end the link (either side's DISC, or both at once), and as soon
as the other station's irdad reports the link down it makes its own
lookup, which must succeed at once, not be refused ("cannot start an IAS
query now") or time out.  Prints one line per check; exits non-zero on
the first failure (run by tests/irdad-relink.sh)."""
import sys
import threading
import time

from irdad_client import Client, DaemonError
from ceiling import ceiling

A, B = sys.argv[1], sys.argv[2]
ROUNDS = 6
LINK_DOWN = 0


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    print("ok: " + what)


def link_state(cl):
    return cl.request("STATUS", [], "STATUS_REPLY").get("LINK")


def wait_link(cl, want_down, what, limit=20):
    """Until the daemon's IrLMP reports the link down (or not down)."""
    end = time.time() + ceiling(limit)
    while time.time() < end:
        if (link_state(cl) == LINK_DOWN) == want_down:
            return
        time.sleep(0.005)  # STATUS poll interval, bounded by the ceiling above
    check(False, "%s within %.0f s" % (what, ceiling(limit)))


def find(cl, nick):
    st = cl.request("DISCOVER", [("FRESH", 1)], "STATIONS")
    got = [dict(s)["ADDR"] for s in st.all("STATION") if dict(s).get("NICKNAME") == nick]
    check(got, "DISCOVER found %s" % nick.decode())
    return got[0]


a_cli = Client(A, "relink-a")
b_cli = Client(B, "relink-b")
b_probe = Client(B, "relink-discovery")
beta = find(a_cli, b"beta")
alpha = find(b_cli, b"alpha")
stop = threading.Event()


def keep_discovering():
    """beta discovers again 2.3 s after each round (a round takes 0.7 s:
    every 3 s, as Linux does), so
    alpha is often answering a discovery when its lookup is made."""
    while not stop.is_set():
        try:
            b_probe.request("DISCOVER", [("FRESH", 1)], "STATIONS")
        except DaemonError:
            pass  # the link is up: no discovery now
        stop.wait(2.3)


prober = threading.Thread(target=keep_discovering, daemon=True)


def lookup(cl, daddr, who):
    t0 = time.time()
    try:
        res = cl.request("IAS_QUERY", [("DADDR", daddr), ("CLASS", "Device"),
                                       ("ATTR", "IrLMPSupport")], "IAS_RESULT")
    except DaemonError as e:
        check(False, "%s's lookup right after the link ended: %s" % (who, e.text))
    vals = [dict(v) for v in res.all("IAS_VALUE")]
    check(vals, "%s's lookup right after the link ended answered in %.2f s" %
          (who, time.time() - t0))


prober.start()
lookup(b_cli, alpha, "beta")
for i in range(ROUNDS):
    # the other side ends up with the link; then the one that did not
    # start it looks up at once
    first, second, daddr, who = ((a_cli, b_cli, beta, "alpha") if i % 2 == 0
                                 else (b_cli, a_cli, alpha, "beta"))
    wait_link(first, True, "round %d: the link ended" % i, limit=30)
    lookup(first, daddr, who)
stop.set()
prober.join(ceiling(30))
check(not prober.is_alive(), "the discovery loop ended")
print("PASS: irdad-relink: %d lookups, each right after the previous link ended" % (ROUNDS + 1))
