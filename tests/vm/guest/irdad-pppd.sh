#!/bin/sh
# Guest test (UML): real pppd 2.4.9 at both ends of an emulated IrDA
# link.  irwire joins two ptys; each pppd, in its own network namespace,
# runs `irdad --stdio` as its `pty` program (b --listen, a calling b by
# nickname), so PPP goes as IrNET over TinyTP, IrLMP and IrLAP of two
# irdad processes.  IPCP must come up with the configured addresses and
# ping must cross.  IRNET_BUILD (from the host) is the build directory.
# Exit: 0 pass, 1 fail, 77 skip.
set -eu
# shellcheck source=SCRIPTDIR/ppp-lib.sh
. "$(dirname "$0")/ppp-lib.sh"

A_IP=10.0.0.1
B_IP=10.0.0.2
COMMON="local noauth nocrtscts nolock noipv6 lcp-echo-interval 0 lcp-restart 1 ipcp-restart 1 debug"
IRWIRE=${IRNET_BUILD:?}/irnet/tools/irwire
IRDAD=$IRNET_BUILD/irnet/tools/irdad

for _tool in pppd ip busybox "$IRWIRE" "$IRDAD"; do
	command -v "$_tool" >/dev/null || { echo "SKIP: $_tool not found"; exit 77; }
done
[ -c /dev/ppp ] || { echo "SKIP: no /dev/ppp (ppp_generic not loaded)"; exit 77; }

ip netns add A
ip netns add B
"$IRWIRE" --link-a "$TMPDIR/ira" --link-b "$TMPDIR/irb" >"$TMPDIR/irwire.log" 2>&1 &
wait_for 5 -e "$TMPDIR/ira" -a -e "$TMPDIR/irb" || fail "irwire made no ptys"

IRDAD_OPTS="--lock-dir none --log stderr -v"
# shellcheck disable=SC2086
ip netns exec B pppd pty "$IRDAD --stdio --listen -D $TMPDIR/irb --nickname beta $IRDAD_OPTS" \
	$COMMON "$B_IP:$A_IP" silent nodetach logfile "$TMPDIR/B.log" 2>"$TMPDIR/irdad-b.err" &
sleep 1
start=$(date +%s.%N)
# shellcheck disable=SC2086
timeout "$(ceiling 40)" ip netns exec A pppd pty "$IRDAD --stdio -D $TMPDIR/ira --peer beta --nickname alpha $IRDAD_OPTS" \
	$COMMON "$A_IP:$B_IP" updetach logfile "$TMPDIR/A.log" 2>"$TMPDIR/irdad-a.err" ||
	fail "caller pppd did not bring IPCP up over IrNET (status $?)"
echo "IPCP up over IrNET after $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') s"

wait_cmd 5 ip -n B -4 -o addr show dev ppp0 >/dev/null 2>&1 ||
	fail "listener never configured ppp0"
check_addr A "$A_IP" "$B_IP"
check_addr B "$B_IP" "$A_IP"

ip netns exec A busybox ping -c 3 -W 3 "$B_IP" || fail "ping A -> B failed"
ip netns exec B busybox ping -c 1 -W 3 "$A_IP" || fail "ping B -> A failed"
ip netns exec A busybox ping -c 5 -s 1400 -W 3 "$B_IP" || fail "1400-byte pings A -> B failed"

echo "--- A.log"
cat "$TMPDIR/A.log"
echo PASS
