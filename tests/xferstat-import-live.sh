#!/bin/sh
# xferstat import over output captured now from the real tools on
# loopback: nuttcp, NPtcp and iperf3 against their own servers; curl -w,
# curl %{json}, tnftp, inetutils-ftp and lftp against a vsftpd started
# here.  Each import must detect the format and give the runs the tool
# reported, checked against what the test asked the tool to move.
. "${top_srcdir:-.}/tests/xferstat-lib.sh"
xs_need_root
xs_need vsftpd useradd nuttcp NPtcp iperf3 curl tnftp inetutils-ftp lftp
trap xs_cleanup EXIT
xs_mktemp
T=$xs_tmp
C=$T/cap
mkdir -p "$C"

# imp FILE FORMAT RUNS [OPTIONS...]: import, check format and run count.
imp() {
	local file=$1 fmt=$2 runs=$3 out
	shift 3
	"$XFERSTAT" import "$@" -o "$T/$(basename "$file").json" "$file" >"$T/imp.out" 2>&1
	out=$(cat "$T/imp.out")
	echo "$out"
	check "import $(basename "$file"): format $fmt, $runs runs" \
		grep -q "$(basename "$file"): $fmt: $runs runs, .* 0 not recognised" "$T/imp.out"
}
runs_json() { xs_json "$T/$(basename "$1").json" "$2"; }

# --- nuttcp ------------------------------------------------------------------
nport=$(xs_free_port)
dport=$(xs_free_port)
nuttcp -S -P "$nport" -p "$dport" --nofork >"$T/nuttcp-server.log" 2>&1 &
xs_pids="$xs_pids $!"
xs_wait_port 127.0.0.1 "$nport" || exit 99
nuttcp -P "$nport" -p "$dport" -n 400 -l 65536 127.0.0.1 >"$C/nuttcp.txt" 2>&1
nuttcp -P "$nport" -p "$dport" -T 1 -i 0.25 127.0.0.1 >"$C/nuttcp-i.txt" 2>&1
nuttcp -P "$nport" -p "$dport" -n 400 -l 65536 -fparse 127.0.0.1 >"$C/nuttcp-parse.txt" 2>&1
nuttcp -v -P "$nport" -p "$dport" -n 400 -l 65536 127.0.0.1 >"$C/nuttcp-v.txt" 2>&1
imp "$C/nuttcp.txt" nuttcp 1
check "nuttcp -n 400 -l 65536: 26214400 bytes" [ "$(runs_json "$C/nuttcp.txt" 'd["sets"][0]["runs"][0]["bytes"]')" = 26214400 ]
imp "$C/nuttcp-parse.txt" nuttcp 1
check "nuttcp -fparse: 26214400 bytes" [ "$(runs_json "$C/nuttcp-parse.txt" 'd["sets"][0]["runs"][0]["bytes"]')" = 26214400 ]
imp "$C/nuttcp-v.txt" nuttcp 1
check "nuttcp -v: 26214400 bytes" [ "$(runs_json "$C/nuttcp-v.txt" 'd["sets"][0]["runs"][0]["bytes"]')" = 26214400 ]
intervals=$(grep -c 'Mbps *[0-9]* retrans$' "$C/nuttcp-i.txt")
imp "$C/nuttcp-i.txt" nuttcp "$intervals" --intervals
check "nuttcp -i: $intervals interval lines give as many runs" [ "$intervals" -ge 3 ]

# --- NetPIPE -------------------------------------------------------------------
pport=$(xs_free_port)
NPtcp -P "$pport" >"$T/np-recv.log" 2>&1 &
xs_pids="$xs_pids $!"
sleep 0.3
(cd "$C" && timeout "$(ceiling 60)" NPtcp -h 127.0.0.1 -P "$pport" -u 65536 -n 10 -o np.out >NPtcp.txt 2>&1)
n=$(wc -l <"$C/np.out")
imp "$C/np.out" netpipe "$n"
imp "$C/NPtcp.txt" netpipe "$n"
check "NetPIPE: block sizes run from 1 to 65539 bytes" \
	[ "$(runs_json "$C/np.out" '(d["sets"][0]["runs"][0]["block_size"], d["sets"][0]["runs"][-1]["block_size"])')" = "(1, 65539)" ]

# --- iperf3 ------------------------------------------------------------------------
iport=$(xs_free_port)
iperf3 -s -1 -p "$iport" >"$T/iperf3-server.log" 2>&1 &
xs_pids="$xs_pids $!"
# A probe connection would be taken as the one-shot server's client:
# wait for its banner instead.
for i in $(seq 50); do
	grep -q "Server listening" "$T/iperf3-server.log" && break
	sleep 0.1
