#!/bin/sh
# Plain IrLMP connections (MODE lmp, docs/irdad-api.md) between two irdad
# over irwire in real time, driven by tests/irdad_lmp_test.py (the
# independent client of tests/irdad_client.py): a listener with an IAS
# class (IrDA:IrLMP:LsapSel), a caller by class, datagrams both ways
# (content and boundaries), an oversized write refused, a reader that
# stops (drops counted), the disconnect with its reason.  alpha records
# the session (--pcap) and tshark must decode it without a malformed
# frame: the IAS lookup of the IrLMP attribute, the LM connect, confirm,
# data and disconnect, and no TinyTP on that connection.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
irdad="$abs_top_builddir/irnet/tools/irdad"
[ -x "$irdad" ] || fail "irdad not built"

start_wire
start_irdad alpha "$a" -v --pcap "$tmp/alpha.pcap"
pa=$irdad_pid
start_irdad beta "$b" -v
pb=$irdad_pid

PYTHONPATH="$top_srcdir/tests" "$PYTHON" "$top_srcdir/tests/irdad_lmp_test.py" \
	"$tmp/alpha.sock" "$tmp/beta.sock" >"$tmp/lmp.out" 2>"$tmp/lmp.err" || fail "LMP test failed"
cat "$tmp/lmp.out"
grep -q 'write is over the [0-9]* bytes one LM-PDU carries: dropped' "$tmp/irdad-alpha.err" ||
	fail "the oversize write was not logged with its reason"
kill -0 $pa 2>/dev/null && kill -0 $pb 2>/dev/null || fail "a daemon died"
kill -TERM $pa $pb
wait $pa; ra=$?
wait $pb; rb=$?
lpid=
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "daemons exited $ra and $rb on SIGTERM"

capture_clean "$tmp/alpha.pcap" 100 || exit 0
echo "ok: capture: $capture_frames frames, none malformed, no expert warning"
ts() { "$TSHARK" -r "$tmp/alpha.pcap" "$@" 2>>"$tmp/tshark.err"; }
ts -Y 'iap.classname' -T fields -e iap.classname -e iap.attrname >"$tmp/q.out"
grep -q '^Test:Lmp	IrDA:IrLMP:LsapSel$' "$tmp/q.out" || fail "no IAS lookup of Test:Lmp"
lsap=$(ts -Y 'iap.int' -T fields -e iap.int | sed -n '1p')
# the LM connect to that LSAP (alpha's IAS client also uses a selector
# that may be the same number: the direction tells them apart), the
# confirm from it, the disconnect (user request) when the caller closed
ts -Y "irlmp.dst.lsap == $lsap" -T fields -e irlmp.opcode -e irlmp.reason >"$tmp/to.out"
ts -Y "irlmp.src.lsap == $lsap" -T fields -e irlmp.opcode >"$tmp/from.out"
[ "$(grep -c '^0x01' "$tmp/to.out")" -eq 1 ] && [ "$(grep -c '^0x81' "$tmp/from.out")" -eq 1 ] ||
	fail "not one LM connect to LSAP $lsap and one confirm from it"
grep -q '^0x02	0x01$' "$tmp/to.out" || fail "no LM disconnect (user request) to LSAP $lsap"
# one LM data PDU per message, exactly the message (no TinyTP byte in
# front): as many PDUs and bytes as the client sent, unless IrLAP
# retransmitted (each retransmission is the frame once more)
read -r _ nmsg _ nbytes _ retx _ <<EOT
$(grep '^sent: ' "$tmp/lmp.out")
EOT
ts -Y "data && !irlmp.opcode && (irlmp.dst.lsap == $lsap || irlmp.src.lsap == $lsap)" \
	-T fields -e data.len >"$tmp/data.out"
npdu=$(wc -l <"$tmp/data.out")
nlen=$(awk '{ s += $1 } END { print s + 0 }' "$tmp/data.out")
if [ "$npdu" -eq "$nmsg" ]; then
	[ "$nlen" -eq "$nbytes" ] || fail "capture: $nlen bytes of LM data, the client sent $nbytes"
elif [ "$npdu" -lt "$nmsg" ] || [ $((npdu - nmsg)) -gt "$retx" ] || [ "$nlen" -lt "$nbytes" ]; then
	fail "capture: $npdu LM data PDUs ($nlen bytes), the client sent $nmsg ($nbytes), $retx retransmitted"
fi
ts -Y "(irlmp.opcode == 0x01 || irlmp.opcode == 0x81) && data && (irlmp.dst.lsap == $lsap || irlmp.src.lsap == $lsap)" \
	-T fields -e frame.number >"$tmp/cdata.out"
[ -s "$tmp/cdata.out" ] && fail "the LM connect or confirm carries user data (frames $(cat "$tmp/cdata.out"))"
echo "ok: capture: IAS Test:Lmp IrDA:IrLMP:LsapSel -> LSAP $lsap; LM connect and confirm without data; $npdu data PDUs, $nlen bytes (sent $nmsg, $nbytes; $retx I-frames retransmitted); disconnect 0x01"
exit 0
