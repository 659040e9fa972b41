#!/bin/sh
# Guest side of tests/irqtune-boot.sh: runs in a Debian 12 guest booted
# with systemd and udev (tests/vm/debian-image.sh), irqtune installed by
# `make install DESTDIR`, started by irqtune-boot-test.service after
# multi-user.target.  It checks, against the kernel's own values:
#   boot     irqtune.service ran before network-pre.target (systemctl's
#            timestamps and systemd-analyze critical-chain) and set
#            rx_trig_bytes and the ttyS0 IRQ thread's priority;
#   hotplug  a QEMU usb-serial (FTDI, ftdi_sio) added through the
#            monitor starts irqtune@ttyUSB0.service through the udev
#            rule; latency_timer 1 and low_latency are set; stopping
#            the unit restores them; removal stops the unit; a second
#            adapter is set again;
#   resume   after clobbering values, `systemctl suspend` (S3; the host
#            sees the VM suspended and wakes it): irqtune-resume.service
#            runs and the values are set again;
#   stat     `irqtune stat --watch` while the host sends into ttyS1:
#            ttyS1's interrupt rate is above 0 and its overrun count is
#            the kernel's.
# The host acts on "@@irqboot@@ host ..." lines of the console; the
# result is the "@@irqboot@@ result N" line and the exit port 0xf4.
export LC_ALL=C
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
I=/usr/local/sbin/irqtune
M=@@irqboot@@
STATE=/run/irqtune/state
USB=/sys/class/tty/ttyUSB0
cd "$(mktemp -d)" || exit 1
failed=0

