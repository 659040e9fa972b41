#!/bin/sh
# IRLMP_IAS_SET and IRLMP_IAS_QUERY through libirsock.so by a program that
# declares Linux's structures itself with the ABI's layout
# (tests/irsock_ias.c: irda_ias_set of 1356 bytes, names of 64 and 256,
# type at 320, value at 324, daddr at 1352), over two irdad on irwire in
# real time (issue 26's ABI bug: irsock used 60-byte names, 1156 bytes):
#   - the server on beta sets a string in its socket's own object and an
#     integer (59-character name) and 48 octets in another class; optlen
#     1156 is refused (EINVAL);
#   - alpha finds beta by IRLMP_ENUMDEVICES and queries each (daddr in the
#     block, on an unconnected socket): the values exactly as set, the
#     listener's LsapSel as its getsockname said, irdad's DeviceName; a
#     missing class and the refused attribute EADDRNOTAVAIL, optlen 1156
#     EINVAL.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
. "${top_srcdir:-.}/tests/irsock-lib.sh"
irsock_paths
prog="$abs_top_builddir/tests/irsock_ias"
[ -x "$prog" ] || fail "$prog not built"

start_wire
start_irdad alpha "$a" -v
start_irdad beta "$b" -v

# the server holds its socket (and IAS entries) until its stdin ends
mkfifo "$tmp/hold"
"$irsock" -v --daemon "$tmp/beta.sock" "$prog" serve <"$tmp/hold" >"$tmp/serve.out" 2>"$tmp/serve.err" &
lpid="$lpid $!"
exec 3>"$tmp/hold"
wait_for "$tmp/serve.out" '^serving\|^FAIL'
grep -q '^FAIL' "$tmp/serve.out" && fail "the IAS_SET side: $(grep '^FAIL' "$tmp/serve.out")"
lsap=$(sed -n 's/^listening: LSAP \(0x..\)$/\1/p' "$tmp/serve.out")
[ -n "$lsap" ] || fail "the server printed no LSAP"
sed -n 's/^ok: /PASS: beta: /p' "$tmp/serve.out"
grep -q 'IRLMP_IAS_SET "IasAbi" "AbiWords"' "$tmp/serve.err" &&
	grep -q 'IRLMP_IAS_SET "IasAbiInfo" "AnAttributeNameOfFiftyNine' "$tmp/serve.err" ||
	fail "irsock did not log the IAS_SET names as the program set them"
echo "PASS: IRLMP_IAS_SET: irsock read the class and attribute names at offsets 0 and 64"

timeout "$(ceiling 60)" "$irsock" --daemon "$tmp/alpha.sock" "$prog" query beta "$lsap" \
	>"$tmp/query.out" 2>"$tmp/query.err"
rc=$?
sed -n 's/^ok: /PASS: alpha: /p' "$tmp/query.out"
[ $rc -eq 0 ] || fail "the IAS_QUERY side (exit $rc): $(grep '^FAIL' "$tmp/query.out")"
n=$(grep -c '^ok: IAS_QUERY' "$tmp/query.out")
[ "$n" -eq 8 ] || fail "$n IAS_QUERY checks passed, not 8"
exec 3>&-
exit 0
