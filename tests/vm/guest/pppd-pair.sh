#!/bin/sh
# Guest test (UML): two real pppd, each in its own network namespace,
# talk over a socat pty pair; IPCP must come up with the configured
# addresses and ping must cross the link.
# Runs inside the VM with cwd = TMPDIR = a private tmpfs directory.
# Exit: 0 pass, 1 fail, 77 skip.
set -eu
# shellcheck source=SCRIPTDIR/ppp-lib.sh
. "$(dirname "$0")/ppp-lib.sh"

A_IP=10.0.0.1
B_IP=10.0.0.2
# Options from docs/vm-testing.md: no modem control, locks, auth or IPv6
# (ipv6 is a module in UML); quick restarts; no LCP echo noise.
COMMON="115200 local noauth nocrtscts nolock noipv6 lcp-echo-interval 0 lcp-restart 1 ipcp-restart 1 debug"

for _tool in pppd socat ip busybox; do
	command -v "$_tool" >/dev/null || { echo "SKIP: $_tool not installed"; exit 77; }
done
[ -c /dev/ppp ] || { echo "SKIP: no /dev/ppp (ppp_generic not loaded)"; exit 77; }

ip netns add A
ip netns add B

socat PTY,link="$TMPDIR/a",raw,echo=0 PTY,link="$TMPDIR/b",raw,echo=0 &
wait_for 5 -e "$TMPDIR/a" -a -e "$TMPDIR/b" || fail "socat made no pty pair"

# The listener stays silent until the caller speaks and the caller waits
# (updetach) until IPCP is up: this avoids the LCP start-up race.
# shellcheck disable=SC2086 # COMMON is a list of pppd options
ip netns exec B pppd "$TMPDIR/b" $COMMON "$B_IP:$A_IP" silent nodetach \
	logfile "$TMPDIR/B.log" &
start=$(date +%s.%N)
# shellcheck disable=SC2086
timeout "$(ceiling 20)" ip netns exec A pppd "$TMPDIR/a" $COMMON "$A_IP:$B_IP" updetach \
	logfile "$TMPDIR/A.log" || fail "caller pppd did not bring IPCP up (status $?)"
echo "IPCP up after $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') s"

wait_cmd 5 ip -n B -4 -o addr show dev ppp0 >/dev/null 2>&1 ||
	fail "listener never configured ppp0"
check_addr A "$A_IP" "$B_IP"
check_addr B "$B_IP" "$A_IP"

ip netns exec A busybox ping -c 3 -W 2 "$B_IP" || fail "ping A -> B failed"
ip netns exec B busybox ping -c 1 -W 2 "$A_IP" || fail "ping B -> A failed"

echo "--- A.log"
cat "$TMPDIR/A.log"
# The VM init kills the daemons and drops the namespaces with the VM.
echo PASS
