# tests/station-lib.sh: shared by the real-time station tests over irwire
# (sourced after tests/lib.sh, not run).  Sets irwire, irdiscover, tmp;
# kills the irwire ($wpid) and listener ($lpid) processes at exit.
irwire="$abs_top_builddir/irnet/tools/irwire"
irdiscover="$abs_top_builddir/irnet/tools/irdiscover"
[ -x "$irwire" ] && [ -x "$irdiscover" ] || { echo "FAIL: programs not built"; exit 1; }
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || skip "python3 not found"
# distcheck (configure --disable-realtime-tests): these ran in the main
# build from the same sources; in the tarball's build they would only
# wait on the emulated line for minutes more.
[ "${IRNET_REALTIME_TESTS:-yes}" = no ] && skip "real-time link tests are off (configure --disable-realtime-tests)"

tmp=$(mktemp -d)
chmod 755 "$tmp"
wpid= lpid=

# `make check-valgrind` sets IRNET_VALGRIND to the valgrind command line:
# then irwire, irdad and irspray (the programs these tests start through
# $vg) run under memcheck, each with its own log $tmp/vg-PID.err, and
# with --no-seccomp ($noseccomp): valgrind runs its own system calls on
# the program's behalf (and reads its own files from /proc), which the
# allow-list is right to kill.  At the end every log must show no error
# and no definite leak (valgrind_verdict).  Waits are longer (slowdown).
vg= noseccomp= slow=1
if [ -n "${IRNET_VALGRIND:-}" ]; then
	command -v valgrind >/dev/null || skip "valgrind not installed"
	vg="$IRNET_VALGRIND --log-file=$tmp/vg-%p.err"
	noseccomp=--no-seccomp
	slow=8
