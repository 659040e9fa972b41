#!/bin/sh
# debian-image.sh - cache a small Debian 12 system (systemd, udev) as an
# initramfs for the QEMU boot tests.
#
# Usage: debian-image.sh            build the image unless it is current
#        debian-image.sh --print-dir  print its directory; exit 1 if absent
#
# debootstrap --variant=minbase bookworm with the packages below, from the
# mirror apt uses for bookworm (deb.debian.org here), plus the USB host,
# USB serial and their dependencies' modules of the cached generic kernel
# (tests/vm/fetch-kernels.sh), with a depmod made by the image's own kmod.
# /init is systemd: the kernel unpacks the archive into a tmpfs root and
# systemd boots it as an ordinary system (there is no /etc/initrd-release),
# so no disk, mkfs or switch_root is needed.
#
#   $CACHE/debian/rootfs.cpio   uncompressed newc archive, owned by root
#   $CACHE/debian/kver          the kernel release its modules belong to
#   $CACHE/debian/stamp         what was built (a change rebuilds it)
#
# The build needs root (debootstrap, chroot) and takes about a minute;
# it runs in a temporary directory renamed into place at the end, so an
# interrupted build never leaves half an image.  A lock keeps parallel
# callers from building twice.  Exit: 0 ready, 1 failure, 2 usage.
set -eu

# shellcheck disable=SC2034 # used by vm-common.sh
VM_PROG=debian-image
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$here/vm-common.sh"

# Bump when the layout or the recipe below changes.
IMAGE_FORMAT=1
SUITE=bookworm
# systemd-analyze is part of systemd; perl-base (in minbase) lets the
# tests read TIOCGSERIAL; libjson-c5 is what irqtune links besides
# libudev1 and libc.
PACKAGES=systemd,systemd-sysv,udev,kmod,libjson-c5
# Module directories taken from the kernel package (udev loads what the
# guest's hardware needs by modalias).
MODULE_DIRS="kernel/drivers/usb/common kernel/drivers/usb/core kernel/drivers/usb/host kernel/drivers/usb/serial"
DIR=$VM_CACHE/debian

# Usage: mirror -> the Debian mirror apt fetches bookworm/main from.
mirror() {
	_m=$(apt-cache policy 2>/dev/null |
		awk -v s="$SUITE/main" '$3 == s && $2 ~ /^https?:/ { print $2; exit }')
	echo "${_m:-http://deb.debian.org/debian}"
}

# Usage: stamp_text KERNEL-DIR MIRROR -> what identifies a current image.
stamp_text() {
	printf 'format=%s\nsuite=%s\nmirror=%s\npackages=%s\nmodules=%s\n' \
		"$IMAGE_FORMAT" "$SUITE" "$2" "$PACKAGES" "$MODULE_DIRS"
	sed -n 's/^\(package\|version\)=/kernel-&/p' "$1/stamp"
}

is_complete() {
	[ -s "$DIR/rootfs.cpio" ] && [ -s "$DIR/kver" ] && [ -f "$DIR/stamp" ]
}

# Usage: add_modules KERNEL-DIR ROOT -> the kernel package's USB modules
# in ROOT/usr/lib/modules/KVER with modules.dep.
add_modules() {
	_kver=$(cat "$1/kver")
	_pkg=$(sed -n 's/^package=//p' "$1/stamp")
	_ver=$(sed -n 's/^version=//p' "$1/stamp")
	_dl=$stage/dl
	mkdir -p "$_dl/x"
	_sandbox=
	[ "$(id -u)" -ne 0 ] || _sandbox="-o APT::Sandbox::User=root"
	# shellcheck disable=SC2086 # _sandbox is two words or none
	(cd "$_dl" && apt-get -q $_sandbox download "$_pkg=$_ver") >"$_dl/apt.log" 2>&1 || {
		cat "$_dl/apt.log" >&2
		vm_die 1 "apt-get download $_pkg=$_ver failed"
	}
	_members="./lib/modules/$_kver/modules.builtin ./lib/modules/$_kver/modules.order ./lib/modules/$_kver/modules.builtin.modinfo"
	for _d in $MODULE_DIRS; do _members="$_members ./lib/modules/$_kver/$_d"; done
	# shellcheck disable=SC2086 # member paths have no blanks
	dpkg-deb --fsys-tarfile "$_dl/${_pkg}_"*.deb | tar -x -C "$_dl/x" $_members ||
		vm_die 1 "cannot extract the modules of $_pkg"
	mkdir -p "$2/usr/lib/modules"
	mv "$_dl/x/lib/modules/$_kver" "$2/usr/lib/modules/"
	chroot "$2" depmod "$_kver" || vm_die 1 "depmod in the image failed"
	rm -rf "$_dl"
	echo "$_kver" >"$stage/kver"
}

