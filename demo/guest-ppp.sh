#!/bin/sh
# demo/guest-ppp.sh: steps 3 and 4 of the demo (demo/demo.sh), run as a
# guest script in user-mode Linux (tests/vm/uml-run.sh): the host kernel
# has no PPP.  Two pppd 2.4.9 with irnet.so, each in its own network
# namespace, over irwire; ping and 64 KiB fetched over TCP; then xferstat
# times 10 FTP transfers of 32 KiB (vsftpd in B, libcurl in A) on a clean
# line and on one with a bit error rate of 1e-5, compares the two and
# plots them to VM_RESDIR/xferstat-rates.png.
# Lines starting with "@" are for demo.sh (step intros, the plot's name);
# the others are shown indented.  DEMO_VERBOSE=1 adds the pppd and irdad
# logs.  IRNET_BUILD (from the host) is the build directory.
# Exit: 0 every check passed, 1 a step failed (the last line says why).
set -eu
# shellcheck source=tests/vm/guest/ppp-lib.sh
. "$(dirname "$0")/../tests/vm/guest/ppp-lib.sh"

A_IP=10.0.0.1
B_IP=10.0.0.2
RAW_BYTES_PER_S=11520 # 115200 bit/s, 10 bits a byte on the SIR line
PLUGIN=$IRNET_BUILD/pppd-plugin/.libs/irnet.so
IRWIRE=$IRNET_BUILD/irnet/tools/irwire
IRDAD=$IRNET_BUILD/irnet/tools/irdad
XFERSTAT=$IRNET_BUILD/xferstat/xferstat
COMMON="local noauth nocrtscts noipv6 lcp-echo-interval 1 lcp-echo-failure 4 lcp-restart 1 ipcp-restart 1 debug nodetach"
IRNET="plugin $PLUGIN irnet-helper $IRDAD irnet-user nobody"
step=3

