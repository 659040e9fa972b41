#!/bin/sh
# xferstat run --iface: link counters through libnl-route, checked against
# `ip -s link` on a veth pair between two network namespaces made here
# (addresses only inside them; no traffic leaves them).  The server is
# python3's http.server in the peer namespace.
. "${top_srcdir:-.}/tests/xferstat-lib.sh"
xs_need_root
xs_need ip
[ -x "$PY" ] || skip "$PY not found"
trap xs_cleanup EXIT
xs_mktemp
T=$xs_tmp
a=xfsa$$
b=xfsb$$
ip netns add "$a" || skip "cannot create network namespaces here"
xs_netns="$a"
ip netns add "$b" || exit 99
xs_netns="$a $b"
for n in $a $b; do
	# No IPv6 chatter (router solicitations, DAD) on the measured link.
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$n" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	ip -n "$n" link set lo up
done
ip link add vxa netns "$a" type veth peer name vxb netns "$b" || exit 99
ip -n "$a" addr add 10.213.7.1/24 dev vxa
ip -n "$b" addr add 10.213.7.2/24 dev vxb
ip -n "$a" link set vxa up
ip -n "$b" link set vxb up

mkdir -p "$T/www"
size=4194304
head -c $size /dev/zero >"$T/www/zero.bin"
head -c $size /dev/urandom >"$T/www/random.bin"
ip netns exec "$b" "$PY" -m http.server 8080 --bind 10.213.7.2 --directory "$T/www" \
	>"$T/http.log" 2>&1 &
xs_pids="$xs_pids $!"
ip netns exec "$a" sh -c ". '$top_srcdir/tests/xferstat-lib.sh'; xs_wait_port 10.213.7.2 8080" || {
	cat "$T/http.log"; exit 99; }

# rx/tx bytes and packets of vxa as `ip -s` reports them.
counters() {
	ip -n "$a" -s -j link show vxa | "$PY" -c 'import json, sys
s = json.load(sys.stdin)[0]["stats64"]
print(s["rx"]["bytes"], s["rx"]["packets"], s["tx"]["bytes"], s["tx"]["packets"])'
}
set -- $(counters)
rx0=$1 rxp0=$2 tx0=$3 txp0=$4
ip netns exec "$a" "$XFERSTAT" run -n 3 --iface vxa -o "$T/if.json" \
	--label zero http://10.213.7.2:8080/zero.bin \
	--label random http://10.213.7.2:8080/random.bin >"$T/run.out" 2>&1
rc=$?
cat "$T/run.out"
set -- $(counters)
rx=$(($1 - rx0)) rxp=$(($2 - rxp0)) tx=$(($3 - tx0)) txp=$(($4 - txp0))
echo "ip -s link deltas over the whole command: rx $rx bytes $rxp packets, tx $tx bytes $txp packets"
check "run --iface exits 0" [ "$rc" -eq 0 ]
sums=$(xs_json "$T/if.json" '" ".join(str(sum(r["link"][k] for s in d["sets"] for r in s["runs"])) for k in ("rx_bytes", "rx_packets", "tx_bytes", "tx_packets"))')
echo "xferstat's per-run deltas, summed: $sums"
set -- $sums
# Every packet of a run falls inside its sample window; only a late
# teardown segment may land outside.  Allow 1 % and 8 packets.
check "rx bytes: xferstat $1 vs ip $rx" [ "$1" -le "$rx" -a $(($1 * 100)) -ge $((rx * 99)) ]
check "rx packets: xferstat $2 vs ip $rxp" [ "$2" -le "$rxp" -a "$2" -ge $((rxp - 8)) ]
check "tx bytes: xferstat $3 vs ip $tx" [ "$3" -le "$tx" -a $(($3 * 100)) -ge $((tx * 99)) ]
check "tx packets: xferstat $4 vs ip $txp" [ "$4" -le "$txp" -a "$4" -ge $((txp - 8)) ]
# Per run: the link carried the payload plus headers (Ethernet, IP, TCP,
# HTTP) and nothing compressed it: overhead a little above 1, and the
# same for zero and random data.
check "each run: payload < link bytes < 1.1 x payload" \
	[ "$(xs_json "$T/if.json" 'all(r["bytes"] == '$size' and r["bytes"] < r["link"]["rx_bytes"] < 1.1 * r["bytes"] for s in d["sets"] for r in s["runs"])')" = True ]
check "no errors or drops counted" \
	[ "$(xs_json "$T/if.json" 'sum(r["link"][k] for s in d["sets"] for r in s["runs"] for k in ("rx_errors", "tx_errors", "rx_dropped", "tx_dropped"))')" = 0 ]
ratios=$(xs_json "$T/if.json" '" ".join("%.4f" % (sum(r["bytes"] for r in s["runs"]) / sum(r["link"]["rx_bytes"] for r in s["runs"])) for s in d["sets"])')
echo "compression ratios (payload / link bytes), zero and random: $ratios"
set -- $ratios
check "veth does not compress: zero and random ratios agree" \
	"$PY" -c "import sys; sys.exit(abs($1 - $2) > 0.01 or not 0.9 < $1 < 1)"
check "the table shows the link columns" grep -q "Overhead" "$T/run.out"
exit $xs_fail
