#!/bin/sh
# xferstat run against a real vsftpd on 127.0.0.1 (its own config, a free
# high port), anonymous and a throwaway local user:
#  - 10 interleaved GETs of a zero and a random file, 10 PUTs of zero
#    and random data: every run moved the right bytes, the uploads
#    arrived whole and with the right content kind;
#  - a rate-limited server (anon_max_rate): each measured rate within 5 %
#    of the limit;
#  - Ctrl-C during a run keeps the completed runs and exits 130.
. "${top_srcdir:-.}/tests/xferstat-lib.sh"
xs_need_root
xs_need vsftpd useradd gzip
trap xs_cleanup EXIT
xs_mktemp
T=$xs_tmp

mkdir -p "$T/anon"
head -c 2097152 /dev/zero >"$T/anon/zero.bin"
head -c 2097152 /dev/urandom >"$T/anon/random.bin"
user=xfs$$
xs_user "$user" "$T/home" || { echo "cannot create user $user"; exit 99; }
pw=$xs_user_pw
port=$(xs_free_port)
xs_vsftpd "$T" "$port" || exit 99
url=ftp://127.0.0.1:$port

# --- 10 GETs of each file, interleaved ------------------------------------
"$XFERSTAT" run -n 10 -o "$T/get.json" --label zero "$url/zero.bin" \
	--label random "$url/random.bin" >"$T/get.out" 2>&1
rc=$?
cat "$T/get.out"
check "GET runs exit 0" [ "$rc" -eq 0 ]
check "GET: two sets of 10 runs" \
	[ "$(xs_json "$T/get.json" '[len(s["runs"]) for s in d["sets"]]')" = "[10, 10]" ]
check "GET: every run moved 2097152 bytes" \
	[ "$(xs_json "$T/get.json" 'sorted({r["bytes"] for s in d["sets"] for r in s["runs"]})')" = "[2097152]" ]
check "GET: data and setup times are positive" \
	[ "$(xs_json "$T/get.json" 'all(r["seconds"] > 0 and r["setup_seconds"] > 0 for s in d["sets"] for r in s["runs"])')" = True ]
check "GET: labels, direction and source" \
	[ "$(xs_json "$T/get.json" '[(s["label"], s["direction"], s["source"]) for s in d["sets"]]')" = \
	  "[('zero', 'get', '$url/zero.bin'), ('random', 'get', '$url/random.bin')]" ]
check "GET: the table lists 10 runs per set" \
	[ "$(grep -cE '^ +[0-9]+ +2097152 ' "$T/get.out")" -eq 20 ]

# --- 10 PUTs of zero and random data --------------------------------------
"$XFERSTAT" run -n 10 -o "$T/put.json" --put --size 1M \
	--label zero --pattern zero "ftp://$user:$pw@127.0.0.1:$port/up-zero.bin" \
	--label random --pattern random "ftp://$user:$pw@127.0.0.1:$port/up-random.bin" \
	>"$T/put.out" 2>&1
rc=$?
cat "$T/put.out"
check "PUT runs exit 0" [ "$rc" -eq 0 ]
check "PUT: every run moved 1048576 bytes" \
	[ "$(xs_json "$T/put.json" '[sorted({r["bytes"] for r in s["runs"]}) + [len(s["runs"])] for s in d["sets"]]')" = "[[1048576, 10], [1048576, 10]]" ]
check "PUT: the password is not in the result file" \
	sh -c "! grep -q '$pw' '$T/put.json'"
check "PUT: the password is not printed" sh -c "! grep -q '$pw' '$T/put.out'"
check "PUT: zero upload arrived whole and all zero" \
	cmp -s "$T/home/up-zero.bin" "$T/anon/zero.bin" -n 1048576
check "PUT: zero upload has the right size" [ "$(stat -c %s "$T/home/up-zero.bin")" -eq 1048576 ]
rsize=$(stat -c %s "$T/home/up-random.bin")
gz=$(gzip -c "$T/home/up-random.bin" | wc -c)
check "PUT: random upload has the right size ($rsize)" [ "$rsize" -eq 1048576 ]
check "PUT: random upload does not compress ($gz bytes gzipped)" [ "$gz" -gt 1040000 ]

# --- text pattern compresses ---------------------------------------------
"$XFERSTAT" run -q -n 1 --put --size 1M --pattern text \
	"ftp://$user:$pw@127.0.0.1:$port/up-text.bin"
gz=$(gzip -c "$T/home/up-text.bin" | wc -c)
check "PUT: text upload is printable and compresses ($gz bytes gzipped)" \
	sh -c "[ $gz -lt 400000 ] && ! LC_ALL=C grep -q '[^ -~]' '$T/home/up-text.bin'"

# --- rate-limited server ----------------------------------------------------
# vsftpd sleeps after each 64 KiB chunk to hold anon_max_rate; at 1 MB/s
# a 3 MB file takes about 3 s, long enough for its first chunk and its
# sleep granularity to stay well under 1 %.
rate=1000000
port2=$(xs_free_port)
xs_vsftpd "$T" "$port2" "anon_max_rate=$rate" || exit 99
head -c 3000000 /dev/urandom >"$T/anon/limited.bin"
"$XFERSTAT" run -n 2 -o "$T/limited.json" "ftp://127.0.0.1:$port2/limited.bin" >"$T/lim.out" 2>&1
rc=$?
cat "$T/lim.out"
check "rate-limited runs exit 0" [ "$rc" -eq 0 ]
rates=$(xs_json "$T/limited.json" '" ".join("%.0f" % (r["bytes"] / r["seconds"]) for r in d["sets"][0]["runs"])')
echo "measured rates (bytes/s): $rates; limit $rate"
for r in $rates; do
	check "rate $r within 5 % of $rate" [ "$r" -ge $((rate * 95 / 100)) -a "$r" -le $((rate * 105 / 100)) ]
done

# --- the progress bar: on a terminal only ----------------------------------
check "no progress bar when stderr is not a terminal" sh -c "! grep -q \"$(printf '\r')\" '$T/lim.out'"
if command -v script >/dev/null; then
	head -c 1500000 /dev/urandom >"$T/anon/bar.bin"
	script -qfc "$XFERSTAT run -n 1 ftp://127.0.0.1:$port2/bar.bin 2>&1 >/dev/null" "$T/bar.tty" >/dev/null 2>&1
	check "progress bar drawn on a terminal, up to 100 %, then erased" \
		sh -c "grep -q '\[##.*100%' '$T/bar.tty' && grep -q \"$(printf '\r\033\\[K')\" '$T/bar.tty'"
fi

# --- Ctrl-C keeps the completed runs ---------------------------------------
"$XFERSTAT" run -n 5 -o "$T/int.json" "ftp://127.0.0.1:$port2/limited.bin" >"$T/int.out" 2>&1 &
xpid=$!
xs_pids="$xs_pids $xpid"
for i in $(seq 100); do
	[ -s "$T/int.json" ] && break
	sleep 0.1
done
kill -INT "$xpid"
wait "$xpid"
rc=$?
cat "$T/int.out"
check "interrupted run exits 130 (got $rc)" [ "$rc" -eq 130 ]
check "interrupted run kept exactly the completed run" \
	[ "$(xs_json "$T/int.json" 'len(d["sets"][0]["runs"])')" = 1 ]
check "interrupted run says so" grep -q "interrupted; keeping the 1 completed run" "$T/int.out"
check "no temporary file left" [ -z "$(ls "$T" | grep '\.tmp-')" ]

exit $xs_fail
