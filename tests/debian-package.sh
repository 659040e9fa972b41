#!/bin/bash
# debian-package.sh: builds the Debian packages from the release tarball
# and checks them (docs/packaging.md).  Not in TESTS (it would run inside
# distcheck): bootstrap.sh's check runs it as a step.
#
#   tests/debian-package.sh BUILDDIR
#
# BUILDDIR is a configured build tree: `make dist` there makes the tarball,
# which is unpacked in a temporary directory (debian/ is in the dist) and
# built with dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS=nocheck).
# Then lintian on the .changes must print no E: or W: line, and each
# package's dpkg-deb -c must hold what it should and nothing it should
# not.  The last line is "debian-package: PASS|FAIL ...".  Exit 77 (skip)
# when dpkg-buildpackage or lintian is missing.
set -uo pipefail

builddir=${1:?usage: debian-package.sh BUILDDIR}
builddir=$(cd "$builddir" && pwd) || exit 2
for tool in dpkg-buildpackage lintian dpkg-deb dh; do
	command -v "$tool" >/dev/null || {
		echo "debian-package: SKIP ($tool not installed: apt-get install debhelper lintian dpkg-dev)"
		exit 77
	}
done

start=$SECONDS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/debian-package.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
problems=0
bad() { echo "debian-package: $*"; problems=$((problems + 1)); }

