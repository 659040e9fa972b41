#!/bin/sh
# Guest benchmark (UML): bulk throughput (iperf3, one-way UDP and TCP, 15 s
# each) and 64-byte ping round trips over PPP, measured side by side on
# the same emulated line at 115200 bit/s:
#   raw:    pppd on irwire's two ptys directly (no IrDA: PPP's async HDLC
#           is all that crosses the emulated SIR line);
#   irnet:  pppd with irnet.so at both ends (PPP over IrNET, TinyTP, IrLMP,
#           IrLAP of two irdad);
#   ircomm: pppd with irnet.so irnet-mode ircomm at both ends, when irdad
#           offers IrCOMM in its --stdio mode.
# Prints `bench: NAME VALUE UNIT` lines and the ratios to raw.  Compression
# is off (noccp novj) so the figures measure the link, not the data.  The
# ratio that counts is UDP's: irwire's line is half-duplex as IrDA is, so
# on the raw line TCP's ACKs collide with its data (that is what IrLAP is
# for) and raw TCP measures collisions, not the line.
# Exit: 0 measured, 1 a run failed, 77 skip.
set -eu
# shellcheck source=SCRIPTDIR/ppp-lib.sh
. "$(dirname "$0")/ppp-lib.sh"

A_IP=10.0.0.1
B_IP=10.0.0.2
SECS=${BENCH_SECS:-15}
PLUGIN=${IRNET_BUILD:?}/pppd-plugin/.libs/irnet.so
IRWIRE=$IRNET_BUILD/irnet/tools/irwire
IRDAD=$IRNET_BUILD/irnet/tools/irdad
COMMON="local noauth nocrtscts nolock noipv6 noccp novj lcp-echo-interval 0 lcp-restart 1 ipcp-restart 1 nodetach"
IRNET="plugin $PLUGIN irnet-helper $IRDAD irnet-user nobody"

for _tool in pppd ip busybox iperf3 "$IRWIRE" "$IRDAD" "$PLUGIN"; do
	command -v "$_tool" >/dev/null || [ -f "$_tool" ] || { echo "SKIP: $_tool not found"; exit 77; }
done
[ -c /dev/ppp ] || { echo "SKIP: no /dev/ppp"; exit 77; }
ip netns add A
ip netns add B
ip netns exec B ip link set lo up
ip netns exec A ip link set lo up

# run NAME A-ARGS -- B-ARGS: one pppd pair on a fresh irwire; prints the
# measurements.  A second try if the link does not carry a ping: on the
# raw line LCP's frames can collide (half-duplex) and a pppd give up.
run() {
	( up "$@" ) || { echo "$1: again"; up "$@" || fail "$1: PPP did not come up, or carried no ping"; }
	measure "$1"
}

stop() {
	pkill -f "$1-[AB].log" || true
	wait_cmd 10 no_process "$1-[AB].log" || fail "$1: pppd did not end"
	pkill -f "irwire --link-a $TMPDIR/$1-a" || true
	sleep 0.5
}

up() {
	_name=$1
	shift
	_a="" _b=""
	while [ "$1" != -- ]; do _a="$_a $1"; shift; done
	shift
	_b="$*"
	"$IRWIRE" --link-a "$TMPDIR/$_name-a" --link-b "$TMPDIR/$_name-b" >"$TMPDIR/irwire-$_name.log" 2>&1 &
	wait_for 5 -e "$TMPDIR/$_name-a" -a -e "$TMPDIR/$_name-b" || fail "irwire made no ptys"
	rm -f "$TMPDIR/up-$_name"
	# shellcheck disable=SC2086
	ip netns exec B pppd $(eval echo $_b) $COMMON "$B_IP:$A_IP" logfile "$TMPDIR/$_name-B.log" \
		>/dev/null 2>&1 &
	sleep 1
	# shellcheck disable=SC2086
	timeout "$(ceiling 40)" ip netns exec A pppd $(eval echo $_a) $COMMON "$A_IP:$B_IP" updetach \
		logfile "$TMPDIR/$_name-A.log" >/dev/null 2>&1 || { stop "$_name"; return 1; }
	wait_cmd 5 ip -n B -4 -o addr show dev ppp0 >/dev/null 2>&1 || { stop "$_name"; return 1; }
	ip netns exec A busybox ping -c 2 -W 3 "$B_IP" >/dev/null || { stop "$_name"; return 1; }
}

