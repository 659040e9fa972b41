# tests/vm/guest/ppp-lib.sh: helpers of the guest pppd tests (sourced,
# not run): the caller sets TMPDIR's logs to show on failure.

# ceiling SECONDS: a time limit scaled by IRNET_TEST_SLOWDOWN; uml-run.sh
# passes both it and the path of tests/ceiling.sh (the guest sees the
# host's files at their paths).
# shellcheck source=../../ceiling.sh
. "${IRNET_CEILING_SH:?uml-run.sh sets IRNET_CEILING_SH}"

# fail WHY: prints WHY and every log and error file in TMPDIR, exits 1.
fail() {
	echo "FAIL: $*"
	for _f in "$TMPDIR"/*.log "$TMPDIR"/*.err; do
		[ ! -f "$_f" ] || { echo "--- $_f"; cat "$_f"; }
	done
	exit 1
}

# wait_for SECONDS TEST-ARGS... -> polls until `test ARGS` holds, for at
# most ceiling SECONDS.
wait_for() {
	_n=$(($(ceiling "$1") * 20))
	shift
	while ! test "$@"; do
		_n=$((_n - 1))
		[ "$_n" -gt 0 ] || return 1
		sleep 0.05
	done
}

# check_addr NS LOCAL PEER -> ppp0 in NS has LOCAL peer PEER.
check_addr() {
	_line=$(ip -n "$1" -4 -o addr show dev ppp0) || fail "no ppp0 in namespace $1"
	echo "$1: $_line"
	case $_line in
	*"inet $2 peer $3/32"*) ;;
	*) fail "ppp0 in $1 should be $2 peer $3" ;;
	esac
}

# wait_cmd SECONDS COMMAND... -> polls until COMMAND succeeds (a fresh
# run each time: wait_for's arguments are evaluated once), for at most
# ceiling SECONDS.
wait_cmd() {
	_n=$(($(ceiling "$1") * 20))
	shift
	while ! "$@"; do
		_n=$((_n - 1))
		[ "$_n" -gt 0 ] || return 1
		sleep 0.05
	done
}

# no_process PATTERN -> no process's command line matches PATTERN.
no_process() {
	! pgrep -f "$1" >/dev/null
}