# Usage: configure_root ROOT -> the image as the tests boot it.
configure_root() {
	# Less to unpack at every boot: documentation, locales, apt's lists.
	rm -rf "$1/usr/share/doc" "$1/usr/share/man" "$1/usr/share/info" \
		"$1/usr/share/locale" "$1/var/cache/apt/"* "$1/var/lib/apt/lists/"* \
		"$1/var/cache/debconf/"*-old "$1/var/log/"*.log
	echo irqboot >"$1/etc/hostname"
	# A fixed machine ID: an empty one means "first boot", and
	# systemd-firstboot would then prompt on the console.
	echo 4972716275696c64696d616765000001 >"$1/etc/machine-id"
	: >"$1/etc/fstab"
	rm -f "$1/etc/initrd-release"
	ln -sf /lib/systemd/systemd "$1/init"
}

# Usage: wanted_stamp -> sets _kdir, _mirror and _want (fetching the
# generic kernel first if it is missing)
wanted_stamp() {
	_kdir=$("$here/fetch-kernels.sh" --print-dir generic 2>/dev/null) ||
		{ "$here/fetch-kernels.sh" >&2 && _kdir=$("$here/fetch-kernels.sh" --print-dir generic); } ||
		vm_die 1 "no generic kernel (tests/vm/fetch-kernels.sh failed)"
	_mirror=$(mirror)
	_want=$(stamp_text "$_kdir" "$_mirror")
}

is_current() {
	is_complete && [ "$_want" = "$(cat "$DIR/stamp")" ]
}

# Called with the lock held, after wanted_stamp.
build() {
	if is_current; then
		vm_say "up to date in $DIR"
		return 0
	fi
	for _tool in debootstrap chroot apt-get dpkg-deb tar cpio; do
		vm_have "$_tool" || vm_die 1 "$_tool is needed but not installed"
	done
	[ "$(id -u)" -eq 0 ] || vm_die 1 "building the Debian image needs root (debootstrap)"
	vm_say "building Debian $SUITE ($PACKAGES) from $_mirror"
	_t0=$(vm_now)
	stage=$(mktemp -d "$VM_CACHE/.debian.new.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	chmod 755 "$stage"
	debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$stage/root" "$_mirror" \
		>"$stage/debootstrap.log" 2>&1 || {
		tail -n 30 "$stage/debootstrap.log" >&2
		vm_die 1 "debootstrap failed"
	}
	add_modules "$_kdir" "$stage/root"
	configure_root "$stage/root"
	(cd "$stage/root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) >"$stage/rootfs.cpio"
	rm -rf "$stage/root" "$stage/debootstrap.log"
	printf '%s\n' "$_want" >"$stage/stamp"
	rm -rf "$DIR.old"
	[ ! -e "$DIR" ] || mv "$DIR" "$DIR.old"
	mv "$stage" "$DIR"
	rm -rf "$DIR.old"
	trap - EXIT
	vm_say "ready in $DIR ($(du -m "$DIR/rootfs.cpio" | cut -f1) MB, $(vm_elapsed "$_t0") s)"
}

case ${1:-} in
--print-dir)
	echo "$DIR"
	is_complete || { vm_warn "the Debian image is not built yet (run $0)"; exit 1; }
	;;
'')
	wanted_stamp
	# A current image needs no lock (and no write access to the cache).
	if is_current; then
		vm_say "up to date in $DIR"
		exit 0
	fi
	mkdir -p "$VM_CACHE" 2>/dev/null && [ -w "$VM_CACHE" ] ||
		vm_die 1 "$VM_CACHE is not writable (run as root or set IRNET_VM_CACHE)"
	exec 8>"$VM_CACHE/.debian.lock"
	if vm_have flock; then
		flock -w 900 8 || vm_die 1 "timed out waiting for the lock on $VM_CACHE"
	fi
	build
	;;
-h | --help) vm_usage 0 ;;
*) vm_usage 2 ;;
esac
