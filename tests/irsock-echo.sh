#!/bin/sh
# The 1 MiB stream echo of the AF_IRDA issue, under irsock (docs/irsock.md):
# tests/irsock_classic writes 1048576 bytes in 2000-byte writes to the
# echo server of another irsock_classic, both under irsock over two irdad
# on irwire at 115200, and checks every byte of the echo.  2 MiB cross a
# half-duplex line: about 200 s of real time, mostly waiting (every
# process sleeps in poll), so it costs little CPU; nothing here depends on
# how long it takes (irsock_classic fails only after 30 s without a byte).
# IRSOCK_ECHO_BYTES overrides the size.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
. "${top_srcdir:-.}/tests/irsock-lib.sh"
irsock_paths
bytes=${IRSOCK_ECHO_BYTES:-1048576}

start_wire
start_irdad alpha "$a"
start_irdad beta "$b"
irsock_serve beta
irsock_discover alpha beta
"$irsock" --daemon "$tmp/alpha.sock" "$classic" echo stream "$peer" "$bytes" 2000 >"$tmp/echo.out" 2>&1 ||
	fail "stream echo: $(cat "$tmp/echo.out")"
cat "$tmp/echo.out"
grep -q "^ok: stream echo of $bytes bytes in 2000-byte writes, every byte checked" "$tmp/echo.out" ||
	fail "stream echo: no verdict"
exit 0