measure() {
	_name=$1
	_rtt=$(ip netns exec A busybox ping -c 10 -s 64 -W 3 "$B_IP" |
		awk -F'[/ =]+' '/round-trip/ { print $(NF-2) }')
	# One-way UDP at more than the line takes: what arrives is the
	# capacity, with nothing sent back (no collisions on the raw line).
	# The receiver's figure: what a queue still held when the sender
	# stopped arrives after its clock ended.
	ip netns exec B iperf3 -s -1 -J >"$TMPDIR/udp-$_name.json" 2>/dev/null &
	_srv=$!
	sleep 0.5
	ip netns exec A iperf3 -c "$B_IP" -u -b 150k -l 1400 -t "$SECS" >/dev/null ||
		fail "$_name: iperf3 -u failed"
	wait "$_srv" || true
	_udp=$(python3 -c '
import json, sys
iv = json.load(open(sys.argv[1]))["intervals"]
# the whole seconds the receiver was busy, the first (ramp-up) left out
full = [i["sum"] for i in iv[1:] if i["sum"]["seconds"] > 0.9]
print("%.0f" % (sum(s["bytes"] for s in full) * 8 / sum(s["seconds"] for s in full)))' \
		"$TMPDIR/udp-$_name.json") || fail "$_name: no UDP figure"
	ip netns exec B iperf3 -s -1 >/dev/null 2>&1 &
	_srv=$!
	sleep 0.5
	_tcp=$(ip netns exec A iperf3 -c "$B_IP" -t "$SECS" -J | python3 -c '
import json, sys
print("%.0f" % json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])') ||
		fail "$_name: iperf3 failed"
	wait "$_srv" || true
	echo "bench: plugin_${_name}_udp_goodput_bps $_udp bit/s"
	echo "bench: plugin_${_name}_tcp_bps $_tcp bit/s"
	echo "bench: plugin_${_name}_ping64_rtt_ms $_rtt ms"
	eval "udp_$_name=$_udp tcp_$_name=$_tcp rtt_$_name=$_rtt"
	stop "$_name"
}

run raw '$TMPDIR/raw-a 115200' -- '$TMPDIR/raw-b 115200'
run irnet $IRNET 'irnet-device $TMPDIR/irnet-a irnet-name beta' -- \
	$IRNET 'irnet-device $TMPDIR/irnet-b irnet-listen irnet-nickname beta'
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
echo "bench: plugin_irnet_udp_ratio $(ratio "$udp_irnet" "$udp_raw") (target >= 0.93)"
echo "bench: plugin_irnet_tcp_ratio $(ratio "$tcp_irnet" "$tcp_raw") (raw TCP: its ACKs collide with the data on the half-duplex line)"
if "$IRDAD" --help 2>&1 | grep -q -- '--service'; then
	run ircomm $IRNET 'irnet-device $TMPDIR/ircomm-a irnet-mode ircomm irnet-name beta' -- \
		$IRNET 'irnet-device $TMPDIR/ircomm-b irnet-mode ircomm irnet-listen irnet-nickname beta'
	echo "bench: plugin_ircomm_udp_ratio $(ratio "$udp_ircomm" "$udp_raw") (target >= 0.90)"
	echo "bench: plugin_ircomm_tcp_ratio $(ratio "$tcp_ircomm" "$tcp_raw")"
else
	echo "note: this irdad has no IrCOMM --stdio mode: PPP over IrCOMM not measured"
fi
# The wire-time minimum of a 64-byte ping (10 bits per byte at 115200),
# each way: raw, an IPv4 packet of 20 + 8 + 64 bytes in PPP's header (4),
# FCS (2) and flags (2); over IrNET, the PPP frame without flags or FCS
# in one IrLAP frame (address, control, IrLMP 2, TinyTP 1; SIR's BOF,
# FCS 2, EOF) plus the 5 ms minimum turnaround irdad negotiates, since a
# station may only send once the other passed it the line.
wire() { awk -v b="$1" -v t="$2" 'BEGIN { printf "%.2f", 2 * (b * 10 / 115200 * 1000 + t) }'; }
echo "bench: plugin_raw_ping64_wire_min_ms $(wire 100 0) ms"
echo "bench: plugin_irnet_ping64_wire_min_ms $(wire $((96 + 2 + 2 + 1 + 4)) 5) ms"
echo PASS