fail() { echo "FAIL: $*"; failed=1; }
expect() { # expect WHAT GOT WANT -> false if they differ
	if [ "$2" = "$3" ]; then echo "ok: $1 = $2"; else fail "$1 is '$2', want '$3'"; return 1; fi
}
host() { echo "$M host $*"; }
# Usage: wait_for SECONDS CMD... -> polls CMD 5 times a second until it
# succeeds, at most SECONDS*5 times (a count, not the clock: S3 moves
# /proc/uptime and the wall clock forward by the guest's RTC drift)
wait_for() {
	_n=$(($1 * 5))
	shift
	until "$@" 2>/dev/null; do
		_n=$((_n - 1))
		[ $_n -gt 0 ] || return 1
		sleep 0.2
	done
}
prop() { systemctl show -P "$2" "$1"; }
unit_state() { echo "$(prop "$1" ActiveState)/$(prop "$1" Result)"; }
unit_is() { [ "$(unit_state "$1")" = "$2" ]; }
# Usage: finished_at UNIT -> the monotonic time of its last "Finished" in the journal
finished_at() {
	journalctl -b -o short-monotonic --no-pager -u "$1" |
		sed -n "s/^\[ *\([0-9.]*\)\].* Finished $1 .*/\1/p" | tail -n 1
}
# shellcheck source=SCRIPTDIR/proc-lib.sh
. "$(dirname "$0")/proc-lib.sh"
# Usage: low_latency DEV [off] -> yes or no, from TIOCGSERIAL's flags
# (ASYNC_LOW_LATENCY, bit 13), read with perl-base, not with irqtune;
# with "off", clears the flag first (TIOCSSERIAL).
low_latency() {
	perl -e 'use Fcntl; sysopen(my $f, $ARGV[0], O_RDONLY | O_NONBLOCK | O_NOCTTY) or die "$ARGV[0]: $!\n";
		my $b = "\0" x 128; ioctl($f, 0x541E, $b) or die "TIOCGSERIAL: $!\n";
		my @v = unpack("i5", $b);
		if (($ARGV[1] // "") eq "off") {
			$v[4] &= ~0x2000; substr($b, 16, 4) = pack("i", $v[4]);
			ioctl($f, 0x541F, $b) or die "TIOCSSERIAL: $!\n";
		}
		print(($v[4] & 0x2000) ? "yes\n" : "no\n")' "$@"
}
# Usage: uart_field LINE KEY -> a counter of /proc/tty/driver/serial (0 if absent)
uart_field() {
	awk -v l="$1:" -v k="$2:" '$1 == l { for (i = 2; i <= NF; i++) if (index($i, k) == 1) { print substr($i, length(k) + 1); f = 1 } }
		END { if (!f) print 0 }' /proc/tty/driver/serial
}
usb_present() { [ -e $USB/device/latency_timer ]; }
usb_absent() { [ ! -e $USB ]; }

echo "$M begin"
echo "kernel $(uname -r), $(systemctl --version | head -n 1)"

echo "== boot: irqtune.service before network-pre.target"
expect "irqtune.service" "$(unit_state irqtune.service)" active/success
start=$(prop irqtune.service ExecMainStartTimestampMonotonic)
done_=$(prop irqtune.service ExecMainExitTimestampMonotonic)
trig=$(prop systemd-udev-trigger.service ExecMainExitTimestampMonotonic)
pre=$(prop network-pre.target ActiveEnterTimestampMonotonic)
echo "monotonic us: udev-trigger done $trig, irqtune $start..$done_, network-pre.target $pre"
if [ "${pre:-0}" -gt 0 ] && [ "${done_:-0}" -gt 0 ] && [ "$done_" -le "$pre" ]; then
	echo "ok: irqtune.service finished before network-pre.target was reached"
else
	fail "irqtune.service did not finish before network-pre.target"
fi
if [ "${trig:-0}" -gt 0 ] && [ "$trig" -le "${start:-0}" ]; then
	echo "ok: irqtune.service started after systemd-udev-trigger.service"
else
	fail "irqtune.service started before udev's coldplug trigger finished"
fi
systemd-analyze critical-chain network-pre.target >chain.txt 2>&1
cat chain.txt
sed -n '/^network-pre.target/{n;p;q}' chain.txt | grep -q 'irqtune\.service' &&
	echo "ok: systemd-analyze: network-pre.target waits for irqtune.service" ||
	fail "systemd-analyze critical-chain does not put irqtune.service before network-pre.target"
journalctl -b -o cat -u irqtune.service --no-pager
echo "state file:"
cat $STATE || fail "no $STATE"
expect "ttyS0 rx_trig_bytes" "$(cat /sys/class/tty/ttyS0/rx_trig_bytes)" 1
expect "ttyS1 rx_trig_bytes" "$(cat /sys/class/tty/ttyS1/rx_trig_bytes)" 1
# The console held ttyS0 open since before irqtune.service, so its IRQ
# thread existed then: the state file says so, and it must still run at 90.
if grep -q "^sched	ttyS0	irq/4-ttyS0	" $STATE; then
	t4=$(tid irq/4-ttyS0)
	expect "irq/4-ttyS0 (PID ${t4:-none})" "$(sched "$t4")" SCHED_FIFO/90
else
	fail "irqtune did not record irq/4-ttyS0 at boot"
fi

echo "== hotplug: usb-serial (FTDI) added, removed, added again"
usb_absent || fail "$USB exists before any adapter was added"
prev_id=
for n in 1 2; do
	host usb-add u$n cu$n
	if ! wait_for 30 usb_present; then
		fail "adapter $n: no ttyUSB0 with latency_timer 30 s after device_add"
		ls /sys/bus/usb/devices /sys/bus/usb-serial/devices
		lsmod
		dmesg | tail -n 30
		break
	fi
	# QEMU's usb-serial is an FTDI FT232 (0403:6001)
	dev=$(readlink -f $USB/device/../..)
	expect "adapter $n: ttyUSB0 driver, USB ID" \
		"$(basename "$(readlink -f $USB/device/driver)") $(cat "$dev/idVendor"):$(cat "$dev/idProduct")" \
		"ftdi_sio 0403:6001"
	wait_for 30 unit_is irqtune@ttyUSB0.service active/success
	expect "adapter $n: irqtune@ttyUSB0.service" "$(unit_state irqtune@ttyUSB0.service)" active/success
	wb=$(prop irqtune@ttyUSB0.service WantedBy)
	case $wb in
	*-ttyUSB0.device*) echo "ok: adapter $n: wanted by $wb (the udev rule's SYSTEMD_WANTS)" ;;
	*) fail "adapter $n: irqtune@ttyUSB0.service is wanted by '$wb', not by the device" ;;
	esac
	id=$(prop irqtune@ttyUSB0.service InvocationID)
	[ "$id" != "$prev_id" ] || fail "adapter $n: the unit did not run again (same invocation $id)"
	prev_id=$id
	expect "adapter $n: latency_timer" "$(cat $USB/device/latency_timer)" 1
	expect "adapter $n: low_latency" "$(low_latency /dev/ttyUSB0)" yes
	cat $STATE
	grep -q "^attr	ttyUSB0	.*/latency_timer	[0-9]*$" $STATE &&
		grep -q "^low_latency	ttyUSB0	/dev/ttyUSB0	[01]$" $STATE &&
		echo "ok: adapter $n: the state file keeps latency_timer and low_latency for restore" ||
		fail "adapter $n: the state file lacks ttyUSB0's latency_timer or low_latency"
	[ $n = 1 ] || break
	# Stopping the unit restores the values recorded for the adapter.
	lt0=$(awk -F'\t' '$1 == "attr" && $2 == "ttyUSB0" && $3 ~ /latency_timer$/ { print $4 }' $STATE)
	ll0=$(awk -F'\t' '$1 == "low_latency" && $2 == "ttyUSB0" { print $4 }' $STATE)
	echo "recorded originals: latency_timer ${lt0:-none}, low_latency ${ll0:-none}"
	expect "adapter $n: recorded low_latency (off in a new adapter)" "$ll0" 0
	systemctl stop irqtune@ttyUSB0.service
	expect "adapter $n: stopped irqtune@ttyUSB0.service" "$(unit_state irqtune@ttyUSB0.service)" inactive/success ||
		journalctl -b -o cat -u irqtune@ttyUSB0.service --no-pager
	expect "adapter $n: latency_timer after stop" "$(cat $USB/device/latency_timer)" "$lt0"
	expect "adapter $n: low_latency after stop" "$(low_latency /dev/ttyUSB0)" no
	systemctl start irqtune@ttyUSB0.service
	expect "adapter $n: latency_timer after start" "$(cat $USB/device/latency_timer)" 1
	expect "adapter $n: low_latency after start" "$(low_latency /dev/ttyUSB0)" yes
	prev_id=$(prop irqtune@ttyUSB0.service InvocationID)
	host usb-del u$n
	wait_for 30 usb_absent || fail "adapter $n: ttyUSB0 still there 30 s after device_del"
	wait_for 30 unit_is irqtune@ttyUSB0.service inactive/success
	expect "adapter $n removed: irqtune@ttyUSB0.service" "$(unit_state irqtune@ttyUSB0.service)" inactive/success
	if grep -q "	ttyUSB0	" $STATE 2>/dev/null; then
		fail "adapter $n removed: the state file still lists ttyUSB0"
	else
		echo "ok: adapter $n removed: restore forgot ttyUSB0's values"
	fi
