#!/bin/sh
# IrCOMM 3-wire raw (IrLMP without TinyTP) between two irdad over irwire
# in real time, [ircomm] endpoints on ptys:
#   - both ends configured `wire 3wire-raw`: 64 KiB of random data each
#     way at once through the ptys, intact; both daemons log 3-wire raw;
#     b's IAS object names IrDA:IrLMP:LsapSel and no TinyTP selector;
#   - a caller configured `wire 9wire` finds only the 3-wire raw listener
#     and falls back to it: 8 KiB each way intact;
#   - the capture of the first session decodes in tshark, no malformed
#     frame; its data runs over IrLMP without TinyTP.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"

start_wire
printf '[ircomm raw]\nrole call\npeer nickname "beta"\nwire 3wire-raw\npty %s\n' "$tmp/raw-a" >"$tmp/a.conf"
printf '[ircomm printer]\nrole listen\nwire 3wire-raw\npty %s\n' "$tmp/raw-b" >"$tmp/b.conf"
start_irdad alpha "$a" -c "$tmp/a.conf" -v --pcap "$tmp/a.pcap"
pa=$irdad_pid
start_irdad beta "$b" -c "$tmp/b.conf" -v
pb=$irdad_pid
[ -L "$tmp/raw-a" ] && [ -L "$tmp/raw-b" ] || fail "the [ircomm] pty links are missing"

"$PYTHON" "$top_srcdir/tests/irdad_ircomm_test.py" "$tmp/raw-a" "$tmp/raw-b" 64 \
	>"$tmp/data.out" 2>"$tmp/data.err" || fail "64 KiB through 3-wire raw"
cat "$tmp/data.out"
grep -q 'ircomm raw: connected to 0x[0-9a-f]*, 3-wire raw' "$tmp/irdad-alpha.err" &&
	grep -q 'ircomm printer: connected to 0x[0-9a-f]*, 3-wire raw' "$tmp/irdad-beta.err" ||
	fail "the daemons did not log a 3-wire raw connection"
echo "ok: both daemons connected 3-wire raw"
# the listener names its caller by the link's address, not 0x00000000
link_addr=$(sed -n 's/.*: connected to \(0x[0-9a-f]*\) as secondary.*/\1/p' "$tmp/irdad-beta.err" | head -1)
[ -n "$link_addr" ] && [ "$link_addr" != 0x00000000 ] &&
	grep -q "ircomm printer: connected to $link_addr, 3-wire raw" "$tmp/irdad-beta.err" ||
	fail "the listener's ircomm line does not name the link's peer ($link_addr)"
echo "ok: the listener's ircomm line names its caller $link_addr, as the link line does"
grep -q 'ircomm printer: peer.s data rate' "$tmp/irdad-beta.err" &&
	fail "a setting crossed a raw connection (it has no control channel)"
kill -TERM $pa
wait $pa || fail "alpha exited $? on SIGTERM"
lpid=$pb
# beta logs the link's end once: its cause and the bytes it carried
# (alpha left without a DISC: beta's watchdog ends the link within 12 s)
i=0
until grep -q "link to $link_addr down: " "$tmp/irdad-beta.err"; do
	i=$((i + 1))
	[ $i -gt $(($(ceiling 30) * 10)) ] && fail "beta did not log the link's end"
	sleep 0.1
done
ends=$(grep -c "link to $link_addr down: .* after [0-9.]* s, [0-9]* bytes sent, [0-9]* received" "$tmp/irdad-beta.err")
[ "$ends" -eq 1 ] || fail "beta logged the link's end $ends times, not once with cause and byte counts"
echo "ok: beta logged the link's end once: $(grep "link to $link_addr down: " "$tmp/irdad-beta.err" | sed 's/^[a-z]*: irdad: //')"

# a 9-wire caller against the raw-only listener: it falls back
printf '[ircomm nine]\nrole call\npeer nickname "beta"\nwire 9wire\npty %s\n' "$tmp/nine-a" >"$tmp/a2.conf"
start_irdad alpha2 "$a" -c "$tmp/a2.conf" -v
pa=$irdad_pid
"$PYTHON" "$top_srcdir/tests/irdad_ircomm_test.py" "$tmp/nine-a" "$tmp/raw-b" 8 \
	>"$tmp/data2.out" 2>"$tmp/data2.err" || fail "8 KiB through the fallback"
cat "$tmp/data2.out"
grep -q 'peer offers 0x01, chose 3-wire raw' "$tmp/irdad-alpha2.err" &&
	grep -q 'ircomm nine: connected to 0x[0-9a-f]*, 3-wire raw' "$tmp/irdad-alpha2.err" ||
	fail "the 9-wire caller did not fall back to 3-wire raw"
echo "ok: a caller with wire 9wire fell back to the raw-only listener"
kill -TERM $pa $pb
wait $pa; ra=$?
wait $pb; rb=$?
lpid=
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "daemons exited $ra and $rb on SIGTERM"

capture_clean "$tmp/a.pcap" 50 || exit 0
ts() { "$TSHARK" -r "$tmp/a.pcap" "$@" 2>>"$tmp/tshark.err"; }
ts -Y 'iap.classname' -T fields -e iap.classname -e iap.attrname >"$tmp/q.out"
grep -q '^IrDA:IrCOMM	Parameters$' "$tmp/q.out" && grep -q '^IrDA:IrCOMM	IrDA:IrLMP:LsapSel$' "$tmp/q.out" ||
	fail "no IAS lookups of IrDA:IrCOMM Parameters and IrDA:IrLMP:LsapSel"
lsap=$(ts -Y 'iap.int' -T fields -e iap.int | tail -n 1)
bytes=$(ts -Y "data && !irlmp.opcode && (irlmp.dst.lsap == $lsap || irlmp.src.lsap == $lsap)" \
	-T fields -e data.len | awk '{ s += $1 } END { print s + 0 }')
# 64 KiB each way, a few single bytes while the call came up; no clen byte
[ "$bytes" -ge $((2 * 65536)) ] && [ "$bytes" -lt $((2 * 65536 + 200)) ] ||
	fail "capture: $bytes bytes of LM data on LSAP $lsap"
echo "ok: capture: $capture_frames frames, none malformed; IAS IrDA:IrCOMM IrDA:IrLMP:LsapSel -> $lsap, $bytes bytes of IrLMP data"
exit 0
