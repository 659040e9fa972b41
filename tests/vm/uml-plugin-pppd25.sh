#!/bin/sh
# uml-plugin-pppd25.sh - host side: the plugin test (guest/plugin-irnet.sh)
# with pppd 2.5.2, which current distributions ship, instead of Debian 12's
# 2.4.9.  Builds pppd 2.5.2 from ../shared/third_party (once per build
# tree, staged under it with DESTDIR: nothing is installed on the system),
# configures this tree a second time against its pppd.pc so that configure
# picks the 2.5 API, builds irnet.so there, and boots the guest test's
# IrNET part with both (a 256 KiB TCP transfer instead of 1 MiB, to keep
# check short).
# Exit: 0 pass, 1 fail, 77 skip (automake test-driver).
set -eu

VM_PROG=uml-plugin-pppd25
vmdir=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$vmdir/vm-common.sh"

srcdir=$(cd "$vmdir/../.." && pwd -P)
tarball=${IRNET_PPP25_TARBALL:-$srcdir/../shared/third_party/ppp-2.5.2.tar.gz}
[ -f "$tarball" ] || vm_smoke_skip "no $tarball: pppd 2.5.2's source sits in ../shared/third_party next to the project (see README.md)"
for _tool in autoreconf make pkg-config; do
	vm_have "$_tool" || vm_smoke_skip "$_tool is not installed"
done
: "${abs_top_builddir:?}"
stage=$abs_top_builddir/ppp-2.5.2-stage
pppd25=$stage/usr/sbin/pppd
log=$abs_top_builddir/ppp-2.5.2-build.log

# pppd 2.5.2, staged: its paths are the system's (/etc/ppp, /var/lock),
# as a distribution builds it; the test runs the staged binary.
if [ ! -x "$pppd25" ]; then
	vm_say "building pppd 2.5.2 (log: $log)"
	rm -rf "$abs_top_builddir/ppp-2.5.2"
	if ! { tar xzf "$tarball" -C "$abs_top_builddir" &&
		cd "$abs_top_builddir/ppp-2.5.2" && autoreconf -fi &&
		./configure --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
			--without-openssl --disable-eaptls --disable-peap \
			--disable-microsoft-extensions &&
		make -j2 && make install DESTDIR="$stage"; } >"$log" 2>&1; then
		tail -20 "$log"
		vm_die "building pppd 2.5.2 failed (log: $log)"
	fi
	cd "$abs_top_builddir"
fi
"$pppd25" --version 2>&1 | grep -q '2\.5\.2' || vm_die "$pppd25 is not pppd 2.5.2"

# irnet.so for 2.5.2: this tree configured against the staged pppd.pc.
b25=$abs_top_builddir/build-pppd25
mkdir -p "$b25"
if [ ! -f "$b25/Makefile" ]; then
	(cd "$b25" && PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage \
		"$srcdir/configure" --enable-werror CC="${CC:-gcc}" >configure.log 2>&1) ||
		vm_die "configure against pppd 2.5.2 failed (log: $b25/configure.log)"
fi
grep -q '^PPPD_API = 25$' "$b25/Makefile" || vm_die "configure did not select the pppd 2.5 API"
make -C "$b25" pppd-plugin/irnet.la >"$b25/make.log" 2>&1 ||
	{ tail -20 "$b25/make.log"; vm_die "irnet.so does not build against pppd 2.5.2"; }

vm_uml_build_test "$vmdir/guest/plugin-irnet.sh" 600 "PPPD=$pppd25" \
	"PLUGIN=$b25/pppd-plugin/.libs/irnet.so" BLOB_KIB=256 PLUGIN_PARTS=irnet
