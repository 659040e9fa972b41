#!/bin/sh
# qemu-run.sh - run guest test scripts in a QEMU (TCG) VM booted from a
# cached Debian 6.1 kernel and a busybox initramfs.
#
# Usage: qemu-run.sh [--kernel generic|rt] [--append ARGS]
#                    [--file HOSTPATH[=GUESTPATH]]... [--qemu-arg ARG]...
#                    [-e NAME=VALUE]... [-m MEM] [-t SECONDS] [-r RESDIR]
#                    [-v] TEST.sh...
#
#   --kernel F       kernel from fetch-kernels.sh: generic (default) or rt
#   --append ARGS    more kernel command line after the default
#                    "console=ttyS0 panic=-1 quiet threadirqs"
#   --file H[=G]     copy host file or directory H into the guest at G
#                    (default: the same absolute path); ELF executables
#                    and libraries get their shared libraries too (ldd)
#   --qemu-arg ARG   one more QEMU argument word (repeat for each word),
#                    e.g. to wire the second UART, ttyS1, to the host:
#                      --qemu-arg -chardev --qemu-arg pty,id=s1
#                      --qemu-arg -serial --qemu-arg chardev:s1
#                    (without any -serial/isa-serial word ttyS1 is "null")
#   -e NAME=VALUE    environment for the tests
#   -m MEM           guest memory (default 512M)
#   -t SECONDS       wall-clock limit for the whole VM on an idle machine
#                    (default 60), multiplied by IRNET_TEST_SLOWDOWN
#                    (tests/ceiling.sh), which the guest's tests get too
#   -r RESDIR        where results go (default: a new ${TMPDIR:-/tmp}/irnet-vm.*
#                    directory, removed again unless a test failed)
#   -v               print the guest console at the end
#
# Always TCG, never KVM (KVM hangs stock kernels on our machines). Tests
# are copied to their own absolute paths in the guest and run with /bin/sh
# (dash) in a fresh directory that is their cwd, TMPDIR and HOME, with
# VM_KIND=qemu and VM_TEST_NAME set. RESDIR gets NAME.log, NAME.rc,
# ALL.rc, dmesg.txt, console.txt (ttyS0) and qemu.log (QEMU's own output,
# e.g. "char device redirected to /dev/pts/N (label s1)").
#
# Exit status (automake test-driver codes): 0 every test passed, 1 a test
# failed, 77 every test skipped or QEMU/the kernel is missing, 99 the
# guest crashed or timed out before reporting, or bad usage.
set -eu

VM_PROG=qemu-run
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=SCRIPTDIR/vm-common.sh
. "$here/vm-common.sh"

QEMU=${IRNET_QEMU:-qemu-system-x86_64}
# Host programs every guest gets besides busybox; missing ones are left
# out (setserial is often not installed). dash becomes /bin/sh because
# busybox's own ip lacks netns and its sh differs from the host's.
BASE_TOOLS="dash chrt taskset stty setserial ip pppd socat"
# Bump when build_base changes, so cached base archives are rebuilt.
BASE_FORMAT=1
DEFAULT_APPEND="console=ttyS0 panic=-1 quiet threadirqs"
# Marker prefix of the guest's console report (see qemu-init.sh).
MARK='@@irnet-vm@@'
NL='
'

# Usage: is_elf FILE -> true for an ELF file.
is_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}

# Usage: elf_libs FILE -> absolute paths of the shared libraries FILE
# needs, the dynamic loader included; nothing for static or non-ELF files.
elf_libs() {
	is_elf "$1" || return 0
	ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }'
}

# Usage: skeleton STAGE -> merged-/usr layout as on the host, so that the
# host paths of programs and libraries (/bin/x, /lib/...) work unchanged.
# Both archives need it: a real "lib" directory in the per-run archive
# would replace the base's lib -> usr/lib link when the kernel unpacks.
skeleton() {
	mkdir -p "$1/usr/bin" "$1/usr/sbin" "$1/usr/lib" "$1/usr/lib64"
	for _d in bin sbin lib lib64; do
		ln -s "usr/$_d" "$1/$_d"
	done
	chmod 755 "$1"
}