make -C "$builddir" -s dist-gzip >"$tmp/dist.log" 2>&1 || {
	tail -20 "$tmp/dist.log"
	echo "debian-package: FAIL (make dist)"
	exit 1
}
tarball=$(ls -t "$builddir"/irnet-tools-*.tar.gz 2>/dev/null | head -1)
[ -n "$tarball" ] || { echo "debian-package: FAIL (make dist made no tarball)"; exit 1; }
upstream=$(basename "$tarball" .tar.gz)
upstream=${upstream#irnet-tools-}
mkdir "$tmp/pkg"
cp "$tarball" "$tmp/pkg/irnet-tools_$upstream.orig.tar.gz"
tar -xzf "$tarball" -C "$tmp/pkg" || { echo "debian-package: FAIL (unpack)"; exit 1; }
src=$tmp/pkg/irnet-tools-$upstream
[ -f "$src/debian/control" ] || { echo "debian-package: FAIL (no debian/ in the tarball)"; exit 1; }

echo "debian-package: dpkg-buildpackage -us -uc -b in $src"
(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=${JOBS:-2}" \
	dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 || {
	tail -40 "$tmp/build.log"
	echo "debian-package: FAIL (dpkg-buildpackage, $((SECONDS - start)) s)"
	exit 1
}
changes=$(ls "$tmp"/pkg/*.changes 2>/dev/null | head -1)
[ -n "$changes" ] || { echo "debian-package: FAIL (no .changes)"; exit 1; }

# --- lintian: no error or warning ----------------------------------------
lintian --display-info --pedantic "$changes" >"$tmp/lintian.log" 2>&1
sed 's/^/  lintian: /' "$tmp/lintian.log"
if grep -qE '^[EW]: ' "$tmp/lintian.log"; then
	bad "lintian: $(grep -cE '^[EW]: ' "$tmp/lintian.log") E:/W: tags"
fi

# --- contents ---------------------------------------------------------------
# contents PKG: the paths in PKG's .deb, one per line, without the leading ".".
contents() {
	local deb
	deb=$(ls "$tmp"/pkg/"$1"_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { bad "$1: no .deb"; return 1; }
	dpkg-deb -c "$deb" | awk '{ p = $6; sub(/^\./, "", p); print p }'
}
# has PKG REGEX...: each regex matches a path of PKG.
has() {
	local pkg=$1 re
	shift
	for re in "$@"; do
		grep -qE "^$re\$" "$tmp/$pkg.list" || bad "$pkg: no path matches $re"
	done
}

ppp_version=$(awk -F'"' '/^#define[ \t]+VERSION[ \t]/ { print $2; exit }' /usr/include/pppd/patchlevel.h 2>/dev/null)
[ -n "$ppp_version" ] || ppp_version='[0-9.]+'
for pkg in irnet-tools ppp-irnet irqtune xferstat; do
	contents "$pkg" >"$tmp/$pkg.list" || continue
	grep -E '^/usr/local/|\.la$|irusb-emu|/tests?/|\.a$' "$tmp/$pkg.list" | while read -r p; do
		echo "debian-package: $pkg: does not belong in a package: $p"
	done
	grep -qE '^/usr/local/|\.la$|irusb-emu|/tests?/|\.a$' "$tmp/$pkg.list" && problems=$((problems + 1))
	grep -E '^/usr/share/man/.*[^/]$' "$tmp/$pkg.list" | grep -vE '\.gz$' | while read -r p; do
		echo "debian-package: $pkg: man page not compressed: $p"
	done
	grep -E '^/usr/share/man/.*[^/]$' "$tmp/$pkg.list" | grep -qvE '\.gz$' && problems=$((problems + 1))
	grep -E '\.service$' "$tmp/$pkg.list" | grep -vE '^/lib/systemd/system/' | while read -r p; do
		echo "debian-package: $pkg: unit outside /lib/systemd/system: $p"
	done
	grep -E '\.service$' "$tmp/$pkg.list" | grep -qvE '^/lib/systemd/system/' && problems=$((problems + 1))
	has "$pkg" "/usr/share/doc/$pkg/copyright" "/usr/share/doc/$pkg/changelog.Debian.gz"
done
has irnet-tools /usr/sbin/irdad /usr/bin/irdactl /usr/bin/irdiscover /usr/bin/irspray /usr/bin/irwire \
	/usr/bin/irsock '/usr/lib/[^/]+/irnet-tools/libirsock\.so' '/lib/systemd/system/irdad@\.service' \
	'/lib/udev/rules\.d/61-irdad\.rules' '/usr/lib/sysusers\.d/irnet-tools\.conf' \
	'/usr/lib/tmpfiles\.d/irnet-tools\.conf' '/usr/share/man/man8/irdad\.8\.gz' \
	'/usr/share/man/man5/irdad\.conf\.5\.gz'
has ppp-irnet "/usr/lib/pppd/$ppp_version/irnet\\.so" /etc/ppp/options.irnet
has irqtune /usr/sbin/irqtune /etc/irqtune.conf '/lib/systemd/system/irqtune\.service' \
	'/lib/udev/rules\.d/60-irqtune\.rules'
has xferstat /usr/bin/xferstat '/usr/share/man/man1/xferstat\.1\.gz'

# The plugin's dependency pins the pppd it was built for; irqtune's boot
# unit is enabled, irdad@ (a template) is not.
deb=$(ls "$tmp"/pkg/ppp-irnet_*.deb 2>/dev/null | head -1)
if [ -n "$deb" ]; then
	dep=$(dpkg-deb -f "$deb" Depends)
	echo "debian-package: ppp-irnet Depends: $dep"
	case $dep in *"ppp (>= "*"), ppp (<< "*) ;; *) bad "ppp-irnet: no exact pppd dependency" ;; esac
fi
for pkg in irqtune irnet-tools; do
	deb=$(ls "$tmp"/pkg/"$pkg"_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || continue
	mkdir -p "$tmp/ctl/$pkg"
	dpkg-deb -e "$deb" "$tmp/ctl/$pkg"
done
grep -q 'enable.*irqtune\.service\|irqtune\.service.*enable' "$tmp/ctl/irqtune/postinst" 2>/dev/null ||
	bad "irqtune: postinst does not enable irqtune.service"
grep -q 'irdad@' "$tmp/ctl/irnet-tools/postinst" 2>/dev/null &&
	bad "irnet-tools: postinst touches irdad@ (a template must not be enabled)"
grep -q 'systemd-sysusers' "$tmp/ctl/irnet-tools/postinst" 2>/dev/null ||
	bad "irnet-tools: postinst does not create the irnet user (systemd-sysusers)"
grep -q 'deluser\|userdel' "$tmp/ctl/irnet-tools/postrm" 2>/dev/null ||
	bad "irnet-tools: postrm does not remove the irnet user on purge"

elapsed=$((SECONDS - start))
if [ "$problems" -eq 0 ]; then
	echo "debian-package: PASS (4 packages, lintian clean, contents as expected, ${elapsed} s)"
	exit 0
fi
echo "debian-package: FAIL ($problems problems, ${elapsed} s)"
exit 1
