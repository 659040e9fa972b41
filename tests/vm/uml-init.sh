#!/bin/sh
# uml-init.sh - PID 1 of the user-mode Linux guest started by uml-run.sh.
#
# The guest root is the host root, read-only, over hostfs. Settings come
# from the kernel command line, which hands KEY=VALUE words to init as
# environment variables:
#   IRNET_VM_TESTS     colon-separated absolute paths of the test scripts
#   IRNET_VM_RESDIR    host directory for results (mounted read-write)
#   IRNET_VM_KEEP      colon-separated host directories that must stay
#                      visible even where tmpfs is mounted over a parent
#   IRNET_VM_DEADLINE  guest uptime (s) at which a running test is killed
# Not `set -e`: PID 1 must get to poweroff whatever happens.
set -u

here=$(dirname "$0")
# shellcheck source=SCRIPTDIR/guest-lib.sh
. "$here/guest-lib.sh"

vmg_require_pid1

# Where the host's result directory appears inside the guest.
RES=/run/irnet-vm/res
# The PPP stack and what pppd or the tests may want; "as available":
# the UML kernel has no n_hdlc, for example.
UML_MODULES="crc-ccitt slhc ppp_generic ppp_async ppp_synctty ppp_deflate bsd_comp n_hdlc veth tun"

# Usage: keep_visible MOUNTPOINT -> after a tmpfs was mounted over
# MOUNTPOINT, mounts back (read-only, straight from the host) each keep
# directory below it, so the tests and the build tree stay at their real
# absolute paths even when the repository lives in, say, /tmp/x.
keep_visible() {
	_old_ifs=$IFS
	# Shortest first: a parent mounted after its child would be skipped
	# (the child made it exist), hiding the rest of the parent.
	_sorted=$(printf '%s\n' "${IRNET_VM_KEEP:-}" | tr ':' '\n' |
		awk 'NF { print length($0) " " $0 }' | sort -n | cut -d' ' -f2- | tr '\n' ':')
	IFS=:
	for _k in $_sorted; do
		case $_k in "$1"/*) ;; *) continue ;; esac
		# Already visible through an earlier keep directory.
		[ -d "$_k" ] && continue
		if ! { mkdir -p "$_k" && mount -t hostfs -o "ro,$_k" none "$_k"; }; then
			vmg_say "cannot keep $_k visible"
		fi
	done
	IFS=$_old_ifs
}

# Usage: scratch MOUNTPOINT MODE -> a writable tmpfs over a host directory.
scratch() {
	mount -t tmpfs -o "mode=$2" tmpfs "$1" || vmg_say "cannot mount tmpfs on $1"
	keep_visible "$1"
}

setup() {
	vmg_mount_basics
	scratch /run 755
	scratch /tmp 1777
	scratch /var/log 755
	vmg_ppp_etc
	mkdir -p "$RES"
	if ! mount -t hostfs -o "${IRNET_VM_RESDIR:?}" none "$RES"; then
		vmg_say "cannot mount the result directory $IRNET_VM_RESDIR"
		return 1
	fi
	ip link set lo up
	# shellcheck disable=SC2086 # a list of module names
	vmg_load_modules "/usr/lib/uml/modules/$(uname -r)" $UML_MODULES
}

main() {
	# Kernel messages would interleave with the console log.
	dmesg -n 1 2>/dev/null
	setup || return 1
	_old_ifs=$IFS
	IFS=:
	# shellcheck disable=SC2086 # split on colons on purpose
	set -- ${IRNET_VM_TESTS:?}
	IFS=$_old_ifs
	# Failed tests are in ALL.rc; main itself succeeded.
	vmg_run_tests "$RES" "${IRNET_VM_DEADLINE:-100000}" uml "$@" || true
}

# In a subshell: a shell error (set -u, a bad expansion) ends the
# subshell, not PID 1, so the VM still powers off cleanly; the host then
# finds no ALL.rc and says so.
(main) || vmg_say "init failed (status $?)"
vmg_poweroff
