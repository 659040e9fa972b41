#!/bin/sh
# Debian's own unmodified OBEX programs under irsock(1), over two irdad on
# irwire in real time (docs/irsock.md):
#   - `ircp -r DIR` under irsock on b, `ircp FILE...` under irsock on a:
#     a 256 KiB random file and three small ones arrive intact (sha256);
#     the rate is printed against the line's 11520 bytes/s;
#   - the other way round (b sends, a receives), a small file;
#   - the capture of a's side has no malformed frame in tshark, which
#     decodes its IAS queries; tshark 4.0 does not follow OBEX classes into
#     TinyTP, so tests/irsock_obex_check.py checks that layer from its
#     IrLMP fields (TinyTP headers, no SAR, whole OBEX packets, CONNECT
#     first, DISCONNECT last, a response per request, in all 3 sessions)
#     and writes the OBEX packets into a pcapng that tshark decodes with
#     its own OBEX dissector: none malformed, every file's Name and Length
#     headers as sent, the folder-listing GET, each response matched;
#   - `obexftpd -v -i -c DIR` under irsock on b, `obexftp -i -l` on a: the
#     connection is made and obexftpd's log shows the folder listing
#     served (obexftp 0.24 in Debian 12 prints nothing and writes no file
#     even over TCP, so its output is not checked).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irsock="$abs_top_builddir/irnet/irsock/irsock"
IRSOCK_LIBRARY="$abs_top_builddir/irnet/irsock/.libs/libirsock.so"
export IRSOCK_LIBRARY
for p in "$irsock" "$IRSOCK_LIBRARY"; do [ -e "$p" ] || fail "$p not built"; done
for p in ircp obexftp obexftpd sha256sum; do
	command -v $p >/dev/null || skip "$p not installed (apt-get install openobex-apps obexftp)"
done

start_wire
start_irdad alpha "$a" -v --pcap "$tmp/a.pcap"
pa=$irdad_pid
start_irdad beta "$b" -v
pb=$irdad_pid

mkdir "$tmp/send" "$tmp/rx-b" "$tmp/rx-a" "$tmp/srv"
head -c 262144 /dev/urandom >"$tmp/send/big.bin"
printf 'hello\n' >"$tmp/send/small1.txt"
head -c 1000 /dev/urandom >"$tmp/send/small2.bin"
head -c 5000 /dev/urandom >"$tmp/send/small3.bin"

# ircp -r exits after one session.  Its output is buffered: irdad's log
# says when it listens.
(cd "$tmp/rx-b" && exec "$irsock" --daemon "$tmp/beta.sock" ircp -r .) >"$tmp/rxb.out" 2>"$tmp/rxb.err" &
rxb=$!
lpid="$lpid $rxb"
wait_for "$tmp/irdad-beta.err" 'listener .* as OBEX:IrXfer$'
t0=$(date +%s.%N)
(cd "$tmp/send" && timeout "$(ceiling 120)" "$irsock" --daemon "$tmp/alpha.sock" ircp big.bin small1.txt small2.bin small3.bin) \
	>"$tmp/txa.out" 2>"$tmp/txa.err" || fail "ircp (sender): exit $?"
t1=$(date +%s.%N)
i=0
while kill -0 $rxb 2>/dev/null; do
	i=$((i + 1)); [ $i -gt "$(ceiling 100)" ] && fail "ircp -r did not end"; sleep 0.1
done
wait $rxb || fail "ircp -r: exit $?"
grep -q 'Disconnecting...done' "$tmp/txa.out" || fail "ircp (sender) did not end its session cleanly"
for f in big.bin small1.txt small2.bin small3.bin; do
	[ -f "$tmp/rx-b/$f" ] || fail "$f did not arrive"
	[ "$(sha256sum <"$tmp/send/$f")" = "$(sha256sum <"$tmp/rx-b/$f")" ] || fail "$f arrived altered"
done
echo "ok: ircp a -> b: 256 KiB and three small files intact (sha256)"
awk -v t0="$t0" -v t1="$t1" 'BEGIN {
	n = 262144 + 6 + 1000 + 5000; dt = t1 - t0
	printf "ircp of %d bytes in %.1f s: %.0f bytes/s, %.2f of the 115200 line (11520 bytes/s)\n", n, dt, n / dt, n / dt / 11520 }'

# The other way.
(cd "$tmp/rx-a" && exec "$irsock" --daemon "$tmp/alpha.sock" ircp -r .) >"$tmp/rxa.out" 2>"$tmp/rxa.err" &
rxa=$!
lpid="$lpid $rxa"
wait_for "$tmp/irdad-alpha.err" 'listener .* as OBEX:IrXfer$'
(cd "$tmp/send" && timeout "$(ceiling 60)" "$irsock" --daemon "$tmp/beta.sock" ircp small3.bin) \
	>"$tmp/txb.out" 2>"$tmp/txb.err" || fail "ircp b -> a: exit $?"
