# Shared by the tests of libirsock.so (tests/irsock-api.sh, irsock-echo.sh):
# sourced after tests/lib.sh and tests/station-lib.sh.
#
# irsock_paths: sets irsock and classic (the wrapper, tests/irsock_classic),
# exports IRSOCK_LIBRARY; fails if one is not built.
irsock_paths() {
	irsock="$abs_top_builddir/irnet/irsock/irsock"
	classic="$abs_top_builddir/tests/irsock_classic"
	IRSOCK_LIBRARY="$abs_top_builddir/irnet/irsock/.libs/libirsock.so"
	export IRSOCK_LIBRARY
	for p in "$irsock" "$classic" "$IRSOCK_LIBRARY"; do [ -e "$p" ] || fail "$p not built"; done
}

# irsock_serve NAME: irsock_classic's echo servers under irsock on irdad
# NAME (started with start_irdad), output in $tmp/serve.out; sets lsap
# (the stream listener's LSAP, two hex digits) and serve_pid.
irsock_serve() {
	"$irsock" -v --daemon "$tmp/$1.sock" "$classic" serve >"$tmp/serve.out" 2>"$tmp/serve.err" &
	serve_pid=$!
	lpid="$lpid $serve_pid"
	wait_for "$tmp/serve.out" '^serving'
	lsap=$(sed -n 's/^listening: IrsockStream on LSAP 0x\(..\)$/\1/p' "$tmp/serve.out")
	[ -n "$lsap" ] || fail "the server printed no LSAP"
}

# irsock_hints NAME PEER: the hint bits (4 hex digits, first byte first)
# with which a fresh discovery by irdad NAME (irdactl stations --fresh)
# saw the station named PEER; empty if five discoveries in a row did not
# (one can miss it: the two stations' discoveries may collide, or the
# line may still be settling after a link loss).
irsock_hints() {
	for try in 1 2 3 4 5; do
		timeout "$(ceiling 30)" "$abs_top_builddir/irnet/tools/irdactl" -s "$tmp/$1.sock" stations --fresh \
			>"$tmp/stations.out" 2>&1
		h=$(sed -n "s/^0x[0-9a-f]*  $2 .* hints=.* (\([0-9a-f]\{4\}\)) .*/\1/p" "$tmp/stations.out" | head -1)
		[ -n "$h" ] && break
	done
	echo "$h"
}

# irsock_discover NAME PEER: a discovery under irsock on irdad NAME, output
# in $tmp/disc.out; sets peer (the address of the station named PEER).
irsock_discover() {
	timeout "$(ceiling 30)" "$irsock" --daemon "$tmp/$1.sock" "$classic" discover >"$tmp/disc.out" 2>"$tmp/disc.err" ||
		fail "discover: $(cat "$tmp/disc.out")"
	peer=$(sed -n "s/^device \(0x[0-9a-f]*\) \"$2\".*/\1/p" "$tmp/disc.out")
	[ -n "$peer" ] || fail "discover: $2 not listed: $(cat "$tmp/disc.out")"
}
