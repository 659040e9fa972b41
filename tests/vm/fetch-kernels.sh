#!/bin/sh
# fetch-kernels.sh - cache Debian 6.1 kernels for the QEMU tests.
#
# Usage: fetch-kernels.sh [--rt] [--all]
#        fetch-kernels.sh --print-dir generic|rt
#
# Picks the newest linux-image-6.1.0-NN-amd64 (and with --rt the newest
# linux-image-6.1.0-NN-rt-amd64) that apt knows, downloads it with
# `apt-get download` (nothing is installed on the host), and keeps only
# vmlinuz and the few modules the tests need, plus a busybox-made
# modules.dep:
#
#   $CACHE/generic/vmlinuz
#   $CACHE/generic/vmlinux    the same kernel uncompressed (boots faster)
#   $CACHE/generic/modules/lib/modules/<kernel-release>/...
#   $CACHE/generic/kver       kernel release, e.g. 6.1.0-57-amd64
#   $CACHE/generic/stamp      what was fetched (used to detect "up to date")
#   $CACHE/rt/...             the same for the PREEMPT_RT kernel
#
# CACHE is $IRNET_VM_CACHE or /var/cache/irnet-tools/vm. Running it again
# when the cache is current does nothing. Modules: $IRNET_VM_MODULES or a
# default PPP/tty set; their dependencies are added automatically.
set -eu

# shellcheck disable=SC2034 # used by vm-common.sh
VM_PROG=fetch-kernels
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$here/vm-common.sh"

# Bump when the cache layout changes so old caches are rebuilt.
CACHE_FORMAT=1

# ppp_* and friends for pppd, n_hdlc for the HDLC line discipline, veth
# and tun for namespace plumbing. crc-ccitt is built in on Debian, which
# the builtin check below handles.
DEFAULT_MODULES="ppp_generic ppp_async ppp_synctty slhc crc-ccitt ppp_deflate bsd_comp n_hdlc veth tun"
MODULES=${IRNET_VM_MODULES:-$DEFAULT_MODULES}

usage() {
	cat <<EOF
usage: $0 [--rt] [--all]        fetch the generic kernel (and the rt one)
       $0 --print-dir generic|rt print the cache directory of a flavour
cache: $VM_CACHE (set IRNET_VM_CACHE to change)
EOF
}

# Usage: flavour_regex generic|rt -> ERE for the package names of a flavour.
flavour_regex() {
	case $1 in
	generic) echo '^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
	rt) echo '^linux-image-6\.1\.0-[0-9]+-rt-amd64$' ;;
	*) vm_die 2 "unknown kernel flavour '$1' (want generic or rt)" ;;
	esac
}

# Usage: list_candidates -> prints "PACKAGE VERSION" for every 6.1 amd64
# kernel image apt could download now. apt-cache takes over a second per
# call here, so it is asked twice in all, not once per package.
list_candidates() {
	_names=$(apt-cache pkgnames linux-image-6.1.0- 2>/dev/null |
		grep -E "$(flavour_regex generic)|$(flavour_regex rt)" || true)
	[ -n "$_names" ] || return 0
	# shellcheck disable=SC2086 # one word per package name
	apt-cache policy $_names 2>/dev/null | awk '
		/^[^ ].*:$/ { pkg = substr($0, 1, length($0) - 1) }
		$1 == "Candidate:" && $2 != "(none)" { print pkg, $2 }'
}

# Usage: pick_package FLAVOUR CANDIDATES -> prints "PACKAGE VERSION" of the
# newest candidate of that flavour, or nothing. Selection is by Debian
# version, not by the ABI number in the name.
pick_package() {
	_re=$(flavour_regex "$1")
	printf '%s\n' "$2" | while read -r _p _v; do
		if printf '%s\n' "$_p" | grep -Eq "$_re"; then
			echo "$_p $_v"
		fi
	done | {
		_best='' _bestv=''
		while read -r _p _v; do
			if [ -z "$_best" ] || dpkg --compare-versions "$_v" gt "$_bestv"; then
				_best=$_p _bestv=$_v
			fi
		done
		[ -z "$_best" ] || echo "$_best $_bestv"
	}
}

# Usage: stamp_text PACKAGE VERSION -> what identifies a complete cache.
stamp_text() {
	printf 'format=%s\npackage=%s\nversion=%s\nmodules=%s\n' \
		"$CACHE_FORMAT" "$1" "$2" "$MODULES"
}

# Usage: is_complete DIR -> true when DIR holds a usable kernel.
is_complete() {
	[ -s "$1/vmlinuz" ] && [ -s "$1/kver" ] && [ -f "$1/stamp" ] &&
		[ -f "$1/modules/lib/modules/$(cat "$1/kver")/modules.dep" ]
}

# Module names treat '-' and '_' alike (crc-ccitt.ko is module crc_ccitt).
norm() {
	echo "$1" | tr - _
}