wait $rxa || fail "ircp -r on a: exit $?"
cmp -s "$tmp/send/small3.bin" "$tmp/rx-a/small3.bin" || fail "ircp b -> a: the file differs"
echo "ok: ircp b -> a: intact"

# obexftpd binds the empty service name (docs/irsock.md: it registers "OBEX").
(cd "$tmp/srv" && exec "$irsock" --daemon "$tmp/beta.sock" obexftpd -v -i -c "$tmp/srv") \
	>"$tmp/ftpd.out" 2>"$tmp/ftpd.err" &
ftpd=$!
lpid="$lpid $ftpd"
wait_for "$tmp/irdad-beta.err" 'listener .* as OBEX$'
timeout "$(ceiling 60)" "$irsock" --daemon "$tmp/alpha.sock" obexftp -i -l >"$tmp/ftp.out" 2>"$tmp/ftp.err"
grep -q 'Connecting\.\.\..*done' "$tmp/ftp.err" || fail "obexftp did not connect: $(cat "$tmp/ftp.err")"
grep -q 'type:x-obex/folder-listing' "$tmp/ftpd.out" && grep -q '<folder-listing' "$tmp/ftpd.out" ||
	fail "obexftpd served no folder listing"
echo "ok: obexftp -i -l connected and obexftpd served the folder listing"
kill $ftpd 2>/dev/null
wait $ftpd 2>/dev/null

kill -TERM $pa $pb
wait $pa
wait $pb
lpid=
if capture_clean "$tmp/a.pcap"; then
	"$TSHARK" -r "$tmp/a.pcap" -Y iap 2>/dev/null | grep -q 'GetValueByClass: "OBEX:IrXfer" "IrDA:TinyTP:LsapSel"' ||
		fail "tshark: no IAS query for OBEX:IrXfer"
	# tshark follows IAS into TinyTP only for Device, IrCOMM and IrLPT:
	# the TinyTP layer is checked from its IrLMP fields, and the OBEX
	# packets under it go to tshark's own OBEX dissector through a pcapng
	# with a user link type.
	"$TSHARK" -r "$tmp/a.pcap" -T fields -e frame.time_epoch -e irlap.a.cr -e irlmp.dst.lsap -e irlmp.src.lsap \
		-e irlmp.dst.c -e irlmp.opcode -e data.data -e iap.classname -e iap.int 2>/dev/null |
		"$PYTHON" "$top_srcdir/tests/irsock_obex_check.py" --pcapng "$tmp/obex.pcapng" >"$tmp/obex.out" ||
		fail "$(cat "$tmp/obex.out")"
	cat "$tmp/obex.out"
	[ "$(grep -c '^ok: connection' "$tmp/obex.out")" -eq 3 ] || fail "not 3 OBEX connections in the capture"
	obex_dlt='uat:user_dlts:"User 0 (DLT=147)","obex","0","","0",""'
	capture_clean "$tmp/obex.pcapng" 290 obex -o "$obex_dlt"
	"$TSHARK" -r "$tmp/obex.pcapng" -o "$obex_dlt" -Y 'obex.name || obex.type' \
		-T fields -e obex.opcode -e obex.name -e obex.length -e obex.type 2>/dev/null >"$tmp/obex.heads"
	printf '0x02\t%s\n' 'big.bin	262144	' 'small1.txt	6	' 'small2.bin	1000	' 'small3.bin	5000	' \
		'small3.bin	5000	' >"$tmp/obex.want"
	printf '0x03\t\t\tx-obex/folder-listing\n' >>"$tmp/obex.want"
	cmp -s "$tmp/obex.want" "$tmp/obex.heads" ||
		fail "tshark's OBEX names and types: $(cat "$tmp/obex.heads"), expected $(cat "$tmp/obex.want")"
	unmatched=$("$TSHARK" -r "$tmp/obex.pcapng" -o "$obex_dlt" -Y 'obex.resp_code && !obex.request_in_frame' \
		-T fields -e frame.number 2>/dev/null | wc -l)
	[ "$unmatched" -eq 0 ] || fail "tshark matched no request to $unmatched OBEX responses"
	echo "ok: tshark decodes IAS and, in $capture_frames OBEX packets, every PUT's name and length" \
		"(4 files, then 1 the other way) and the folder-listing GET; each response has its request; none malformed"
else
	echo "tshark not found: capture not checked"
fi
exit 0
