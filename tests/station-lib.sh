# tests/station-lib.sh: shared by the real-time station tests over irwire
# (sourced after tests/lib.sh, not run).  Sets irwire, irdiscover, tmp;
# kills the irwire ($wpid) and listener ($lpid) processes at exit.
irwire="$abs_top_builddir/irnet/tools/irwire"
irdiscover="$abs_top_builddir/irnet/tools/irdiscover"
[ -x "$irwire" ] && [ -x "$irdiscover" ] || { echo "FAIL: programs not built"; exit 1; }
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || skip "python3 not found"

tmp=$(mktemp -d)
chmod 755 "$tmp"
wpid= lpid=
cleanup() {
	# (unquoted: start_irdad makes it a list of pids)
	[ -n "$lpid" ] && kill $lpid 2>/dev/null
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# fail WHY: prints the reason and every output file, exits 1
fail() {
	echo "FAIL: $*"
	for f in "$tmp"/*.out "$tmp"/*.err; do [ -s "$f" ] && sed "s|^|  $(basename "$f"): |" "$f"; done
	exit 1
}
# wait_for FILE PATTERN: up to 5 s
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "no '$2' in $1"
		sleep 0.05
	done
}
# start_wire [IRWIRE-OPTION...]: irwire in the background; sets wpid, a
# and b (its two ptys)
start_wire() {
	"$irwire" "$@" >"$tmp/wire.out" 2>"$tmp/wire.err" &
	wpid=$!
	wait_for "$tmp/wire.out" '^b /dev/pts/'
	a=$(sed -n 's/^a //p' "$tmp/wire.out")
	b=$(sed -n 's/^b //p' "$tmp/wire.out")
}
# start_irdad NAME DEVICE [OPTION...]: irdad in the background on DEVICE
# with its control socket $tmp/NAME.sock, a lock in $tmp/lock, its log on
# $tmp/irdad-NAME.err; sets irdad_pid and waits until it serves.
start_irdad() {
	name=$1 dev=$2
	shift 2
	[ -d "$tmp/lock" ] || { mkdir "$tmp/lock" && chmod 1777 "$tmp/lock"; }
	"$abs_top_builddir/irnet/tools/irdad" -D "$dev" --socket "$tmp/$name.sock" \
		--lock-dir "$tmp/lock" --nickname "$name" --log stderr "$@" \
		>"$tmp/irdad-$name.out" 2>"$tmp/irdad-$name.err" &
	irdad_pid=$!
	lpid="$lpid $irdad_pid"
	wait_for "$tmp/irdad-$name.err" 'serving'
}