# Usage: download PACKAGE VERSION DIR -> prints the .deb path.
download() {
	# As root apt wants to drop to _apt, which cannot write to our
	# directory; saying so explicitly avoids a scary warning.
	_sandbox=
	[ "$(id -u)" -ne 0 ] || _sandbox="-o APT::Sandbox::User=root"
	# shellcheck disable=SC2086 # _sandbox is two words or none
	if ! (cd "$3" && apt-get -q $_sandbox download "$1=$2") >"$3/apt.log" 2>&1; then
		cat "$3/apt.log" >&2
		vm_die 1 "apt-get download $1=$2 failed (is the Debian archive reachable? try apt-get update)"
	fi
	set -- "$3"/"$1"_*.deb
	[ -f "$1" ] || vm_die 1 "apt-get download left no .deb in $3"
	echo "$1"
}

# Usage: extract TAR DEST MEMBER... ; extracts only the named members of
# the package's data tarball (unpacked once, see fetch_flavour), so the
# 400 MB module tree is never written out file by file.
extract() {
	_tar=$1 _dest=$2
	shift 2
	tar -x -C "$_dest" -f "$_tar" "$@" ||
		vm_die 1 "could not extract $* from $_tar"
}

# Usage: module_depends KO -> the module names KO depends on, one a line,
# read from its .modinfo strings (kmod's modinfo is not installed).
module_depends() {
	tr '\0' '\n' <"$1" | sed -n 's/^depends=//p' | head -n 1 | tr ',' '\n' | sed '/^$/d'
}

# Usage: resolve_modules TAR STAGE KVER LISTING
# Extracts the wanted modules and, transitively, what they depend on.
resolve_modules() {
	_tar=$1 _stage=$2 _kver=$3 _listing=$4
	_mroot=$_stage/modules
	_builtin=$_mroot/lib/modules/$_kver/modules.builtin
	_done=' '
	_todo=$MODULES
	while [ -n "$_todo" ]; do
		_members=
		_new=
		for _m in $_todo; do
			_n=$(norm "$_m")
			case $_done in *" $_n "*) continue ;; esac
			_done="$_done$_n "
			if sed 's,.*/,,; s,\.ko$,,' "$_builtin" | tr - _ | grep -qx "$_n"; then
				continue # built into vmlinuz
			fi
			_path=$(awk -v n="$_n" '{ b = $0; sub(/.*\//, "", b); sub(/\.ko$/, "", b);
				gsub(/-/, "_", b); if (b == n) { print; exit } }' "$_listing")
			if [ -z "$_path" ]; then
				vm_warn "module $_m is neither in the package nor built in; skipped"
				continue
			fi
			_members="$_members ./$_path"
			_new="$_new $_path"
		done
		_todo=
		[ -n "$_members" ] || break
		# shellcheck disable=SC2086 # member paths have no blanks
		extract "$_tar" "$_mroot" $_members
		for _p in $_new; do
			_todo="$_todo $(module_depends "$_mroot/$_p" | tr '\n' ' ')"
		done
	done
}

# Usage: has_pvh_note ELF -> true unless readelf is there and finds no
# PVH entry note (Xen note type 0x12), without which QEMU cannot boot it.
has_pvh_note() {
	vm_have readelf || return 0
	readelf -n "$1" 2>/dev/null | grep -q 'Xen.*0x00000012'
}

# Usage: make_vmlinux DIR -> DIR/vmlinux, the uncompressed kernel found in
# DIR/vmlinuz. QEMU boots it through PVH, skipping the decompression that
# costs about 4 s under TCG. Optional: without it QEMU boots vmlinuz.
make_vmlinux() {
	_z=$1/vmlinuz
	# The payload starts at a compressor's magic number; try each place.
	for _fmt in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08'; do
		_tool=${_fmt%%:*}
		vm_have "$_tool" || continue
		for _off in $(LC_ALL=C grep -obUaP "${_fmt#*:}" "$_z" | cut -d: -f1 | head -n 4); do
			# Trailing data after the stream makes the tool complain; the
			# ELF check below decides.
			tail -c +$((_off + 1)) "$_z" | "$_tool" -dc >"$1/vmlinux.new" 2>/dev/null || true
			if [ "$(head -c 4 "$1/vmlinux.new" | od -An -c | tr -d ' ')" = 177ELF ] &&
				has_pvh_note "$1/vmlinux.new"; then
				mv "$1/vmlinux.new" "$1/vmlinux"
				return 0
			fi
		done
	done
	rm -f "$1/vmlinux.new"
	vm_warn "no bootable vmlinux inside $_z; QEMU will boot the compressed kernel (slower)"
}

