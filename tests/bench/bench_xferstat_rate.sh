#!/bin/sh
# bench: the rate xferstat measures for a large loopback FTP GET against
# curl's own speed_download for the same file from the same server, taken
# in turns (curl, xferstat, curl, ...) in one run.  xferstat times the data
# phase only, curl's speed_download divides by the whole time, so the
# ratio is at or above 1 when both time the same bytes.
#   bench: xferstat_vs_curl_rate RATIO ratio
. "${top_srcdir:-.}/tests/xferstat-lib.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v vsftpd >/dev/null || ! command -v curl >/dev/null; then
	echo "bench_xferstat_rate: needs root, vsftpd and curl; not measured"
	exit 0
fi
trap xs_cleanup EXIT
xs_mktemp
T=$xs_tmp
mkdir -p "$T/anon"
# 1 GiB, sparse: the server reads zero pages, the disk is not involved.
truncate -s 1G "$T/anon/big.bin"
port=$(xs_free_port)
xs_vsftpd "$T" "$port" || exit 1
url=ftp://127.0.0.1:$port/big.bin
rounds=5
: >"$T/curl.txt"
: >"$T/xfer.txt"
for i in $(seq $rounds); do
	curl -s -o /dev/null -w '%{speed_download}\n' "$url" >>"$T/curl.txt" || exit 1
	"$XFERSTAT" run -q -n 1 -o "$T/x.json" "$url" || exit 1
	xs_json "$T/x.json" 'd["sets"][0]["runs"][0]["bytes"] / d["sets"][0]["runs"][0]["seconds"]' >>"$T/xfer.txt"
done
median() { sort -g "$1" | sed -n "$(( ($rounds + 1) / 2 ))p"; }
c=$(median "$T/curl.txt")
x=$(median "$T/xfer.txt")
echo "curl speed_download (median of $rounds): $c B/s; xferstat data-phase rate: $x B/s"
"$PY" -c 'import sys; print("bench: xferstat_vs_curl_rate %.4f ratio" % (float(sys.argv[1]) / float(sys.argv[2])))' "$x" "$c"
