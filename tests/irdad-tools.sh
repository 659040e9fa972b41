#!/bin/sh
# irdactl, irdiscover --daemon and irspray --daemon against two irdad
# over irwire (docs/irdad-api.md, "Programs on the API"):
#   - irdactl: usage errors exit 2; no daemon at the socket: a message
#     naming it, exit 1; watch sees b's station arrive and leave (text
#     and JSON lines); status, stations, ias in text and --json (JSON
#     validated with jq, values checked against what the daemons were
#     told: nicknames, classes, the LSAP irdiscover reports);
#   - irdiscover --daemon finds b and its IrSpray service, text and JSON;
#   - irspray --daemon against irspray --listen --daemon on the other
#     side: SAR and stream, echoed (both ends check every byte), and
#     discarded (the listener's byte count checked);
#   - one link, several clients at once: two irspray (SAR and stream)
#     through irdad a, and irdactl status and irdiscover on the same
#     session's daemon meanwhile; status lists both connections and their
#     owners;
#   - without --daemon, -D PORT goes through irdad when /run/irnet/PORT.sock
#     answers, and opens the port when it is stale or with --no-daemon (in
#     a private mount namespace with its own /run).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
bin="$abs_top_builddir/irnet/tools"
irdad="$bin/irdad" irdactl="$bin/irdactl" irspray="$bin/irspray"
for p in "$irdad" "$irdactl" "$irspray"; do [ -x "$p" ] || fail "$p not built"; done
command -v jq >/dev/null || skip "jq not found (apt-get install jq)"
# json FILE FILTER: jq -e on a file that must be valid JSON
json() { jq -e "$2" "$1" >/dev/null || fail "$1: jq '$2' is false: $(cat "$1")"; }

# Usage errors: exit 2, said on stderr.
for args in "" "-s x" "-s x frob" "-s x ias Device" "-s x stations extra" \
	"-s x -p y status" "-s x status --fresh" "-s x stations --address 0x1" \
	"-s x ias C A --address zz"; do
	"$irdactl" $args >"$tmp/u.out" 2>"$tmp/u.err"; rc=$?
	[ $rc -eq 2 ] && [ -s "$tmp/u.err" ] || fail "irdactl $args: exit $rc, not 2 with a message"
done
"$irdactl" --help | grep -q '^usage: irdactl' || fail "irdactl --help"
# No daemon there: exit 1 and a message naming the socket.
"$irdactl" -s "$tmp/none.sock" status >"$tmp/n.out" 2>"$tmp/n.err"; rc=$?
[ $rc -eq 1 ] && grep -q "$tmp/none.sock" "$tmp/n.err" || fail "no daemon: exit $rc: $(cat "$tmp/n.err")"
"$irspray" --daemon "$tmp/none.sock" >"$tmp/n.out" 2>"$tmp/n.err"; rc=$?
[ $rc -eq 1 ] && grep -q "$tmp/none.sock" "$tmp/n.err" || fail "irspray, no daemon: exit $rc"
"$irdiscover" --daemon "$tmp/none.sock" --listen >"$tmp/n.out" 2>"$tmp/n.err"; rc=$?
[ $rc -eq 2 ] || fail "irdiscover --daemon --listen: exit $rc, not 2"
echo "ok: usage errors and a missing daemon"

start_wire
start_irdad alpha "$a" -v
pa=$irdad_pid
# watch from before b exists until after it is gone
"$irdactl" -s "$tmp/alpha.sock" watch >"$tmp/watch.out" 2>"$tmp/watch.err" &
pw=$!
"$irdactl" -s "$tmp/alpha.sock" watch --json >"$tmp/watchj.out" 2>"$tmp/watchj.err" &
pwj=$!
lpid="$lpid $pw $pwj"
wait_for "$tmp/watch.out" '^watching'
start_irdad beta "$b" -v
pb=$irdad_pid