done
iperf3 -c 127.0.0.1 -p "$iport" -n 200M -i 0.1 --json >"$C/iperf3.json" 2>&1
imp "$C/iperf3.json" iperf3 1
# The run is the receiver's view (end.sum_received), as iperf3 wrote it.
check "iperf3 -n 200M: the run is the receiver's byte count and time" \
	[ "$(runs_json "$C/iperf3.json" '(d["sets"][0]["runs"][0]["bytes"], d["sets"][0]["runs"][0]["seconds"])')" = \
	  "$(xs_json "$C/iperf3.json" '(d["end"]["sum_received"]["bytes"], d["end"]["sum_received"]["seconds"])')" ]
check "iperf3 -n 200M: the sender sent 209715200 bytes" \
	[ "$(xs_json "$C/iperf3.json" 'd["end"]["sum_sent"]["bytes"]')" = 209715200 ]

# --- FTP clients and curl against vsftpd -----------------------------------------------
mkdir -p "$T/anon"
head -c 1048576 /dev/zero >"$T/anon/zero.bin"
head -c 1048576 /dev/urandom >"$T/anon/random.bin"
head -c 100000 /dev/urandom >"$T/up.bin"
user=xfl$$
xs_user "$user" "$T/home" || exit 99
pw=$xs_user_pw
fport=$(xs_free_port)
xs_vsftpd "$T" "$fport" || exit 99
u=ftp://127.0.0.1:$fport

W='%{size_download} %{size_upload} %{time_pretransfer} %{time_total}\n'
for i in 1 2 3; do
	curl -s -o /dev/null -o /dev/null -w "$W" "$u/zero.bin" "$u/random.bin"
done >"$C/curl-w.txt"
curl -s -T "$T/up.bin" -w "$W" "ftp://$user:$pw@127.0.0.1:$fport/up-curl.bin" >>"$C/curl-w.txt"
imp "$C/curl-w.txt" curl 7
check "curl -w: 6 gets of 1048576 bytes and a put of 100000" \
	[ "$(runs_json "$C/curl-w.txt" '[(s["direction"], sorted({r["bytes"] for r in s["runs"]}), len(s["runs"])) for s in d["sets"]]')" = \
	  "[('get', [1048576], 6), ('put', [100000], 1)]" ]
curl -s -o /dev/null -o /dev/null -w '%{json}' "$u/zero.bin" "$u/random.bin" >"$C/curl-json.txt"
curl -s -o /dev/null -w '%{json}\n' "$u/missing.bin" >>"$C/curl-json.txt"
imp "$C/curl-json.txt" curl-json 2
"$XFERSTAT" import -v -o "$T/cj.json" "$C/curl-json.txt" >"$T/imp.out" 2>&1
check "curl %{json}: the failed transfer is reported, not a run" \
	grep -q 'curl-json.txt:1:[0-9]*: no run: curl failed (exit code 78)' "$T/imp.out"

ftpscript() {
	printf 'user %s %s\nbinary\n' "$1" "$2"
	shift 2
	printf '%s\n' "$@" quit
}
ftpscript anonymous x@y "get zero.bin /dev/null" "get random.bin /dev/null" | tnftp -n -v 127.0.0.1 "$fport" >"$C/tnftp-get.txt" 2>&1
ftpscript "$user" "$pw" "put $T/up.bin up-tnftp.bin" | tnftp -n -v 127.0.0.1 "$fport" >"$C/tnftp-put.txt" 2>&1
ftpscript anonymous x@y "get zero.bin /dev/null" "get random.bin /dev/null" | inetutils-ftp -n -v 127.0.0.1 "$fport" >"$C/inetutils-get.txt" 2>&1
ftpscript "$user" "$pw" "put $T/up.bin up-inet.bin" | inetutils-ftp -n -v 127.0.0.1 "$fport" >"$C/inetutils-put.txt" 2>&1
for f in tnftp-get inetutils-get; do
	imp "$C/$f.txt" ftp 2
	check "$f: 2 gets of 1048576 bytes" \
		[ "$(runs_json "$C/$f.txt" '[(s["direction"], r["bytes"]) for s in d["sets"] for r in s["runs"]]')" = "[('get', 1048576), ('get', 1048576)]" ]
done
for f in tnftp-put inetutils-put; do
	imp "$C/$f.txt" ftp 1
	check "$f: a put of 100000 bytes" \
		[ "$(runs_json "$C/$f.txt" '[(s["direction"], r["bytes"]) for s in d["sets"] for r in s["runs"]]')" = "[('put', 100000)]" ]
done
# lftp prints a time only for transfers of a second or more: slow it down.
lftp -c "set cmd:interactive yes; set net:limit-rate 400000; open -u anonymous,x $u; get zero.bin -o $T/z.bin; get random.bin -o $T/r.bin" >"$C/lftp-get.txt" 2>&1
imp "$C/lftp-get.txt" ftp 2
check "lftp: 2 transfers of 1048576 bytes taking over 1 s" \
	[ "$(runs_json "$C/lftp-get.txt" 'all(r["bytes"] == 1048576 and r["seconds"] > 1 for s in d["sets"] for r in s["runs"])')" = True ]
exit $xs_fail