done

echo "== resume: systemctl suspend (S3), woken by the host"
# As an adapter reset by resume would: back to the defaults (with
# low_latency set, ftdi_sio reads latency_timer as 1 whatever it holds).
low_latency /dev/ttyUSB0 off >/dev/null
echo 16 >$USB/device/latency_timer
echo 4 >/sys/class/tty/ttyS1/rx_trig_bytes
echo "before suspend: latency_timer $(cat $USB/device/latency_timer), low_latency $(low_latency /dev/ttyUSB0), ttyS1 rx_trig_bytes $(cat /sys/class/tty/ttyS1/rx_trig_bytes)"
ok0=$(cat /sys/power/suspend_stats/success)
up0=$(cut -d' ' -f1 /proc/uptime)
host wakeup
# --no-block: without logind (no D-Bus here) systemctl starts
# suspend.target itself and would wait for the job.
systemctl --no-block suspend
# Oneshot units that finished are unloaded soon after (systemd's garbage
# collection), and then show default properties: judge by the kernel's
# counter, the job queue and the journal instead.
woke() { [ "$(cat /sys/power/suspend_stats/success)" -gt "$ok0" ]; }
idle() { [ -z "$(systemctl list-jobs --no-legend)" ]; }
wait_for 60 woke || fail "the kernel did not come back from suspend"
wait_for 30 idle || { fail "systemd jobs still pending after resume"; systemctl list-jobs --no-pager; }
echo "uptime $up0 s before suspend, $(cut -d' ' -f1 /proc/uptime) s after"
expect "suspend_stats/success" "$(cat /sys/power/suspend_stats/success)" $((ok0 + 1))
journalctl -b -o cat -u systemd-suspend.service -u irqtune-resume.service --no-pager
t_sus=$(finished_at systemd-suspend.service)
t_res=$(finished_at irqtune-resume.service)
echo "finished at (monotonic s): systemd-suspend.service ${t_sus:-never}, irqtune-resume.service ${t_res:-never}"
if [ -n "$t_sus" ] && [ -n "$t_res" ] && awk 'BEGIN { exit !(ARGV[1] >= ARGV[2]) }' "$t_res" "$t_sus"; then
	echo "ok: irqtune-resume.service ran after systemd-suspend.service"