"$irdactl" -s "$tmp/alpha.sock" stations --fresh >"$tmp/st.out" 2>"$tmp/st.err" || fail "stations --fresh"
grep -Eq '^0x[0-9a-f]{8}  beta +hints=Computer \(04[0-9a-f]{2}\)  seen [0-9]+ ms ago$' "$tmp/st.out" ||
	fail "stations: $(cat "$tmp/st.out")"
"$irdactl" -s "$tmp/alpha.sock" stations --json >"$tmp/st.json" 2>"$tmp/st.err" || fail "stations --json"
json "$tmp/st.json" 'length == 1 and .[0].nickname == "beta" and .[0].hints == ["Computer"] and
	.[0].charset == "ascii" and (.[0].address | test("^0x[0-9a-f]{8}$")) and .[0].age_ms >= 0'
beta=$(jq -r '.[0].address' "$tmp/st.json")
wait_for "$tmp/watch.out" "^+ $beta  beta"
wait_for "$tmp/watchj.out" '"event":"arrived"'
echo "ok: stations (text, JSON) and watch found beta at $beta"

# b serves IrSpray through its irdad
"$irspray" --listen --daemon "$tmp/beta.sock" -v >"$tmp/listen.out" 2>"$tmp/listen.err" &
pl=$!
lpid="$lpid $pl"
wait_for "$tmp/listen.out" '^listening on'

"$irdactl" -s "$tmp/alpha.sock" ias IrSpray IrDA:TinyTP:LsapSel >"$tmp/ias.out" 2>"$tmp/ias.err" ||
	fail "ias"
grep -Eq "^$beta  object [0-9]+  integer [0-9]+$" "$tmp/ias.out" || fail "ias: $(cat "$tmp/ias.out")"
lsap=$(sed -n 's/.*integer //p' "$tmp/ias.out")
"$irdactl" -s "$tmp/alpha.sock" ias Device DeviceName --address "$beta" --json >"$tmp/ias.json" ||
	fail "ias --json"
json "$tmp/ias.json" ".[0].address == \"$beta\" and .[0].values[0].type == \"string\" and
	.[0].values[0].value == \"beta\""
"$irdactl" -s "$tmp/alpha.sock" ias NoSuchClass X >"$tmp/ias2.out" 2>"$tmp/ias2.err"; rc=$?
[ $rc -eq 1 ] && grep -q "no such class" "$tmp/ias2.err" || fail "ias of a missing class: exit $rc"
echo "ok: ias IrSpray LsapSel = $lsap, Device DeviceName, a missing class"

"$irdiscover" --daemon "$tmp/alpha.sock" >"$tmp/disc.out" 2>"$tmp/disc.err" || fail "irdiscover --daemon"
grep -Eq "^$beta  beta +charset=ascii  hints=Computer \(04\)$" "$tmp/disc.out" &&
	grep -q "^    device name: beta$" "$tmp/disc.out" &&
	grep -q "^    service: IrSpray IrDA:TinyTP:LsapSel=$lsap$" "$tmp/disc.out" ||
	fail "irdiscover --daemon: $(cat "$tmp/disc.out")"
"$irdiscover" --daemon "$tmp/alpha.sock" --json >"$tmp/disc.json" 2>"$tmp/disc.err" ||
	fail "irdiscover --daemon --json"