# Usage: stage_dir STAGE GUESTDIR -> creates GUESTDIR inside STAGE and
# prints its host path. Refuses to leave STAGE: busybox applet links are
# absolute (/usr/bin/busybox) and, followed on the host, a copy through
# one would overwrite a host file.
stage_dir() {
	mkdir -p "$1$2"
	_real=$(readlink -f "$1$2")
	case $_real/ in
	"$(readlink -f "$1")"/*) echo "$_real" ;;
	*) vm_die "$VM_ERROR" "guest path $2 leads out of the staging directory" ;;
	esac
}

# Usage: install_file SRC GUESTPATH STAGE -> copies a file (dereferenced)
# or a directory into STAGE, with the libraries of every ELF file in it.
# --remove-destination: never write through an existing (absolute) link.
install_file() {
	if [ -d "$1" ]; then
		_to=$(stage_dir "$3" "$2")
		cp -a --remove-destination "$1/." "$_to/"
		find "$1" -type f | while read -r _f; do
			install_libs "$_f" "$3"
		done
	else
		_to=$(stage_dir "$3" "$(dirname "$2")")
		cp -L --remove-destination "$1" "$_to/${2##*/}"
		install_libs "$1" "$3"
	fi
}

# Usage: install_libs FILE STAGE -> FILE's shared libraries into STAGE.
install_libs() {
	for _lib in $(elf_libs "$1"); do
		[ -e "$2$_lib" ] && continue
		_to=$(stage_dir "$2" "$(dirname "$_lib")")
		cp -L --remove-destination "$_lib" "$_to/${_lib##*/}"
	done
}

# Usage: make_cpio STAGE OUT -> an uncompressed newc archive owned by root
# (no gzip: the kernel unpacks it faster and the base archive is cached).
make_cpio() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) >"$2"
}

# Usage: base_tools -> "NAME PATH" of each base tool present on the host.
base_tools() {
	for _t in $BASE_TOOLS; do
		_p=$(command -v "$_t" 2>/dev/null) || continue
		case $_p in /*) echo "$_t $_p" ;; esac
	done
}

# Usage: base_key KDIR -> a digest of everything the base archive is made
# of, so it is rebuilt exactly when one of its inputs changes.
base_key() {
	{
		echo "format=$BASE_FORMAT tools=$BASE_TOOLS"
		cat "$1/stamp"
		_files=$(base_tools | while read -r _n _p; do
			echo "$_p"
			elf_libs "$_p"
		done)
		# shellcheck disable=SC2086 # one word per path
		stat -L -c '%n %s %Y' "$(command -v busybox)" $_files
		# By content: checkouts elsewhere share the cache without churn.
		md5sum <"$here/qemu-run.sh"
		find "$1/modules" -type f -exec stat -c '%n %s %Y' {} +
	} | md5sum | cut -d' ' -f1
}

# Usage: busybox_links STAGE -> a symlink to /usr/bin/busybox for each
# applet, where the host layout puts it (bin, sbin -> usr/...).
busybox_links() {
	cp -L "$(command -v busybox)" "$1/usr/bin/busybox"
	busybox --list-full | while read -r _p; do
		case $_p in
		bin/* | usr/bin/*) _to=$1/usr/bin/${_p##*/} ;;
		sbin/* | usr/sbin/*) _to=$1/usr/sbin/${_p##*/} ;;
		*) continue ;;
		esac
		[ -e "$_to" ] || ln -s /usr/bin/busybox "$_to"
	done
}