else
	fail "irqtune-resume.service did not run after resume"
fi
# The adapter comes back reset from S3 (QEMU's xHCI loses its state);
# if udev also re-added it, irqtune@ttyUSB0 ran again: wait for that.
wait_for 30 usb_present || fail "ttyUSB0 not back 30 s after resume"
wait_for 10 unit_is irqtune@ttyUSB0.service active/success
expect "after resume: ttyS1 rx_trig_bytes" "$(cat /sys/class/tty/ttyS1/rx_trig_bytes)" 1
expect "after resume: latency_timer" "$(cat $USB/device/latency_timer 2>&1)" 1
expect "after resume: low_latency" "$(low_latency /dev/ttyUSB0 2>&1)" yes
if [ "$(prop irqtune@ttyUSB0.service InvocationID)" = "$prev_id" ]; then
	echo "note: irqtune@ttyUSB0.service did not run again: irqtune-resume.service set the adapter"
else
	echo "note: udev re-added the adapter on resume: irqtune@ttyUSB0.service ran again"
fi

echo "== stat --watch while the host sends into ttyS1"
exec 4<>/dev/ttyS1
stty raw -echo 115200 <&4
cat <&4 >rx.bin &
cat_pid=$!
rx0=$(uart_field 1 rx)
host send-start
$I stat --watch --interval 1 --count 4 ttyS0 ttyS1 >stat.txt 2>&1
rc=$?
host send-stop
sleep 0.5
kill $cat_pid
exec 4>&-
cat stat.txt
expect "stat status" $rc 0
head -n 1 stat.txt | grep -q 'PER_SEC.*OVERRUN' || fail "stat has no PER_SEC and OVERRUN columns"
rx1=$(uart_field 1 rx)
oe=$(uart_field 1 oe)
echo "kernel ttyS1: rx $rx0 -> $rx1, oe $oe; bytes read from ttyS1 $(wc -c <rx.bin)"
[ "$rx1" -gt "$rx0" ] || fail "ttyS1 received nothing"
awk '$1 == "ttyS1" { n++; if ($2 != 3) bad = bad " IRQ " $2; if ($4 + 0 > max) max = $4 + 0; oe = $5 }
	END { printf "%d %s %s %s\n", n, max, oe, bad }' stat.txt >s1.txt
read -r rows max soe bad <s1.txt
expect "ttyS1 rows" "$rows" 4
[ -z "$bad" ] || fail "ttyS1 rows name$bad, not IRQ 3"
awk -v m="$max" 'BEGIN { exit !(m > 0) }' && echo "ok: ttyS1 interrupt rate up to $max/s" ||
	fail "ttyS1 interrupt rate never above 0"
# QEMU's 16550 takes a byte from its chardev only when its FIFO has
# room, so it never overruns: the column must be the kernel's count.
expect "ttyS1 OVERRUN column (the kernel's oe)" "$soe" "$oe"
last=$(awk '$1 == "ttyS1" { n = $3 } END { print n }' stat.txt)
irq3=$(awk '$1 == "3:" { print $2 }' /proc/interrupts)
[ "$last" -gt 0 ] && [ "$last" -le "$irq3" ] &&
	echo "ok: ttyS1 INTERRUPTS $last, /proc/interrupts later $irq3" ||
	fail "ttyS1 INTERRUPTS '$last' is not within 1..$irq3 (/proc/interrupts, read later)"

if [ $failed != 0 ]; then
	echo "---- journal"
	journalctl -b -o short-monotonic --no-pager | tail -n 80
fi
echo "$M result $failed"
echo "$M end"
# Let the console drain before QEMU exits.
sleep 1
printf "\\$(printf %03o $failed)" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