json "$tmp/disc.json" ".stations[0].address == \"$beta\" and .stations[0].device_name == \"beta\"
	and (.stations[0].services | map(select(.class == \"IrSpray\"))[0].value) == $lsap"
echo "ok: irdiscover --daemon (text, JSON)"

"$irdactl" -s "$tmp/alpha.sock" status >"$tmp/status0.out" || fail "status"
grep -q '^port .*, address 0x[0-9a-f]\{8\}, nickname alpha$' "$tmp/status0.out" &&
	grep -q '^link ' "$tmp/status0.out" && grep -q '^  stations  *1$' "$tmp/status0.out" ||
	fail "status: $(cat "$tmp/status0.out")"

# spray ARGS...: irspray through a's irdad; checks its report
spray() {
	"$irspray" --daemon "$tmp/alpha.sock" --timeout "$(ceiling 40)" "$@" >"$tmp/spray.out" 2>"$tmp/spray.err" ||
		fail "irspray --daemon $*"
	grep -q '^Total ' "$tmp/spray.out" || fail "irspray --daemon $*: no Total"
}
spray -n 10 -b 2000
grep -q '^Received 20000 bytes' "$tmp/spray.out" || fail "SAR echo: $(cat "$tmp/spray.out")"
spray -n 10 -b 3000 --stream
grep -q '^Received 30000 bytes' "$tmp/spray.out" || fail "stream echo: $(cat "$tmp/spray.out")"
spray -n 7 -b 4096 -d
spray -n 9 -b 1500 -d --stream
echo "ok: irspray --daemon SAR and stream, echoed and discarded"

# Two irspray through a's irdad at once, and other clients meanwhile.
"$irspray" --daemon "$tmp/alpha.sock" --timeout "$(ceiling 40)" -n 12 -b 2000 >"$tmp/m1.out" 2>"$tmp/m1.err" &
p1=$!
"$irspray" --daemon "$tmp/alpha.sock" --timeout "$(ceiling 40)" -n 12 -b 2000 --stream >"$tmp/m2.out" 2>"$tmp/m2.err" &
p2=$!
i=0
until "$irdactl" -s "$tmp/alpha.sock" status --json >"$tmp/status.json" &&
	[ "$(jq '.connections | length' "$tmp/status.json")" -eq 2 ]; do
	i=$((i + 1)); [ $i -gt "$(ceiling 100)" ] && fail "status never listed two connections"
	sleep 0.1
done
json "$tmp/status.json" '.link == "up" and .peer == "'"$beta"'" and
	([.connections[].mode] | sort) == ["sar", "stream"] and
	all(.connections[]; (.owner | test("irspray")) and .peer == "'"$beta"'")
	and .counters["irlap.iframes_tx"] > 0'
# (the link is full: each IAS question waits for turns of it)
"$irdiscover" --daemon "$tmp/alpha.sock" --timeout "$(ceiling 40)" >"$tmp/disc2.out" 2>"$tmp/disc2.err" ||
	fail "irdiscover during the transfers"
wait $p1 || fail "irspray SAR (mixed run) failed: $(cat "$tmp/m1.err")"
wait $p2 || fail "irspray stream (mixed run) failed: $(cat "$tmp/m2.err")"
grep -q '^Received 24000 bytes' "$tmp/m1.out" && grep -q '^Received 24000 bytes' "$tmp/m2.out" ||
	fail "mixed run: $(cat "$tmp/m1.out" "$tmp/m2.out")"
echo "ok: two irspray and irdactl, irdiscover on one irdad at once"

# The listener checked every byte of its 6 connections; discarded ones counted.
kill -TERM $pl
wait $pl || fail "irspray --listen --daemon exited $? (a mismatch?)"
grep -q mismatch "$tmp/listen.err" && fail "listener saw a mismatch"
[ "$(grep -c '^Received' "$tmp/listen.out")" -eq 6 ] || fail "listener: $(cat "$tmp/listen.out")"
grep -q '^Received 28672 bytes' "$tmp/listen.out" && grep -q '^Received 13500 bytes' "$tmp/listen.out" ||
	fail "listener: discarded bytes: $(cat "$tmp/listen.out")"

# b goes: watch sees it leave, once a's link to it has timed out (its
# disconnect time, 12 s here) and a discovery no longer finds it.
kill -TERM $pb
wait $pb
i=0
until grep -q "^- $beta  beta" "$tmp/watch.out"; do
	i=$((i + 1)); [ $i -gt "$(ceiling 60)" ] && fail "watch never saw beta leave"
	"$irdactl" -s "$tmp/alpha.sock" stations --fresh >/dev/null 2>&1
	sleep 0.5
done
wait_for "$tmp/watchj.out" '"event":"left"'
kill -INT $pw $pwj
wait $pw || fail "watch did not exit 0 on SIGINT"
wait $pwj
jq -e -s 'length == 2 and .[0].event == "arrived" and .[1].event == "left"' "$tmp/watchj.out" \
	>/dev/null || fail "watch --json: $(cat "$tmp/watchj.out")"
echo "ok: watch saw beta leave; ends on SIGINT"
kill -TERM $pa
wait $pa || fail "irdad a exited $?"

# The rule without --daemon: -D PORT goes through irdad when
# /run/irnet/PORT.sock takes a session, and opens the port when that
# socket is stale.  In a private mount namespace with its own /run, so
# the machine's /run/irnet is not touched.
unshare -m --propagation private true 2>/dev/null ||
	fail "unshare -m does not work here (the -D rule needs a private /run)"
start_irdad beta "$b"
pb=$irdad_pid
cat >"$tmp/ns.sh" <<NSEOF
mount -t tmpfs tmpfs /run && mkdir /run/irnet || exit 3
"$irdad" -D "$a" --socket /run/irnet/ttyIRW0.sock --lock-dir "$tmp/lock" --nickname alpha \
	--log stderr -v >"$tmp/ns-irdad.out" 2>"$tmp/ns-irdad.err" &
pid=\$!
i=0
until grep -q serving "$tmp/ns-irdad.err"; do
	i=\$((i + 1)); [ \$i -gt 100 ] && { kill \$pid; exit 4; }; sleep 0.05
done
"$irdiscover" -D ttyIRW0 -v >"$tmp/ns-disc.out" 2>"$tmp/ns-disc.err"; echo "through \$?"
"$irdiscover" -D ttyIRW0 --no-daemon --no-ias >/dev/null 2>"$tmp/ns-nod.err"; echo "nodaemon \$?"
kill -TERM \$pid; wait \$pid
"$PYTHON" -c 'import socket, sys; s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(sys.argv[1])' /run/irnet/ttyIRW0.sock
"$irdiscover" -D ttyIRW0 -v --no-ias >/dev/null 2>"$tmp/ns-stale.err"; echo "stale \$?"
NSEOF
unshare -m --propagation private sh "$tmp/ns.sh" >"$tmp/ns.out" 2>&1 || fail "namespace part: $(cat "$tmp/ns.out")"
grep -qx 'through 0' "$tmp/ns.out" && grep -q "through irdad at /run/irnet/ttyIRW0.sock" "$tmp/ns-disc.err" &&
	grep -Eq "^0x[0-9a-f]{8}  beta " "$tmp/ns-disc.out" ||
	fail "irdiscover -D ttyIRW0 with irdad there: $(cat "$tmp/ns.out" "$tmp/ns-disc.out" "$tmp/ns-disc.err")"
# --no-daemon, and a stale socket: the port itself, which does not exist
# (exit 2, the device named).
grep -qx 'nodaemon 2' "$tmp/ns.out" && grep -q "ttyIRW0: cannot open" "$tmp/ns-nod.err" ||
	fail "--no-daemon: $(cat "$tmp/ns.out" "$tmp/ns-nod.err")"
grep -qx 'stale 2' "$tmp/ns.out" && grep -q "no irdad" "$tmp/ns-stale.err" &&
	grep -q "ttyIRW0: cannot open" "$tmp/ns-stale.err" ||
	fail "stale socket: $(cat "$tmp/ns.out" "$tmp/ns-stale.err")"
echo "ok: -D PORT through irdad when /run/irnet/PORT.sock answers; --no-daemon and a stale socket open the port"
kill -TERM $pb
wait $pb
lpid=
exit 0
