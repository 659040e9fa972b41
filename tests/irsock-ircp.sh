#!/bin/sh
# Debian's own unmodified OBEX programs under irsock(1), over two irdad on
# irwire in real time (docs/irsock.md):
#   - `ircp -r DIR` under irsock on b, `ircp FILE...` under irsock on a:
#     a 256 KiB random file and three small ones arrive intact (sha256);
#     the rate is printed against the line's 11520 bytes/s;
#   - the other way round (b sends, a receives), a small file;
#   - the capture of a's side decodes in tshark as IAS, TinyTP and OBEX
#     with no malformed frame;
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

# ircp -r exits after one session; its "Waiting" line says it listens.
(cd "$tmp/rx-b" && exec "$irsock" --daemon "$tmp/beta.sock" ircp -r .) >"$tmp/rxb.out" 2>"$tmp/rxb.err" &
rxb=$!
lpid="$lpid $rxb"
wait_for "$tmp/rxb.out" 'Waiting for incoming connection'
t0=$(date +%s.%N)
(cd "$tmp/send" && timeout 120 "$irsock" --daemon "$tmp/alpha.sock" ircp big.bin small1.txt small2.bin small3.bin) \
	>"$tmp/txa.out" 2>"$tmp/txa.err" || fail "ircp (sender): exit $?"
t1=$(date +%s.%N)
i=0
while kill -0 $rxb 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "ircp -r did not end"; sleep 0.1
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
wait_for "$tmp/rxa.out" 'Waiting for incoming connection'
(cd "$tmp/send" && timeout 60 "$irsock" --daemon "$tmp/beta.sock" ircp small3.bin) \
	>"$tmp/txb.out" 2>"$tmp/txb.err" || fail "ircp b -> a: exit $?"
wait $rxa || fail "ircp -r on a: exit $?"
cmp -s "$tmp/send/small3.bin" "$tmp/rx-a/small3.bin" || fail "ircp b -> a: the file differs"
echo "ok: ircp b -> a: intact"

# obexftpd binds the empty service name (docs/irsock.md: it registers "OBEX").
(cd "$tmp/srv" && exec "$irsock" --daemon "$tmp/beta.sock" obexftpd -v -i -c "$tmp/srv") \
	>"$tmp/ftpd.out" 2>"$tmp/ftpd.err" &
ftpd=$!
lpid="$lpid $ftpd"
wait_for "$tmp/ftpd.out" 'Waiting for connection'
timeout 60 "$irsock" --daemon "$tmp/alpha.sock" obexftp -i -l >"$tmp/ftp.out" 2>"$tmp/ftp.err"
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
if [ -n "${TSHARK:-}" ] && command -v "$TSHARK" >/dev/null; then
	"$TSHARK" -r "$tmp/a.pcap" -Y '_ws.malformed || _ws.expert.severity >= error' \
		>"$tmp/malformed.txt" 2>"$tmp/tshark.err" || fail "tshark could not read the capture"
	[ -s "$tmp/malformed.txt" ] && { head -20 "$tmp/malformed.txt"; fail "malformed frames in the capture"; }
	nias=$("$TSHARK" -r "$tmp/a.pcap" -Y iap 2>/dev/null | wc -l)
	nttp=$("$TSHARK" -r "$tmp/a.pcap" -Y ttp 2>/dev/null | wc -l)
	nobex=$("$TSHARK" -r "$tmp/a.pcap" -Y obex 2>/dev/null | wc -l)
	[ "$nias" -gt 0 ] && [ "$nttp" -gt 0 ] && [ "$nobex" -gt 0 ] ||
		fail "tshark: IAS $nias, TinyTP $nttp, OBEX $nobex frames"
	"$TSHARK" -r "$tmp/a.pcap" -Y 'obex' -T fields -e obex.opcode 2>/dev/null | sort | uniq -c |
		sed 's/^/  obex opcode: /'
	echo "ok: tshark decodes the capture: $nias IAS, $nttp TinyTP, $nobex OBEX frames, none malformed"
else
	echo "tshark not found: capture not checked"
fi
exit 0
