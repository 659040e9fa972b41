#!/bin/sh
# libdivecomputer, unmodified, against the kit (issue 26): its 0.9.0
# tarball (../shared/third_party, see its README) is built in the build
# tree with CPPFLAGS from the staged kit's `pkg-config --cflags irsock`
# (rebuilt only when the tarball or the header changed), and its dctool
# runs under irsock on alpha, one of two irdad over irwire.  Beta's station
# announces "UWATEC Galileo Sol", a Galileo Sol's nickname, and
# tests/clients/uwatec_emu serves the Smart protocol on its LSAP 1 with
# four dives in memory.  Cases, one PASS line each:
#   - configure prints "IrDA : yes", and dctool builds;
#   - dctool scan -t irda lists the emulator at beta's address (the address
#     irsock_classic's discovery gives);
#   - dctool download by that address: model 0x11, serial, the device's
#     clock, and the four dives (newest first): start time with its UTC
#     offset, duration and maximum depth of each as the emulator was given
#     them (expectations computed here with date(1)), the deepest sample
#     of each profile equal to its maximum depth;
#   - a download whose data stops after 1000 bytes while irwire is stopped
#     (link lost mid-transfer): dctool exits 1 with an error, nothing hangs,
#     and beta's irdad ends the emulator's connection;
#   - irwire resumed, a second complete download through the same two irdad.
. "${top_srcdir:-.}/tests/lib.sh"
tarball=${IRNET_LIBDIVECOMPUTER_TARBALL:-$abs_top_srcdir/../shared/third_party/libdivecomputer-0.9.0.tar.gz}
[ -f "$tarball" ] || skip "no $tarball: libdivecomputer's source sits in ../shared/third_party next to the project (see its README)"
for t in autoreconf make pkg-config; do
	command -v "$t" >/dev/null || skip "$t is not installed"
done
. "${top_srcdir:-.}/tests/station-lib.sh"
. "${top_srcdir:-.}/tests/irsock-lib.sh"
. "${top_srcdir:-.}/tests/clients/kit-lib.sh"
irsock_paths
emu=$abs_top_builddir/tests/clients/uwatec_emu
[ -x "$emu" ] || fail "$emu not built"

# --- libdivecomputer, built against the staged kit --------------------
kit_install libdivecomputer
cppflags=$(kit_pc --cflags) || fail "pkg-config --cflags irsock failed"
cppflags=$(echo $cppflags)
cdir=$abs_top_builddir/tests/clients
src=$cdir/libdivecomputer-0.9.0
inst=$cdir/libdivecomputer-inst
log=$cdir/libdivecomputer-build.log
dctool=$inst/bin/dctool
stamp="$(sha256sum <"$tarball" | cut -c1-64) $(sha256sum <"$kit$kit_prefix/include/irnet-tools/linux/irda.h" | cut -c1-64)"
if [ "$(cat "$inst/.built" 2>/dev/null)" != "$stamp" ] || [ ! -x "$dctool" ]; then
	echo "building libdivecomputer (log: $log)"
	rm -rf "$src" "$inst"
	if ! (tar xzf "$tarball" -C "$cdir" && cd "$src" && autoreconf -fi &&
		./configure --prefix="$inst" CPPFLAGS="$cppflags" &&
		nice -n 10 make -j2 && make install) >"$log" 2>&1; then
		tail -20 "$log"
		fail "building libdivecomputer failed (log: $log)"
	fi
	echo "$stamp" >"$inst/.built"
fi
grep -q '^ *IrDA *: yes$' "$log" || fail "libdivecomputer's configure did not print 'IrDA : yes' (log: $log)"
grep -q '^#define HAVE_LINUX_IRDA_H 1' "$src/config.h" || fail "HAVE_LINUX_IRDA_H is not set in $src/config.h"
[ -x "$dctool" ] || fail "$dctool not installed"
echo "PASS: libdivecomputer 0.9.0 configured with CPPFLAGS=$cppflags: IrDA : yes; dctool built"

# --- the stations and the emulated Galileo Sol -------------------------
nick="UWATEC Galileo Sol"
device="Uwatec Galileo Sol"
serial=123456
# START (UTC), TZ (quarter hours), MINUTES, DEPTH_CM
dives="1781429400,8,42,1840 1781517600,8,37,2536 1781603400,-20,55,1212 1781690100,0,28,3050"
set --
last=0
for d in $dives; do
	set -- "$@" --dive "$d"
	last=${d%%,*}
done
clock=$(((last + 86400 - 946684800) * 2))

start_wire
start_irdad alpha "$a" -v
alpha_pid=$irdad_pid
start_irdad beta "$b" -v --nickname "$nick"
beta_pid=$irdad_pid
"$emu" --daemon "$tmp/beta.sock" --serial "$serial" --pause-after 1000 --pause-download 2 "$@" \
	>"$tmp/emu.out" 2>"$tmp/emu.err" &
lpid="$lpid $!"
wait_for "$tmp/emu.out" '^listening: LSAP 0x01'

irsock_discover alpha "$nick"
addr=$(printf '%08x' "$peer")

timeout "$(ceiling 60)" "$irsock" --daemon "$tmp/alpha.sock" "$dctool" -d "$device" scan -t irda \
	>"$tmp/scan.out" 2>"$tmp/scan.err" || fail "dctool scan failed (exit $?)"
