#!/bin/sh
# The real-time soak (issue 16 point 3, docs/reliability.md): two irdad
# over irwire with bit errors (SOAK_RT_BER, default 3e-5) and a pattern of
# breaks spread over the run, short ones IrLAP rides out and long ones
# that drop the link, for SOAK_RT_MINUTES (default 2, `make soak-rt
# MINUTES=N` for longer), carrying at once:
#   - IrCOMM: sequenced, checksummed records both ways between the ptys
#     of alpha's [ircomm] caller (reconnect yes) and beta's listener;
#   - IrNET: PPP frames both ways between alpha's [irnet] caller
#     (reconnect yes) and beta's listener;
#   - AF_IRDA: tests/irsock_classic under irsock on alpha, connect / echo
#     / close again and again against its echo server under irsock on beta.
# tests/irdad_soak_rt.py drives it, samples each irdad's RSS and open
# descriptors every 2 s and checks them and the data (see there).  Then
# both daemons must end cleanly on SIGTERM.  The 2-minute form takes
# about 2 min 10 s, mostly idle.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
. "${top_srcdir:-.}/tests/irsock-lib.sh"
irsock_paths
minutes=${SOAK_RT_MINUTES:-2}
seed=${SOAK_RT_SEED:-1}
ber=${SOAK_RT_BER:-3e-5}
driver="$top_srcdir/tests/irdad_soak_rt.py"
awk -v m="$minutes" 'BEGIN { exit !(m + 0 >= 2) }' ||
	fail "SOAK_RT_MINUTES=$minutes: 2 at least"

breaks=$(PYTHONPATH="$top_srcdir/tests" "$PYTHON" "$driver" breaks "$minutes" "$seed" |
	sed 's/^/--break /') || fail "no break list"
# shellcheck disable=SC2086 # one word per option
start_wire --ber "$ber" --seed "$seed" $breaks
date +%s.%N >"$tmp/wire.start"
start_mixed_pair yes
irsock_serve beta

PYTHONPATH="$top_srcdir/tests" "$PYTHON" "$driver" run "$tmp" "$minutes" "$seed" \
	irdad-a=$pa irdad-b=$pb irwire=$wpid -- "$irsock" --daemon "$tmp/alpha.sock" "$classic" \
	>"$tmp/soak.out" 2>"$tmp/soak.err"
rc=$?
cat "$tmp/soak.out"
[ $rc -eq 0 ] || fail "the soak's checks (above)"
stop_irdads $pa $pb
kill -TERM "$wpid"
wait "$wpid"
wpid=
sed -n 's/^total \([ab]\): .* corrupted=\([0-9]*\) .* lost_break=\([0-9]*\) .*/soak-rt: wire side \1: bytes corrupted by bit errors \2, lost in breaks \3/p' \
	"$tmp/wire.out"
grep -Eq 'lost_break=[1-9]' "$tmp/wire.out" || fail "irwire lost no byte in a break"
exit 0