# Usage: build_base KDIR OUT -> the base archive: busybox, host tools and
# their libraries, the kernel's modules, a minimal /etc.
build_base() {
	_stage=$(mktemp -d "$RUNDIR/base.XXXXXX")
	skeleton "$_stage"
	busybox_links "$_stage"
	base_tools | while read -r _n _p; do
		_real=$(readlink -f "$_p")
		install_file "$_real" "$_real" "$_stage"
		# Host programs win over busybox applets of the same name.
		for _d in usr/bin usr/sbin; do
			if [ -L "$_stage/$_d/$_n" ]; then
				rm -f "$_stage/$_d/$_n"
				ln -s "$_real" "$_stage/$_d/$_n"
			fi
		done
	done
	[ -x "$_stage/usr/bin/dash" ] || vm_die "$VM_ERROR" "dash is needed for the guest /bin/sh"
	rm -f "$_stage/usr/bin/sh"
	ln -s dash "$_stage/usr/bin/sh"

	mkdir -p "$_stage/usr/lib/modules"
	cp -a "$1/modules/lib/modules/$(cat "$1/kver")" "$_stage/usr/lib/modules/"

	mkdir -p "$_stage/dev" "$_stage/proc" "$_stage/sys" "$_stage/run" \
		"$_stage/root" "$_stage/etc" "$_stage/var/log" "$_stage/tmp" "$_stage/var/tmp"
	chmod 1777 "$_stage/tmp" "$_stage/var/tmp"
	ln -s ../run "$_stage/var/run"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$_stage/etc/passwd"
	echo 'root:x:0:' >"$_stage/etc/group"
	printf '127.0.0.1\tlocalhost\n' >"$_stage/etc/hosts"
	for _f in /etc/services /etc/protocols; do
		[ ! -f "$_f" ] || cp "$_f" "$_stage/etc/"
	done
	make_cpio "$_stage" "$2"
	rm -rf "$_stage"
}

# Usage: base_cpio KDIR -> prints the path of an up-to-date base archive:
# cached next to the kernel when that directory is writable, else built
# for this run only.
base_cpio() {
	_key=$(base_key "$1")
	if ! [ -w "$1" ]; then
		build_base "$1" "$RUNDIR/base.cpio"
		echo "$RUNDIR/base.cpio"
		return 0
	fi
	(
		# Parallel runs: one builds, the others wait and reuse it.
		exec 8>"$1/.base.lock"
		! vm_have flock || flock -w 300 8
		if [ -f "$1/base.cpio" ] && [ "$(cat "$1/base.key" 2>/dev/null)" = "$_key" ]; then
			exit 0
		fi
		vm_say "building the base initramfs for $(cat "$1/kver")" >&2
		build_base "$1" "$1/base.cpio.new"
		mv "$1/base.cpio.new" "$1/base.cpio"
		echo "$_key" >"$1/base.key"
	)
	echo "$1/base.cpio"
}