# fail WHY: the step and the reason (and the logs with DEMO_VERBOSE=1).
fail() {
	if [ "${DEMO_VERBOSE:-0}" = 1 ]; then
		for _f in "$TMPDIR"/*.log; do
			[ ! -f "$_f" ] || { echo "--- $_f"; cat "$_f"; }
		done
	else
		for _f in "$TMPDIR"/*.log; do
			[ ! -f "$_f" ] || { echo "--- $_f (last 5 lines)"; tail -5 "$_f"; }
		done
	fi
	echo "@fail $step $*"
	exit 1
}
show_log() { # FILE: the whole log, with DEMO_VERBOSE=1 only
	[ "${DEMO_VERBOSE:-0}" != 1 ] || { echo "--- $1"; cat "$1"; }
}
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }

for _tool in pppd ip busybox vsftpd curl python3 "$IRWIRE" "$IRDAD" "$PLUGIN" "$XFERSTAT"; do
	command -v "$_tool" >/dev/null || [ -f "$_tool" ] || fail "$_tool not found"
done
[ -c /dev/ppp ] || fail "no /dev/ppp in the guest (ppp_generic not loaded)"
mkdir -p /run/lock /var/run/vsftpd/empty "$TMPDIR/ftp"
ip netns add A
ip netns add B

# The FTP server in B, anonymous, read-only, on every address of B.
head -c 65536 /dev/urandom >"$TMPDIR/ftp/blob64.bin"
head -c 32768 /dev/urandom >"$TMPDIR/ftp/blob32.bin"
chmod 755 "$TMPDIR/ftp"
cat >"$TMPDIR/vsftpd.conf" <<CONF
listen=YES
listen_ipv6=NO
background=NO
anonymous_enable=YES
anon_root=$TMPDIR/ftp
no_anon_password=YES
local_enable=NO
write_enable=NO
secure_chroot_dir=/var/run/vsftpd/empty
seccomp_sandbox=NO
xferlog_enable=NO
vsftpd_log_file=$TMPDIR/vsftpd.log
CONF
ip netns exec B vsftpd "$TMPDIR/vsftpd.conf" >"$TMPDIR/vsftpd.log" 2>&1 &

# link_up NAME [IRWIRE-OPTION...]: irwire, then pppd listening in B and
# calling in A (by B's nickname); returns once IPCP is up at both ends.
link_up() {
	_ln=$1
	shift
	"$IRWIRE" --link-a "$TMPDIR/$_ln-a" --link-b "$TMPDIR/$_ln-b" "$@" >"$TMPDIR/irwire-$_ln.out" 2>&1 &
	wire_pid=$!
	wait_for 5 -e "$TMPDIR/$_ln-a" -a -e "$TMPDIR/$_ln-b" || fail "irwire made no ptys"
	# shellcheck disable=SC2086
	ip netns exec B pppd $IRNET irnet-device "$TMPDIR/$_ln-b" irnet-listen irnet-nickname beta \
		$COMMON "$B_IP:$A_IP" ipparam B-$_ln logfile "$TMPDIR/B-$_ln.log" >/dev/null 2>&1 &
	sleep 0.5
	_t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	timeout "$(ceiling 40)" ip netns exec A pppd $IRNET irnet-device "$TMPDIR/$_ln-a" irnet-name beta \
		irnet-nickname alpha $COMMON "$A_IP:$B_IP" ipparam A-$_ln updetach \
		logfile "$TMPDIR/A-$_ln.log" >/dev/null 2>&1 || fail "pppd in A did not bring IPCP up (status $?)"
	wait_cmd 5 ip -n B -4 -o addr show dev ppp0 >/dev/null 2>&1 || fail "pppd in B never configured ppp0"
	link_secs=$(elapsed "$_t0")
}
# link_down NAME: both pppd end on SIGTERM, then irwire (its counters).
link_down() {
	pkill -f "ipparam [AB]-$1" || true
	wait_cmd 10 no_process "ipparam [AB]-$1" || fail "pppd did not end on SIGTERM"
	kill "$wire_pid"
	wait "$wire_pid" 2>/dev/null || true
	show_log "$TMPDIR/A-$1.log"
	show_log "$TMPDIR/B-$1.log"
}

# ---- 3. PPP over IrNET ------------------------------------------------------
echo "@intro 3"
echo "pppd: $(pppd --version 2>&1 | head -1)"
link_up clean
check_addr A "$A_IP" "$B_IP" | sed 's/[[:space:]]*\\.*$//'
check_addr B "$B_IP" "$A_IP" | sed 's/[[:space:]]*\\.*$//'
peer=$(grep -m1 -o 'IrNET link up with 0x[0-9a-f]* "[^"]*"' "$TMPDIR/A-clean.log") ||
	fail "A logged no IrNET link-up line"
echo "A: $peer; IPCP up after $link_secs s"
ip netns exec A busybox ping -c 3 -W 3 "$B_IP" >"$TMPDIR/ping.out" 2>&1 || {
	cat "$TMPDIR/ping.out"
	fail "ping A -> B failed"
}
rtt=$(sed -n 's/^round-trip min\/avg\/max = \([^ ]*\) ms/\1/p' "$TMPDIR/ping.out")
echo "ping $B_IP: 3 of 3 answered, rtt min/avg/max $rtt ms"
t0=$(date +%s.%N)
ip netns exec A curl -sS --max-time 60 -o "$TMPDIR/got64.bin" "ftp://$B_IP/blob64.bin" ||
	fail "curl could not fetch 64 KiB over TCP"
secs=$(elapsed "$t0")
cmp -s "$TMPDIR/got64.bin" "$TMPDIR/ftp/blob64.bin" || fail "the 64 KiB fetched over TCP differ"
echo "64 KiB over TCP (FTP, curl) B -> A in $secs s, sha256 $(sha256sum <"$TMPDIR/got64.bin" | cut -c1-16)... on both sides"
echo "step 3 ok: IPCP up over irnet.so, ping 3/3, 64 KiB over TCP intact"

# ---- 4. A measurement -------------------------------------------------------
step=4
echo "@intro 4"
# measure NAME LABEL: 10 timed FTP transfers of 32 KiB from B to A.
measure() {
	ip netns exec A "$XFERSTAT" run -n 10 --timeout 30 --label "$2" -o "$TMPDIR/$1.json" \
		"ftp://$B_IP/blob32.bin" >"$TMPDIR/run-$1.out" 2>&1 || {
		cat "$TMPDIR/run-$1.out"
		fail "xferstat run ($2) failed"
	}
	show_log "$TMPDIR/run-$1.out"
	python3 - "$TMPDIR/$1.json" "$RAW_BYTES_PER_S" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["sets"][0]["runs"]
b = sum(r["bytes"] for r in runs)
s = sum(r["seconds"] for r in runs)
print("%s: %d runs of %d bytes, %.0f bytes/s, %.2f of the raw line (%s bytes/s)"
      % (json.load(open(sys.argv[1]))["sets"][0]["label"], len(runs), runs[0]["bytes"],
         b / s, b / s / float(sys.argv[2]), sys.argv[2]))
PY
}
measure clean "clean"
link_down clean
link_up ber --ber 1e-5
echo "line with BER 1e-5: IPCP up after $link_secs s"
measure ber "BER 1e-5"
link_down ber
"$XFERSTAT" compare --no-plot "$TMPDIR/clean.json" "$TMPDIR/ber.json" >"$TMPDIR/compare.out" 2>&1 || {
	cat "$TMPDIR/compare.out"
	fail "xferstat compare failed"
}
if [ "${DEMO_VERBOSE:-0}" = 1 ]; then
	cat "$TMPDIR/compare.out"
else # the table (up to its first blank line) and the verdict
	awk 'done == 0 { if ($0 == "") done = 1; else print } /^Against/ { getline; print }' \
		"$TMPDIR/compare.out"
fi
"$XFERSTAT" plot -o "$VM_RESDIR/xferstat-rates.png" "$TMPDIR/clean.json" "$TMPDIR/ber.json" ||
	fail "xferstat plot failed"
[ -s "$VM_RESDIR/xferstat-rates.png" ] || fail "xferstat plot wrote no PNG"
echo "@png xferstat-rates.png"
verdict=$(grep -A1 '^Against' "$TMPDIR/compare.out" | tail -1)
[ -n "$verdict" ] || fail "xferstat compare gave no verdict"
echo "step 4 ok: 2 x 10 FTP transfers of 32 KiB timed, compared and plotted"
