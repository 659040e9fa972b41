#!/bin/sh
# irwire in real time: two processes' "serial ports" joined by the
# emulated link.  20 KB at 115200 arrive intact and not faster than the
# line allows; a speed mismatch garbles; SIGTERM ends it cleanly with the
# counters printed and the symlinks removed.
. "${top_srcdir:-.}/tests/lib.sh"
irwire="$abs_top_builddir/irnet/tools/irwire"
[ -x "$irwire" ] || { echo "FAIL: $irwire not built"; exit 1; }
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || skip "python3 not found"

tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/out" ] && sed 's/^/  irwire: /' "$tmp/out" "$tmp/err"; exit 1; }

# usage errors name the input and exit 2
"$irwire" --drop 1.5 2>"$tmp/usage"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--drop 1.5' "$tmp/usage" || fail "--drop 1.5: exit $rc, $(cat "$tmp/usage")"
"$irwire" --help >/dev/null || fail "--help"

# wait_ready FILE: until irwire has printed both of its ptys (5 s at most)
wait_ready() {
	i=0
	while [ "$(grep -c '^[ab] /dev/pts/' "$1" 2>/dev/null)" != 2 ]; do
		i=$((i + 1))
		[ $i -gt "$(ceiling 100)" ] && fail "irwire did not print its ptys in $1"
		sleep 0.05
	done
}

"$irwire" --link-a "$tmp/a" --link-b "$tmp/b" --seed 7 >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_ready "$tmp/out"
[ -L "$tmp/a" ] && [ -L "$tmp/b" ] || fail "symlinks missing"
[ "$(readlink "$tmp/a")" = "$(sed -n 's/^a //p' "$tmp/out")" ] || fail "link a points elsewhere"

cat >"$tmp/peer.py" <<'PY'
import os, random, select, sys, termios, time, tty
sys.path.insert(0, os.path.join(os.environ.get("abs_top_srcdir", "."), "tests"))
from ceiling import ceiling

def port(path, baud):
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    a = termios.tcgetattr(fd)
    a[4] = a[5] = baud
    termios.tcsetattr(fd, termios.TCSANOW, a)
    return fd

def drain_input(fd):
    while select.select([fd], [], [], 0.2)[0]:
        os.read(fd, 4096)

def transfer(src, dst, data, wait_s):
    got = bytearray()
    sent = 0
    t0 = time.monotonic()
    deadline = t0 + wait_s
    while time.monotonic() < deadline:
        w = [src] if sent < len(data) else []
        r, wr, _ = select.select([dst], w, [], 0.05)
        if wr:
            sent += os.write(src, data[sent:sent + 1024])
        if r:
            got += os.read(dst, 65536)
        if sent == len(data) and len(got) >= len(data) and not r:
            break
    return bytes(got), time.monotonic() - t0

mode, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
rnd = random.Random(1234)
if mode == "clean":
    fa, fb = port(a, termios.B115200), port(b, termios.B115200)
    data = bytes(rnd.randrange(256) for _ in range(20000))
    got, dt = transfer(fa, fb, data, ceiling(20))
    print("clean %d bytes in %.3f s" % (len(got), dt))
    if got != data:
        print("content differs: %d bytes, first difference at %d" % (len(got),
              next((i for i in range(min(len(got), len(data))) if got[i] != data[i]), -1)))
        sys.exit(1)
    line = 20000 * 10 / 115200
    if dt < 0.9 * line:
        print("faster than the line allows: %.3f s < %.3f s" % (dt, line))
        sys.exit(1)
else:
    fa, fb = port(a, termios.B9600), port(b, termios.B115200)
    drain_input(fb)
    data = bytes(rnd.randrange(256) for _ in range(200))
    got, dt = transfer(fa, fb, data, 1.5)
    print("mismatch: sent %d at 9600, got %d at 115200" % (len(data), len(got)))
    if got == data or len(got) == 0:
        print("speed mismatch did not garble")
        sys.exit(1)
PY
"$PYTHON" "$tmp/peer.py" clean "$tmp/a" "$tmp/b" || fail "clean transfer"
"$PYTHON" "$tmp/peer.py" mismatch "$tmp/a" "$tmp/b" || fail "mismatch transfer"

kill -TERM "$pid"
wait "$pid"; rc=$?
pid=
[ $rc -eq 0 ] || fail "irwire exited $rc on SIGTERM"
grep '^total' "$tmp/out"
grep -q '^total a: .* sent=20200 ' "$tmp/out" || fail "side a counters"
grep -Eq '^total b: .* speed_mismatch=200 ' "$tmp/out" || fail "side b counters"
[ ! -e "$tmp/a" ] && [ ! -e "$tmp/b" ] || fail "symlinks left behind"

# SIGINT too, although sh starts background jobs with SIGINT ignored
"$irwire" >"$tmp/out2" 2>&1 &
pid=$!
wait_ready "$tmp/out2"
kill -INT "$pid"
wait "$pid"; rc=$?
pid=
[ $rc -eq 0 ] && grep -q '^total b: ' "$tmp/out2" || fail "SIGINT: exit $rc, $(cat "$tmp/out2")"
echo "PASS"
exit 0