# Usage: shell_quote STRING -> STRING in single quotes, for the env file.
shell_quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# Usage: build_run_cpio OUT -> init, the tests, the --file items and the
# settings for this run.
build_run_cpio() {
	_stage=$RUNDIR/run
	mkdir "$_stage"
	skeleton "$_stage"
	cp "$here/qemu-init.sh" "$_stage/init"
	chmod 755 "$_stage/init"
	mkdir -p "$_stage/usr/lib/irnet-vm" "$_stage/etc/irnet-vm"
	cp "$here/guest-lib.sh" "$_stage/usr/lib/irnet-vm/"
	for _t in $TESTS; do
		install_file "$_t" "$_t" "$_stage"
	done
	_old_ifs=$IFS
	IFS=$NL
	for _f in $FILES; do
		IFS=$_old_ifs
		_h=${_f%%=*}
		_g=${_f#*=}
		[ "$_f" != "$_h" ] || _g=$(vm_abspath "$_h")
		case $_g in /*) ;; *) vm_die "$VM_ERROR" "--file guest path must be absolute: $_g" ;; esac
		[ -e "$_h" ] || vm_die "$VM_ERROR" "--file: no such file: $_h"
		install_file "$_h" "$_g" "$_stage"
	done
	IFS=$_old_ifs
	{
		echo "IRNET_VM_TESTS=$(shell_quote "$TESTS")"
		echo "IRNET_VM_DEADLINE=$DEADLINE"
		echo "export IRNET_TEST_SLOWDOWN=$(shell_quote "${IRNET_TEST_SLOWDOWN:-1}")"
		for _e in $ENVS; do
			echo "export ${_e%%=*}=$(shell_quote "${_e#*=}")"
		done
	} >"$_stage/etc/irnet-vm/env"
	make_cpio "$_stage" "$1"
}

# Usage: split_console CONSOLE RESDIR -> NAME.log, NAME.rc, ALL.rc and
# dmesg.txt from the guest's marker lines.
split_console() {
	[ -f "$1" ] || return 0
	tr -d '\r' <"$1" | awk -v mark="$MARK" -v res="$2" '
		$1 == mark && $2 == "begin" {
			file = res "/" ($3 == "dmesg" ? "dmesg.txt" : $3 ".log")
			printf "" > file; inlog = 1; next }
		$1 == mark && $2 == "end" { close(file); inlog = 0; next }
		$1 == mark && $2 == "rc" { f = res "/" $3 ".rc"; print $4 > f; close(f); next }
		$1 == mark && $2 == "all" { f = res "/ALL.rc"; print $3 > f; close(f); next }
		inlog { print > file }'
}

# Usage: explain_no_report QEMU-STATUS -> says why no report came back.
explain_no_report() {
	if [ ! -s "$RESDIR/console.txt" ] && [ "$1" != 124 ] && [ "$1" != 137 ]; then
		vm_warn "QEMU failed before the guest said anything (status $1)"
		vm_show_log "$RESDIR/qemu.log" "QEMU output" 20 >&2
		return 0
	fi
	case $1 in
	124 | 137) vm_warn "guest timed out after $TIMEOUT s (no report)" ;;
	0) vm_warn "guest stopped without reporting (kernel panic or poweroff; QEMU status 0)" ;;
	1 | 3 | 155) vm_warn "guest reported status $((($1 - 1) / 2)) but the console lost its results" ;;
	*) vm_warn "QEMU failed (status $1)" ;;
	esac
	vm_show_log "$RESDIR/qemu.log" "QEMU output" 20 >&2
	vm_show_log "$RESDIR/console.txt" "guest console (last 40 lines)" 40 >&2
}

# Usage: qemu_args -> sets "$@"-style QARGV (newline list) for QEMU.
qemu_command() {
	_kdir=$1 _initrd=$2
	set -- -accel tcg -M pc -m "$MEM" -display none -nodefaults -no-user-config \
		-no-reboot \
		-chardev "file,id=con0,path=$RESDIR/console.txt" -serial chardev:con0
	# ttyS1 exists by default; a caller who wires it brings its own -serial.
	case "$NL$QARGS$NL" in
	*"${NL}-serial$NL"* | *isa-serial*) ;;
	*) set -- "$@" -serial null ;;
	esac
	# An uncompressed vmlinux boots through PVH, which skips the slow
	# in-guest decompression (about 4 s under TCG); vmlinuz also works.
	_kernel=$_kdir/vmlinuz
	[ "${IRNET_VM_PVH:-1}" = 0 ] || [ ! -s "$_kdir/vmlinux" ] || _kernel=$_kdir/vmlinux
	set -- "$@" -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-kernel "$_kernel" -initrd "$_initrd" \
		-append "$DEFAULT_APPEND${APPEND:+ $APPEND}"
	_old_ifs=$IFS
	IFS=$NL
	for _a in $QARGS; do
		set -- "$@" "$_a"
	done
	IFS=$_old_ifs
	_qrc=0
	timeout -k 5 "$TIMEOUT" "$QEMU" "$@" </dev/null >"$RESDIR/qemu.log" 2>&1 || _qrc=$?
	return "$_qrc"
}

# Usage: add_line VAR VALUE -> appends VALUE as a line to variable VAR.
add_line() {
	case $2 in *"$NL"*) vm_die "$VM_ERROR" "arguments must not contain newlines" ;; esac
	eval "_cur=\${$1}"
	eval "$1=\${_cur:+\$_cur\$NL}\$2"
}

parse_args() {
	FLAVOUR=generic APPEND='' FILES='' QARGS='' ENVS='' MEM=512M TIMEOUT=60
	RESDIR='' VERBOSE=0 TESTS=''
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel | --append | --file | --qemu-arg | -e | -m | -t | -r)
			[ $# -ge 2 ] || vm_die "$VM_ERROR" "$1 needs an argument"
			;;
		esac
		case $1 in
		--kernel) FLAVOUR=$2 ;;
		--append) APPEND=${APPEND:+$APPEND }$2 ;;
		--file) add_line FILES "$2" ;;
		--qemu-arg)
			case $2 in
			*kvm* | *KVM*) vm_die "$VM_ERROR" "KVM hangs guest kernels here; only TCG is allowed ($2)" ;;
			esac
			add_line QARGS "$2"
			;;
		-e)
			case $2 in
			[A-Za-z_]*=*) ENVS="$ENVS $2" ;;
			*) vm_die "$VM_ERROR" "-e wants NAME=VALUE, got '$2'" ;;
			esac
			vm_check_plain_path "$2"
			;;
		-m) MEM=$2 ;;
		-t) TIMEOUT=$2 ;;
		-r) RESDIR=$2 ;;
		-v) VERBOSE=1; shift; continue ;;
		-h | --help) vm_usage 0 ;;
		--) shift; break ;;
		-*) vm_die "$VM_ERROR" "unknown option $1 (see --help)" ;;
		*) break ;;
		esac
		shift 2
	done
	[ $# -gt 0 ] || vm_usage
	case $TIMEOUT in '' | *[!0-9]*) vm_die "$VM_ERROR" "-t wants whole seconds" ;; esac
	TIMEOUT=$(ceiling "$TIMEOUT")
	case $FLAVOUR in generic | rt) ;; *) vm_die "$VM_ERROR" "--kernel wants generic or rt" ;; esac
	for _t in "$@"; do
		[ -f "$_t" ] || vm_die "$VM_ERROR" "no such test script: $_t"
		_abs=$(vm_abspath "$_t")
		vm_check_plain_path "$_abs"
		TESTS=${TESTS:+$TESTS }$_abs
	done
	NAMES=$(vm_test_names "$@")
}

main() {
	parse_args "$@"
	vm_have "$QEMU" || vm_skip "$QEMU not found (install qemu-system-x86)"
	vm_have busybox || vm_skip "busybox not found (install busybox-static)"
	[ -z "$(elf_libs "$(command -v busybox)")" ] ||
		vm_skip "busybox is dynamically linked (install busybox-static)"
	_kdir=$VM_CACHE/$FLAVOUR
	{ [ -s "$_kdir/vmlinuz" ] && [ -s "$_kdir/kver" ]; } ||
		vm_skip "no $FLAVOUR kernel in $VM_CACHE (run $here/fetch-kernels.sh$([ "$FLAVOUR" = generic ] || echo ' --rt'))"

	_own_res=0
	[ -n "$RESDIR" ] || _own_res=1
	RESDIR=$(vm_result_dir "$RESDIR")
	for _n in $NAMES ALL; do
		rm -f "$RESDIR/$_n.rc" "$RESDIR/$_n.log"
	done
	rm -f "$RESDIR/console.txt" "$RESDIR/qemu.log" "$RESDIR/dmesg.txt"
	RUNDIR=$(mktemp -d "${TMPDIR:-/tmp}/irnet-qemu.XXXXXX")
	trap 'rm -rf "$RUNDIR"' EXIT

	_t0=$(vm_now)
	_base=$(base_cpio "$_kdir")
	# The guest kills a test this long before the host kills the VM, so
	# that the logs still make it over the console.
	DEADLINE=$((TIMEOUT > 10 ? TIMEOUT - 5 : TIMEOUT / 2 + 1))
	build_run_cpio "$RUNDIR/run.cpio"
	cat "$_base" "$RUNDIR/run.cpio" >"$RUNDIR/initrd.img"
	_tboot=$(vm_now)
	_qrc=0
	qemu_command "$_kdir" "$RUNDIR/initrd.img" || _qrc=$?
	_took=$(vm_elapsed "$_t0")
	vm_say "VM ran $(vm_elapsed "$_tboot") s"

	[ "$VERBOSE" = 0 ] || vm_show_log "$RESDIR/console.txt" "guest console"
	split_console "$RESDIR/console.txt" "$RESDIR"
	if [ ! -f "$RESDIR/ALL.rc" ] || ! { [ "$_qrc" = 1 ] || [ "$_qrc" = 3 ] || [ "$_qrc" = 155 ]; }; then
		explain_no_report "$_qrc"
		vm_say "results kept in $RESDIR (${_took} s)"
		return "$VM_ERROR"
	fi
	_rc=0
	# shellcheck disable=SC2086 # one word per test name
	vm_report "$RESDIR" $NAMES || _rc=$?
	# The port status and the console report must agree.
	[ "$_rc" -ne 0 ] || [ "$_qrc" = 1 ] || _rc=$VM_FAIL
	if [ "$_rc" -ne "$VM_FAIL" ] && [ "$_own_res" = 1 ]; then
		rm -rf "$RESDIR"
		vm_say "done in ${_took} s"
	else
		vm_say "results in $RESDIR (${_took} s)"
	fi
	return "$_rc"
}

main "$@"