fi
# expect_seccomp PID WHO: the process runs under its seccomp filter
# (not checked under valgrind, where it is off on purpose).
expect_seccomp() {
	[ -n "$vg" ] && return 0
	grep -Eq '^Seccomp:[[:space:]]+2' "/proc/$1/status" || fail "$2 runs without seccomp"
}
# After the programs have exited: any memcheck error or definite leak
# in a log fails the test, naming the log.
valgrind_verdict() {
	[ -n "$vg" ] || return 0
	bad=0 n=0
	for f in "$tmp"/vg-*.err; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		if ! grep -q 'ERROR SUMMARY: 0 errors' "$f" || grep -q 'definitely lost: [1-9]' "$f"; then
			echo "FAIL: valgrind: $(basename "$f"): $(grep -E 'ERROR SUMMARY|definitely lost' "$f" | tr '\n' ' ')"
			sed 's/^/  /' "$f"
			bad=1
		fi
	done
	[ "$n" -gt 0 ] || { echo "FAIL: valgrind: no log"; bad=1; }
	[ "$bad" -eq 0 ] && echo "ok: valgrind memcheck: $n processes, 0 errors, no definite leak"
	return $bad
}
cleanup() {
	rc=$?
	# (unquoted: start_irdad makes it a list of pids)
	[ -n "$lpid" ] && kill $lpid 2>/dev/null
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null
	wait 2>/dev/null
	valgrind_verdict || rc=1
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT
# fail WHY: prints the reason and every output file, exits 1
fail() {
	echo "FAIL: $*"
	for f in "$tmp"/*.out "$tmp"/*.err; do [ -s "$f" ] && sed "s|^|  $(basename "$f"): |" "$f"; done
	exit 1
}
# wait_for FILE PATTERN [SECONDS]: up to SECONDS (5) on an idle machine,
# scaled by the load (ceiling) and by 8 under valgrind
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt "$(ceiling $((${3:-5} * 20 * slow)))" ] && fail "no '$2' in $1"
		sleep 0.05
	done
}
# start_wire [IRWIRE-OPTION...]: irwire in the background; sets wpid, a
# and b (its two ptys)
start_wire() {
	$vg "$irwire" "$@" >"$tmp/wire.out" 2>"$tmp/wire.err" &
	wpid=$!
	wait_for "$tmp/wire.out" '^b /dev/pts/'
	a=$(sed -n 's/^a //p' "$tmp/wire.out")
	b=$(sed -n 's/^b //p' "$tmp/wire.out")
}
# pcap_min_tat PCAP: the minimum turnaround bits (QoS PI 0x86) of the
# capture's SNRM and UA, as "SNRM UA" in hex (-0x1: none seen)
pcap_min_tat() {
	"$PYTHON" - "$1" <<'PYEOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert struct.unpack_from("<IHHiIII", data, 0)[6] == 144, "not link type 144"
off, found = 24, {}
while off + 16 <= len(data):
    incl = struct.unpack_from("<IIII", data, off)[2]
    rec = data[off + 16:off + 16 + incl]
    off += 16 + incl
    frame = rec[16:]                 # after the 16-byte LINUX_IRDA header
    if len(frame) < 2 or (frame[1] & 0xef) not in (0x83, 0x63):
        continue
    kind = "snrm" if frame[1] & 0xef == 0x83 else "ua"
    qos = frame[2 + 9:] if kind == "snrm" else frame[2 + 8:]
    i = 0
    while i + 2 <= len(qos):
        pi, pl = qos[i], qos[i + 1]
        if pi == 0x86 and pl == 1:
            found[kind] = qos[i + 2]
        i += 2 + pl
print("%s %s" % (hex(found.get("snrm", -1)), hex(found.get("ua", -1))))
PYEOF
}
# start_irdad NAME DEVICE [OPTION...]: irdad in the background on DEVICE
# with its control socket $tmp/NAME.sock, a lock in $tmp/lock, its log on
# $tmp/irdad-NAME.err; sets irdad_pid and waits until it serves.
start_irdad() {
	name=$1 dev=$2
	shift 2
	[ -d "$tmp/lock" ] || { mkdir "$tmp/lock" && chmod 1777 "$tmp/lock"; }
	$vg "$abs_top_builddir/irnet/tools/irdad" -D "$dev" --socket "$tmp/$name.sock" \
		--lock-dir "$tmp/lock" --nickname "$name" --log stderr $noseccomp "$@" \
		>"$tmp/irdad-$name.out" 2>"$tmp/irdad-$name.err" &
	irdad_pid=$!
	lpid="$lpid $irdad_pid"
	wait_for "$tmp/irdad-$name.err" 'serving'
}
# capture_clean PCAP [MIN_FRAMES [PROTOCOL [TSHARK_OPTION...]]]: tshark
# reads PCAP (with the options given); it has at least MIN_FRAMES (1)
# frames, every one PROTOCOL (irlap), none malformed or with an expert
# error, and tshark says nothing on stderr.  Sets capture_frames.
# Returns 1 when tshark is not installed (the caller checks no more of
# the capture); fails the test otherwise.
capture_clean() {
	cc_file=$1 cc_min=${2:-1} cc_proto=${3:-irlap}
	if [ $# -ge 3 ]; then shift 3; else shift $#; fi
	if [ -z "${TSHARK:-}" ] || ! command -v "$TSHARK" >/dev/null; then
		echo "tshark not found: $cc_file is not checked"
		return 1
	fi
	capture_frames=$("$TSHARK" -r "$cc_file" "$@" -T fields -e frame.number 2>"$tmp/tshark.err" | wc -l)
	bad=$("$TSHARK" -r "$cc_file" "$@" -Y "_ws.malformed || _ws.expert.severity >= error || !$cc_proto" \
		-T fields -e frame.number 2>>"$tmp/tshark.err")
	[ "$capture_frames" -ge "$cc_min" ] ||
		fail "$cc_file: $capture_frames frames, expected at least $cc_min"
	[ -z "$bad" ] || fail "$cc_file: malformed, not $cc_proto or with an expert error: frames" $bad
	if grep -v '^Running as user' "$tmp/tshark.err" | grep -q .; then
		fail "tshark complained about $cc_file: $(head -3 "$tmp/tshark.err")"
	fi
	return 0
}
# start_mixed_pair [yes|no]: two daemons on the wire's ptys that each
# serve an [ircomm] and an [irnet] endpoint on $tmp/ircomm-a, -b and
# $tmp/irnet-a, -b: alpha ($pa) calls beta with both, IrCOMM with
# reconnect yes, IrNET with reconnect as asked (default no); beta ($pb)
# listens.  Their configurations: $tmp/a.conf, $tmp/b.conf.
start_mixed_pair() {
	printf '[ircomm modem]\nrole call\npeer nickname "beta"\npty %s\nreconnect yes\n' \
		"$tmp/ircomm-a" >"$tmp/a.conf"
	printf '[irnet net0]\nrole call\npeer nickname "beta"\npty %s\nreconnect %s\n' \
		"$tmp/irnet-a" "${1:-no}" >>"$tmp/a.conf"
	printf '[ircomm serial]\nrole listen\npty %s\n[irnet net0]\nrole listen\npty %s\n' \
		"$tmp/ircomm-b" "$tmp/irnet-b" >"$tmp/b.conf"
	start_irdad alpha "$a" -c "$tmp/a.conf" -v
	pa=$irdad_pid
	start_irdad beta "$b" -c "$tmp/b.conf" -v
	pb=$irdad_pid
}
# stop_irdads PID...: SIGTERM to each daemon; each must exit 0.
stop_irdads() {
	kill -TERM "$@"
	for p in "$@"; do
		wait "$p" || fail "irdad $p exited $? on SIGTERM"
	done
}
