#!/bin/sh
# irqtune on a real Debian 12 boot: systemd and udev in a QEMU TCG guest
# (the cached Debian image of tests/vm/debian-image.sh booted as an
# initramfs, /init = systemd), with irqtune installed by
# `make install DESTDIR` from this build tree and irqtune.service enabled.
# The guest half, tests/vm/guest/irqtune-boot.sh, checks the boot order
# and values, hotplug of a QEMU usb-serial (FTDI) adapter, resume after
# `systemctl suspend`, and `irqtune stat --watch` during a transfer
# through ttyS1.  This script drives QEMU's monitor (device_add,
# device_del, system_wakeup; QMP) and ttyS1 when the guest asks on the
# console.  65-95 s with a warm cache; building the image once takes
# about 40 s more.
# Exit: 0 pass, 1 fail, 77 skip (IRNET_VM_REQUIRE=1 turns skips into
# failures, as for the other VM tests).
set -u
: "${top_srcdir:=.}"
: "${abs_top_srcdir:=$(cd "$top_srcdir" && pwd)}"
: "${abs_top_builddir:=$(pwd)}"
vmdir=$abs_top_srcdir/tests/vm
# shellcheck disable=SC2034 # used by vm-common.sh
VM_PROG=irqtune-boot
. "$vmdir/vm-common.sh"
M=@@irqboot@@
TIMEOUT=$(ceiling "${IRQBOOT_TIMEOUT:-480}")

for tool in qemu-system-x86_64 cpio socat timeout make; do
	vm_have "$tool" || vm_skip "$tool is not installed"
done
[ -x "$abs_top_builddir/irqtune/irqtune" ] || vm_die 1 "irqtune is not built in $abs_top_builddir"
kdir=$("$vmdir/fetch-kernels.sh" --print-dir generic 2>/dev/null) ||
	{ "$vmdir/fetch-kernels.sh" >/dev/null && kdir=$("$vmdir/fetch-kernels.sh" --print-dir generic); } ||
	vm_skip "no cached generic kernel and fetch-kernels.sh failed"
# Builds the image on first use, and again when its recipe or the kernel
# changed; otherwise it only compares the stamp.
"$vmdir/debian-image.sh" ||
	vm_skip "no Debian image: tests/vm/debian-image.sh failed (it needs root, debootstrap and the Debian mirror)"
idir=$("$vmdir/debian-image.sh" --print-dir)
[ "$(cat "$idir/kver")" = "$(cat "$kdir/kver")" ] ||
	vm_die 1 "the Debian image has modules for $(cat "$idir/kver"), the kernel is $(cat "$kdir/kver")"

t0=$(vm_now)
work=$(mktemp -d "${TMPDIR:-/tmp}/irqtune-boot.XXXXXX")
root=$work/root
# The install, as a user would do it; MAKEFLAGS of an enclosing
# `make check` would point this make at a jobserver it does not have.
if ! (unset MAKEFLAGS MFLAGS MAKELEVEL; make -s -C "$abs_top_builddir" install DESTDIR="$root") \
	>"$work/install.log" 2>&1; then
	cat "$work/install.log"
	vm_die 1 "make install DESTDIR=$root failed"
fi
units=$root/usr/local/lib/systemd/system
[ -f "$units/irqtune.service" ] || vm_die 1 "make install put no irqtune.service in /usr/local/lib/systemd/system"

# Usage: enable_unit UNIT DIR -> what `systemctl enable` does: a link in
# /etc/systemd/system/TARGET.wants for each WantedBy= of [Install], and
# the same for each unit named by Also=.
enable_unit() {
	for _t in $(sed -n 's/^WantedBy=//p' "$2/$1"); do
		mkdir -p "$root/etc/systemd/system/$_t.wants"
		ln -sf "${2#"$root"}/$1" "$root/etc/systemd/system/$_t.wants/$1"
	done
	for _u in $(sed -n 's/^Also=//p' "$2/$1"); do
		enable_unit "$_u" "$2"
	done
}
enable_unit irqtune.service "$units"
mkdir -p "$root/usr/local/libexec" "$root/etc/systemd/system" "$root/etc/systemd/sleep.conf.d"
cp "$vmdir/guest/irqtune-boot.sh" "$root/usr/local/libexec/irqtune-boot-test"
cp "$vmdir/guest/proc-lib.sh" "$root/usr/local/libexec/proc-lib.sh"
cat >"$root/etc/systemd/system/irqtune-boot-test.service" <<'EOF'
# After boot (a simple service, so that boot finishes and
# systemd-analyze answers), with its output on the console.
[Unit]
After=multi-user.target
[Service]
Type=simple
ExecStart=/bin/sh /usr/local/libexec/irqtune-boot-test
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/console
[Install]
WantedBy=multi-user.target
EOF
enable_unit irqtune-boot-test.service "$root/etc/systemd/system"
# No logins on the consoles: a getty on ttyS0 would read the console.
for u in serial-getty@ttyS0.service getty@tty1.service; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done
# The test policy.
cat >"$root/etc/irqtune.conf" <<'EOF'
prio 90
latency_timer 1
match name=ttyS*
	rx_trigger 1
match name=ttyUSB*
	low_latency yes
EOF
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$work/run.cpio"
cat "$idir/rootfs.cpio" "$work/run.cpio" >"$work/initrd.img"
rm -f "$work/run.cpio"

