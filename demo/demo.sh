#!/bin/bash
# demo/demo.sh [--verbose] [--out DIR]: the toolkit at work on this
# machine, no IrDA hardware needed (run by `./bootstrap.sh demo`, which
# builds first).  Five steps, each introduced in a sentence or two and
# ended by a result line "step N ok: ..." (tests/demo.sh checks them):
#   1. two irdad over irwire (an emulated IrDA line at 115200, in real
#      time): discovery names the peer, its hints and IAS services;
#   2. an IrCOMM pty on each side: a phone emulator answers AT commands,
#      then 64 KiB each way, checked byte for byte;
#   3. (user-mode Linux) two pppd 2.4.9 with irnet.so: IPCP, ping, TCP;
#   4. (same guest) xferstat: 10 FTP transfers of 32 KiB on a clean line
#      and on one with BER 1e-5, Time/Rate table, verdict, PNG plot;
#   5. irqtune list, and what irqtune apply --dry-run would change.
#   --verbose   also the protocol logs (irdad, pppd) after each step
#   --out DIR   where the plot and the guest's log go (default
#               BUILD/demo-out)
# BUILD is $abs_top_builddir, else ../build next to this script.
# A failed step prints "demo: step N FAILED: REASON" and exits 1; 2 is a
# usage error.  Everything it starts is stopped at exit, also on Ctrl-C.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${abs_top_builddir:-$top/build}
verbose=0
out=
while [ $# -gt 0 ]; do
	case $1 in
	--verbose | -v) verbose=1 ;;
	--out) out=${2:?--out wants a directory}; shift ;;
	-h | --help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
out=${out:-$build/demo-out}
tools=$build/irnet/tools
PYTHON=${PYTHON:-python3}
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac

step=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/irnet-demo.XXXXXX")
chmod 755 "$tmp"
pids=()     # our background processes, stopped at exit
vm_pid=     # uml-run.sh: its `timeout` child runs in its own process group
t_start=$(date +%s.%N)

