#!/bin/sh
# xferstat run's failures: each gives a clear message (what xferstat was
# doing plus curl's error) and the documented exit code.
#   bad URL, unsupported scheme, bad options     -> 2
#   refused login, connection refused, timeout,
#   missing file                                 -> 1
. "${top_srcdir:-.}/tests/xferstat-lib.sh"
xs_need_root
xs_need vsftpd useradd
trap xs_cleanup EXIT
xs_mktemp
T=$xs_tmp

# expect RC PATTERN ARGS...: xferstat run ARGS exits RC and says PATTERN.
expect() {
	local want=$1 pattern=$2 rc
	shift 2
	"$XFERSTAT" run "$@" >"$T/out" 2>&1
	rc=$?
	sed 's/^/    /' "$T/out"
	check "run $* -> exit $want (got $rc)" [ "$rc" -eq "$want" ]
	check "run $* says: $pattern" grep -qE -- "$pattern" "$T/out"
}

expect 2 "'ftp://\[bad/x' is not a valid URL" 'ftp://[bad/x'
expect 2 "scheme 'xyz' is not supported by this libcurl .*it offers: ftp" 'xyz://127.0.0.1/x'
expect 2 "no URL given" -n 3
expect 2 "bad -n '0'" -n 0 ftp://127.0.0.1/x
expect 2 "--put ftp://127.0.0.1/x needs --size" --put ftp://127.0.0.1/x
expect 2 "bad --pattern 'ones'" --put --size 1K --pattern ones ftp://127.0.0.1/x
expect 2 "label 'A' given to two URLs" --label A ftp://127.0.0.1/x --label A ftp://127.0.0.1/y
expect 2 "--iface nosuchif0: no such interface" --iface nosuchif0 ftp://127.0.0.1/x

mkdir -p "$T/anon"
echo hello >"$T/anon/small.txt"
user=xfe$$
xs_user "$user" "$T/home" || exit 99
pw=$xs_user_pw
port=$(xs_free_port)
xs_vsftpd "$T" "$port" || exit 99

# Wrong password: vsftpd answers 530.
expect 1 "failed while logging in: .*(Login denied|Access denied).*curl error 67" \
	-n 1 "ftp://$user:wrong-password@127.0.0.1:$port/x"
check "the wrong password is not echoed" sh -c "! grep -q wrong-password '$T/out'"
# A file that is not there.
expect 1 "GET ftp://127.0.0.1:$port/missing.bin .*failed while .*curl error 78" \
	-n 1 "ftp://127.0.0.1:$port/missing.bin"
# Nothing listens on this port.
closed=$(xs_free_port)
expect 1 "failed while connecting to the server: .*curl error 7" -n 1 "ftp://127.0.0.1:$closed/x"
# A server that accepts the connection but never greets.
silent=$(xs_free_port)
"$PY" -c 'import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(4)
c = s.accept()
time.sleep(30)' "$silent" &
xs_pids="$xs_pids $!"
xs_wait_port 127.0.0.1 "$silent"
start=$(date +%s)
expect 1 "failed while .*(timed out|Timeout|timeout).*curl error 28" --timeout 2 -n 1 "ftp://127.0.0.1:$silent/x"
took=$(( $(date +%s) - start ))
check "timeout came after about 2 s, not the default 30 (took $took s)" [ "$took" -lt 15 ]
# The one good run before a failure is kept.
expect 1 "GET ftp://127.0.0.1:$port/missing.bin \\(label bad, run 1 of 3\\)" -n 3 -o "$T/partial.json" --label ok "ftp://127.0.0.1:$port/small.txt" \
	--label bad "ftp://127.0.0.1:$port/missing.bin"
check "runs completed before the failure were written" \
	[ "$(xs_json "$T/partial.json" '[len(s["runs"]) for s in d["sets"]]')" = "[1, 0]" ]
exit $xs_fail