# Usage: fetch_flavour FLAVOUR CANDIDATES
fetch_flavour() {
	_fl=$1
	_dir=$VM_CACHE/$_fl
	_pick=$(pick_package "$_fl" "$2")
	if [ -z "$_pick" ]; then
		if is_complete "$_dir"; then
			vm_say "$_fl: apt knows no candidate now; keeping $(sed -n 's/^package=//p' "$_dir/stamp") in $_dir"
			return 0
		fi
		vm_die 1 "$_fl: apt knows no package matching $(flavour_regex "$_fl") (run apt-get update?)"
	fi
	_pkg=${_pick% *} _ver=${_pick#* }
	if is_complete "$_dir" && [ "$(stamp_text "$_pkg" "$_ver")" = "$(cat "$_dir/stamp")" ]; then
		# Caches made before vmlinux existed get it without a download.
		[ -s "$_dir/vmlinux" ] || make_vmlinux "$_dir"
		vm_say "$_fl: $_pkg $_ver is up to date in $_dir"
		return 0
	fi

	vm_say "$_fl: fetching $_pkg $_ver"
	_t0=$(vm_now)
	_stage=$(mktemp -d "$VM_CACHE/.$_fl.new.XXXXXX")
	chmod 755 "$_stage"
	# Remove the half-built directory if anything below fails.
	trap 'rm -rf "$_stage"' EXIT
	mkdir "$_stage/dl" "$_stage/modules"
	_deb=$(download "$_pkg" "$_ver" "$_stage/dl")

	# Decompressing the data tarball is the slow part (seconds of xz), so
	# do it once into a plain tar and pick members from that.
	_tar=$_stage/dl/data.tar
	dpkg-deb --fsys-tarfile "$_deb" >"$_tar" ||
		vm_die 1 "cannot unpack $_deb"
	rm -f "$_deb"
	# The member list gives module paths and the kernel release.
	tar -t -f "$_tar" | sed 's,^\./,,' >"$_stage/dl/listing"
	_kver=$(sed -n 's,^lib/modules/\([^/]*\)/modules.builtin$,\1,p' "$_stage/dl/listing")
	[ -n "$_kver" ] || vm_die 1 "$_pkg has no lib/modules/*/modules.builtin"
	grep '^lib/modules/.*\.ko$' "$_stage/dl/listing" >"$_stage/dl/modules" || true

	extract "$_tar" "$_stage/dl" "./boot/vmlinuz-$_kver"
	mv "$_stage/dl/boot/vmlinuz-$_kver" "$_stage/vmlinuz"
	extract "$_tar" "$_stage/modules" "./lib/modules/$_kver/modules.builtin"
	make_vmlinux "$_stage"
	resolve_modules "$_tar" "$_stage" "$_kver" "$_stage/dl/modules"
	busybox depmod -b "$_stage/modules" "$_kver" ||
		vm_die 1 "busybox depmod failed for $_kver"

	echo "$_kver" >"$_stage/kver"
	stamp_text "$_pkg" "$_ver" >"$_stage/stamp"
	rm -rf "$_stage/dl"
	# Swap in the new directory; readers holding old files keep them.
	rm -rf "$_dir.old"
	[ ! -e "$_dir" ] || mv "$_dir" "$_dir.old"
	mv "$_stage" "$_dir"
	rm -rf "$_dir.old"
	trap - EXIT
	_count=$(find "$_dir/modules" -name '*.ko' | wc -l)
	vm_say "$_fl: $_kver ready in $_dir ($_count modules, $(vm_elapsed "$_t0") s)"
}

main() {
	_flavours=generic
	while [ $# -gt 0 ]; do
		case $1 in
		--rt | --all) _flavours="generic rt" ;;
		--print-dir)
			[ $# -ge 2 ] || vm_die 2 "--print-dir needs generic or rt"
			flavour_regex "$2" >/dev/null
			echo "$VM_CACHE/$2"
			is_complete "$VM_CACHE/$2" && exit 0
			_opt=
			[ "$2" = generic ] || _opt=" --rt"
			vm_warn "the $2 kernel is not fetched yet (run $0$_opt)"
			exit 1
			;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
		shift
	done
	for _tool in apt-cache apt-get dpkg dpkg-deb tar busybox; do
		vm_have "$_tool" || vm_die 1 "$_tool is needed but not installed"
	done
	mkdir -p "$VM_CACHE" 2>/dev/null ||
		vm_die 1 "cannot create $VM_CACHE (run as root or set IRNET_VM_CACHE)"
	[ -w "$VM_CACHE" ] ||
		vm_die 1 "$VM_CACHE is not writable (run as root or set IRNET_VM_CACHE)"
	# Parallel `make check` jobs may all try to fetch; one does the work.
	exec 9>"$VM_CACHE/.lock"
	if vm_have flock; then
		flock -w 900 9 || vm_die 1 "timed out waiting for the lock on $VM_CACHE"
	fi
	_cands=$(list_candidates)
	for _fl in $_flavours; do
		fetch_flavour "$_fl" "$_cands"
	done
}

main "$@"