# The compressed kernel, not vmlinux through PVH as qemu-run.sh does:
# booted through PVH, the guest suspends but QEMU ends (status 0) on
# system_wakeup instead of resuming it; vmlinuz costs about 4 s more.
kernel=$kdir/vmlinuz
mon=$work/qmp.sock
s1=$work/ttyS1.sock
: >"$work/console.txt"
# Never KVM (it hangs stock kernels here): -accel tcg.  A usb-serial is
# attached to its port only once its chardev is open, which a null
# chardev never is: the adapters write into files.
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -accel tcg -M pc -m 1024 -smp 1 \
	-display none -nodefaults -no-user-config -no-reboot \
	-chardev "file,id=con0,path=$work/console.txt" -serial chardev:con0 \
	-chardev "socket,id=s1,path=$s1,server=on,wait=off" -serial chardev:s1 \
	-chardev "socket,id=qmp,path=$mon,server=on,wait=off" -mon chardev=qmp,mode=control \
	-device qemu-xhci,id=xhci \
	-chardev "file,id=cu1,path=$work/usb1.out" -chardev "file,id=cu2,path=$work/usb2.out" \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-kernel "$kernel" -initrd "$work/initrd.img" \
	-append "console=ttyS0 panic=-1 quiet threadirqs${IRQBOOT_APPEND:+ $IRQBOOT_APPEND}" \
	</dev/null >"$work/qemu.log" 2>&1 &
qpid=$!

# Usage: qmp COMMAND [ARGUMENTS-JSON] -> QEMU's answer (QMP over the unix
# socket); false if QEMU answered with an error.
qmp() {
	_a=
	[ -z "${2:-}" ] || _a=",\"arguments\":$2"
	printf '{"execute":"qmp_capabilities"}\n{"execute":"%s"%s}\n' "$1" "$_a" |
		socat -t 1 - "UNIX-CONNECT:$mon" 2>&1 | tail -n +3 >"$work/qmp.out"
	printf '> %s %s\n' "$1" "${2:-}" >>"$work/qmp.log"
	cat "$work/qmp.out" >>"$work/qmp.log"
	! grep -q '"error"' "$work/qmp.out"
}
sender=
# Usage: act REQUEST... -> what the guest asked for
act() {
	vm_say "guest asks: $*"
	case $1 in
	usb-add)
		qmp device_add "{\"driver\":\"usb-serial\",\"id\":\"$2\",\"chardev\":\"$3\",\"bus\":\"xhci.0\"}" ||
			vm_say "device_add failed: $(cat "$work/qmp.out")"
		;;
	usb-del) qmp device_del "{\"id\":\"$2\"}" || vm_say "device_del failed: $(cat "$work/qmp.out")" ;;
	wakeup)
		# Wake the guest only once QEMU says it is suspended (S3): that
		# it is, is part of what the test checks.
		_i=0
		until qmp query-status && grep -q '"status": "suspended"' "$work/qmp.out"; do
			_i=$((_i + 1))
			if [ $_i -gt 150 ]; then
				vm_say "the guest never suspended (30 s)"
				return
			fi
			sleep 0.2
		done
		vm_say "QEMU: the guest is suspended; system_wakeup"
		sleep 1
		qmp system_wakeup || vm_say "system_wakeup failed: $(cat "$work/qmp.out")"
		;;
	send-start)
		# About 5 kB/s, below 115200 baud: with rx_trigger 1 each byte
		# can be an interrupt, and the guest has one emulated CPU.
		# The loop ends when socat is gone (tr's write fails), or
		# it would outlive the test, forking forever.
		while sleep 0.1; do head -c 500 /dev/zero | tr '\0' U || exit 0; done |
			socat -u - "UNIX-CONNECT:$s1" 2>>"$work/sender.log" &
		sender=$!
		;;
	send-stop) [ -z "$sender" ] || kill "$sender" 2>/dev/null ;;
	*) vm_say "unknown request '$*'" ;;
	esac
}

handled=0
while kill -0 "$qpid" 2>/dev/null; do
	n=0
	while read -r _m _h req; do
		[ -n "$req" ] || continue
		n=$((n + 1))
		[ $n -gt $handled ] || continue
		handled=$n
		# shellcheck disable=SC2086 # the request is words
		act $req
	done <<EOF
$(tr -d '\r' <"$work/console.txt" | grep "^$M host ")
EOF
	sleep 0.2
done
wait "$qpid"
qrc=$?
[ -z "$sender" ] || kill "$sender" 2>/dev/null

tr -d '\r' <"$work/console.txt" | sed -n "/^$M begin/,/^$M end/p" >"$work/guest.log"
cat "$work/guest.log"
result=$(sed -n "s/^$M result //p" "$work/guest.log")
took=$(vm_elapsed "$t0")
if [ "$qrc" = 1 ] && [ "$result" = 0 ] && ! grep -q '^FAIL' "$work/guest.log"; then
	rm -rf "$work"
	vm_say "PASS ($took s wall clock)"
	exit 0
fi
case $qrc in
1 | 3) ;;
124 | 137) vm_say "the guest timed out after $TIMEOUT s" ;;
*) vm_say "QEMU status $qrc: the guest did not report" ;;
esac
rm -f "$work/initrd.img"
vm_show_log "$work/qemu.log" "QEMU output" 20
vm_show_log "$work/console.txt" "guest console (last 60 lines)" 60
vm_say "FAIL ($took s); results kept in $work"
exit 1