cleanup() {
	trap - EXIT INT TERM
	local p
	if [ -n "$vm_pid" ]; then
		# uml-run.sh's child is `timeout`, in its own process group: a
		# SIGTERM makes it stop the guest (whose processes die with it).
		pkill -TERM -P "$vm_pid" 2>/dev/null
		kill -TERM "$vm_pid" 2>/dev/null
		wait "$vm_pid" 2>/dev/null
		rm -rf "${HOME:-/nonexistent}/.uml/irnet-vm-$vm_pid"
	fi
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
interrupted() {
	echo
	echo "demo: interrupted during step $step; stopping everything it started" >&2
	cleanup
	exit 130
}
trap cleanup EXIT
trap interrupted INT TERM

# fail WHY: names the step and the reason, shows the logs, exits 1.
fail() {
	local f
	for f in "$tmp"/*.err "$tmp"/*.out; do
		[ -s "$f" ] || continue
		if [ "$verbose" = 1 ]; then
			sed "s|^|  $(basename "$f"): |" "$f"
		else
			tail -5 "$f" | sed "s|^|  $(basename "$f"): |"
		fi
	done
	echo "demo: step $step FAILED: $*" >&2
	exit 1
}
say() { printf '  %s\n' "$@"; }
logs() { # FILE...: protocol logs, with --verbose only
	[ "$verbose" = 1 ] || return 0
	local f
	for f in "$@"; do sed "s|^|    $(basename "$f"): |" "$f"; done
}
intro() { # N TITLE SENTENCES
	step=$1
	printf '\n[%s/5] %s\n' "$1" "$2"
	printf '%s\n' "$3" | fmt -w 78
}
result() { printf 'step %s ok: %s\n' "$step" "$*"; }
# wait_for FILE PATTERN [SECONDS]: polls FILE for PATTERN (default 10 s)
wait_for() {
	local i=0 n=$((${3:-10} * 20))
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le $n ] || fail "no '$2' in $(basename "$1") after ${3:-10} s"
		sleep 0.05
	done
}
bg() { # NAME COMMAND...: runs COMMAND in the background, output in NAME.out/.err
	local name=$1
	shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pids+=($!)
}

for f in irwire irdad irdiscover; do
	[ -x "$tools/$f" ] || { step=0; fail "$tools/$f is not built (run ./bootstrap.sh first)"; }
done
echo "irnet-tools demo: PPP and serial links over an emulated infrared line, measured,"
echo "and this machine's serial ports.  Logs of each step: --verbose."

# ---- 1 -----------------------------------------------------------------------
intro 1 "An infrared link without hardware" \
"irwire joins two ptys through an emulated IrDA SIR line at 115200 bit/s in real time; an irdad (the daemon that owns a port) runs on each end. irdiscover asks daemon alpha which stations are in range: IrLAP discovery, then the peer's IAS database."
bg wire "$tools/irwire"
wait_for "$tmp/wire.out" '^b /dev/pts/'
a=$(sed -n 's/^a //p' "$tmp/wire.out")
b=$(sed -n 's/^b //p' "$tmp/wire.out")
printf '[ircomm modem]\nrole call\npeer nickname "beta"\npty %s\n' "$tmp/ircomm-a" >"$tmp/a.conf"
printf '[ircomm phone]\nrole listen\npty %s\n' "$tmp/ircomm-b" >"$tmp/b.conf"
mkdir -m 1777 "$tmp/lock"
for st in alpha:$a:a beta:$b:b; do
	IFS=: read -r name dev c <<<"$st"
	bg "irdad-$name" "$tools/irdad" -D "$dev" --socket "$tmp/$name.sock" --lock-dir "$tmp/lock" \
		--nickname "$name" -c "$tmp/$c.conf" --log stderr -v
	wait_for "$tmp/irdad-$name.err" 'serving'
done
say "irwire: side a on $a, side b on $b; irdad alpha and beta serving them"
"$tools/irdiscover" --daemon "$tmp/alpha.sock" >"$tmp/disc.txt" 2>"$tmp/disc.err" ||
	fail "irdiscover --daemon: exit $? ($(tail -1 "$tmp/disc.err"))"
sed 's/^/  /' "$tmp/disc.txt"
grep -q 'beta' "$tmp/disc.txt" || fail "discovery did not find beta"
grep -qi 'ircomm\|IrDA:IrCOMM' "$tmp/disc.txt" || fail "beta's IAS did not list IrCOMM"
logs "$tmp/irdad-alpha.err"
result "alpha discovered beta, its hints and IAS services"

# ---- 2 -----------------------------------------------------------------------
intro 2 "A serial port over IrDA" \
"Each irdad offers an IrCOMM endpoint as a pty: alpha's calls beta when a program opens it, beta's is where a phone would be. A phone emulator answers AT commands on beta's pty, then 64 KiB go each way at once and are compared byte for byte."
[ -L "$tmp/ircomm-a" ] && [ -L "$tmp/ircomm-b" ] || fail "the IrCOMM pty links are missing"
bg phone "$PYTHON" "$top/tests/phone_emu.py" "$tmp/ircomm-b" "$tmp/phone.log"
phone_pid=${pids[-1]}
"$PYTHON" "$here/at_chat.py" "$tmp/ircomm-a" AT ATI AT+CGMM AT+CGSN >"$tmp/at.txt" 2>"$tmp/at.err" ||
	fail "AT exchange: $(tail -1 "$tmp/at.txt" "$tmp/at.err" | tr '\n' ' ')"
sed 's/^/  /' "$tmp/at.txt"
grep -q 'IRP-7110' "$tmp/at.txt" || fail "the phone did not say its model"
kill "$phone_pid"
wait "$phone_pid" 2>/dev/null
sleep 1
"$PYTHON" "$top/tests/irdad_ircomm_test.py" "$tmp/ircomm-a" "$tmp/ircomm-b" 64 >"$tmp/data.txt" 2>"$tmp/data.err" ||
	fail "64 KiB through IrCOMM: $(tail -1 "$tmp/data.txt")"
grep 'KiB each way' "$tmp/data.txt" | sed 's/^ok: /  /'
logs "$tmp/irdad-alpha.err" "$tmp/irdad-beta.err"
result "AT commands answered through IrCOMM, 64 KiB each way intact"
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
pids=()
rm -f "$tmp"/*.out "$tmp"/*.err # a later failure shows its own logs only

# ---- 3 and 4: one user-mode Linux guest -----------------------------------------
# uml-run.sh needs an empty result directory; the guest's lines are shown
# as they come: "@intro N" starts a step, "@png F" names the plot, "@fail
# N WHY" ends the guest on a failure.
intro_3() {
	intro 3 "PPP over IrNET with real pppd" \
"This machine's kernel has no PPP, so user-mode Linux boots one (a few seconds). Inside, pppd 2.4.9 runs at each end of an emulated line, each in its own network namespace, with irnet.so: the plugin starts irdad --stdio, which discovers the peer and opens IrNET."
}
intro_4() {
	intro 4 "A measurement" \
"xferstat times 10 FTP downloads of 32 KiB through that PPP link (vsftpd in one namespace, libcurl in the other), once on a clean line and once with irwire --ber 1e-5, and says whether they really differ. The efficiency is the mean rate over the raw line's 11520 bytes/s."
}
rm -rf "$out"
mkdir -p "$out" || fail "cannot create $out"
intro_3
: >"$out/guest-ppp.log"
# setsid: Ctrl-C must not reach uml-run.sh before our cleanup does: its
# child `timeout` (the guest) is in a process group of its own.
setsid env abs_top_builddir="$build" "$top/tests/vm/uml-run.sh" -t 480 -r "$out" \
	-e "IRNET_BUILD=$build" -e "DEMO_VERBOSE=$verbose" "$here/guest-ppp.sh" \
	>"$tmp/uml.out" 2>"$tmp/uml.err" &
vm_pid=$!
png='' vm_failed=''
# Shows the guest's lines until the VM ends; stops at its last line.
while IFS= read -r line; do
	case $line in
	"@intro 3") ;;
	"@intro 4") intro_4 ;;
	"@png "*) png=$out/${line#@png }; say "plot of the rates: $png" ;;
	"@fail "*) vm_failed=${line#@fail } ;;
	"step "*) printf '%s\n' "$line" ;;
	*) say "$line" ;;
	esac
done < <(tail -n +1 -F --pid="$vm_pid" "$out/guest-ppp.log" 2>/dev/null)
wait "$vm_pid"
vm_rc=$?
vm_pid=
if [ -n "$vm_failed" ]; then
	step=${vm_failed%% *}
	fail "${vm_failed#* }"
fi
[ "$vm_rc" = 0 ] || { sed 's/^/  /' "$tmp/uml.out" "$tmp/uml.err"; fail "user-mode Linux: uml-run.sh exit $vm_rc"; }
[ -n "$png" ] && [ -s "$png" ] || { step=4; fail "no plot in $out"; }

# ---- 5 -----------------------------------------------------------------------
intro 5 "This machine's serial ports" \
"On a busy machine a serial port's interrupt waits behind disks and network; at 115200 bit/s a 16550 overruns in about a millisecond. irqtune lists each port's IRQ, thread and FIFO settings (read-only), and shows what 'apply' would change; nothing is changed here."
"$build/irqtune/irqtune" list >"$tmp/list.txt" 2>"$tmp/list.err" || fail "irqtune list: exit $?"
sed 's/^/  /' "$tmp/list.txt"
grep -q '^warning: .*not threaded' "$tmp/list.err" &&
	say "(IRQs are not threaded on this kernel: their priority can be raised only with threadirqs or PREEMPT_RT)"
ports=$(grep -c '^[^ ]' "$tmp/list.txt")
"$build/irqtune/irqtune" apply --dry-run >"$tmp/dry.txt" 2>"$tmp/dry.err" || fail "irqtune apply --dry-run: exit $?"
changes=$(grep -c . "$tmp/dry.txt")
if [ "$changes" -gt 0 ]; then
	say "irqtune apply --dry-run would change:"
	sed 's/^/    /' "$tmp/dry.txt"
else
	say "irqtune apply --dry-run: nothing to change with the default policy"
fi
logs "$tmp/list.err" "$tmp/dry.err"
result "$ports serial port(s) listed; apply --dry-run: $changes change(s)"

printf '\ndemo done in %s s\n' "$(awk -v s="$t_start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')"