printf '%s\t%s\n' "$addr" "$nick" >"$tmp/scan.want"
cmp -s "$tmp/scan.out" "$tmp/scan.want" || fail "dctool scan listed '$(cat "$tmp/scan.out")', not $addr $nick"
echo "PASS: dctool scan -t irda: $addr \"$nick\", beta's address"

# The expected dives, newest first, as dctool's XML output writes them:
# datetime with the offset|divetime|maxdepth|deepest sample.
for d in $dives; do
	IFS=, read -r start tz min cm <<-EOD
	$d
	EOD
	off=$((tz * 900))
	aoff=${off#-}
	printf '%s %+03d:%02d|%02d:00|%d.%02d|%d.%02d\n' \
		"$(date -u -d "@$((start + off))" '+%Y-%m-%d %H:%M:%S')" $((off / 3600)) \
		$((aoff % 3600 / 60)) "$min" $((cm / 100)) $((cm % 100)) $((cm / 100)) $((cm % 100))
done | tac >"$tmp/dives.want"

# download NAME: dctool download by address under irsock, output in
# $tmp/NAME.xml, .out and .err
download() {
	"$irsock" --daemon "$tmp/alpha.sock" "$dctool" -d "$device" download -t irda \
		-o "$tmp/$1.xml" "0x$addr" >"$tmp/$1.out" 2>"$tmp/$1.err"
}
# check_download NAME: the device's identity and the dives
check_download() {
	grep -q "Event: model=17 (0x00000011), firmware=21 (0x00000015), serial=$serial " "$tmp/$1.err" ||
		fail "$1: no model 0x11 / serial $serial event"
	grep -q "Event: systime=[0-9]*, devtime=$clock\$" "$tmp/$1.err" || fail "$1: the clock is not $clock"
	awk -F'[<>]' '
		/^<dive>/ { dt = ""; tm = ""; md = ""; ms = -1 }
		$2 == "datetime" { dt = $3 }
		$2 == "divetime" { tm = $3 }
		$2 == "maxdepth" { md = $3 }
		$2 == "depth" { if ($3 + 0 > ms) ms = $3 + 0 }
		/^<\/dive>/ { printf "%s|%s|%s|%.2f\n", dt, tm, md, ms }' "$tmp/$1.xml" >"$tmp/$1.dives"
	diff "$tmp/dives.want" "$tmp/$1.dives" >"$tmp/$1.diff" ||
		fail "$1: the dives differ from the emulator's: $(cat "$tmp/$1.diff")"
}

download first &
dpid=$!
# wait_exit PID SECONDS: waits for PID to end (at most the ceiling), sets rc
wait_exit() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($(ceiling "$2") * 10)) ] && { kill "$1"; fail "process $1 still running after $2 s"; }
		sleep 0.1
	done
	wait "$1"
	rc=$?
}
wait_exit $dpid 120
[ $rc -eq 0 ] || fail "dctool download exited $rc: $(grep ERROR "$tmp/first.err")"
check_download first
echo "PASS: dctool download 0x$addr (LSAP 1): model 0x11, serial $serial, clock $clock, $(wc -l <"$tmp/dives.want") dives: start, duration, maximum depth (and the deepest sample) each as the emulator holds"

# --- link lost mid-transfer -------------------------------------------
download interrupted &
dpid=$!
wait_for "$tmp/emu.out" '^paused: 1000 of'
kill -STOP "$wpid"
wait_exit $dpid 60
[ $rc -eq 1 ] || { kill -CONT "$wpid"; fail "the interrupted dctool exited $rc, not 1"; }
err=$(grep 'ERROR' "$tmp/interrupted.err" | tail -1)
[ -n "$err" ] || { kill -CONT "$wpid"; fail "the interrupted dctool reported no error"; }
n=0
until [ "$(grep -c '^ended:' "$tmp/emu.out")" -ge 2 ]; do
	n=$((n + 1))
	[ $n -gt $(($(ceiling 60) * 10)) ] && { kill -CONT "$wpid"; fail "beta's irdad did not end the emulator's connection"; }
	sleep 0.1
done
kill -CONT "$wpid"
echo "PASS: link lost after 1000 bytes of dive data: dctool exits 1 ('$err'), the emulator's connection ends ($(grep '^ended:' "$tmp/emu.out" | tail -1))"

# --- a second download, the same irdad ---------------------------------
# Alpha, the primary, is still polling the dead link (its F-timer has not
# yet run out N2 times: the time frames sat in the stopped line does not
# count) when this CONNECT arrives; IrLMP withdraws its idle disconnect and
# queues the connect on that link.  When N2 ends the link, the unanswered
# connect is made again on a new link (test_irlmp_idle
# our_connect_on_a_link_in_recovery_relinks): one try is enough.
download second &
dpid=$!
wait_exit $dpid 120
[ $rc -eq 0 ] || fail "the second download exited $rc: $(grep ERROR "$tmp/second.err")"
check_download second
kill -0 "$alpha_pid" && kill -0 "$beta_pid" || fail "an irdad has exited"
echo "PASS: a second complete download through the same two irdad (pids $alpha_pid, $beta_pid), at the first try: the same dives"
exit 0
