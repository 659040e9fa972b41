# Guest-side helpers shared by uml-init.sh and qemu-init.sh (both PID 1).
# Sourced, not executed. PID 1 must never exit early (the kernel panics),
# so nothing here relies on `set -e`; failures are reported and the run
# goes on to write its results.
# shellcheck shell=sh

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# Prints a progress line on the console, which the host keeps.
vmg_say() {
	echo "irnet-vm: $*"
}

# Usage: vmg_is_mounted DIR -> true if something is mounted on DIR.
# Reads /proc/mounts in the shell: fork/exec is slow in UML.
vmg_is_mounted() {
	while read -r _src _dir _rest; do
		[ "$_dir" != "$1" ] || return 0
	done </proc/mounts
	return 1
}

# Mounts the pseudo file systems every test expects.
vmg_mount_basics() {
	# Unconditionally: in UML, /proc on the hostfs root is the host's
	# procfs seen through hostfs, which exists but reads as empty files.
	mount -t proc proc /proc
	vmg_is_mounted /sys || mount -t sysfs sysfs /sys
	# Some kernels mount devtmpfs on /dev by themselves (UML does).
	vmg_is_mounted /dev || mount -t devtmpfs devtmpfs /dev
	mkdir -p /dev/pts /dev/shm
	# A private devpts instance whose ptmx anyone may open, so pty
	# pairs (socat, the link emulator) work as in a normal system.
	mount -t devpts -o newinstance,ptmxmode=666,mode=620 devpts /dev/pts
	rm -f /dev/ptmx
	ln -s pts/ptmx /dev/ptmx
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
}

# Usage: vmg_ppp_etc -> an empty, writable /etc/ppp. The host's options
# file says `auth crtscts lock modem`, which no test wants.
vmg_ppp_etc() {
	mkdir -p /etc/ppp
	mount -t tmpfs -o mode=755 tmpfs /etc/ppp
	: >/etc/ppp/options
}

# Usage: vmg_module_order MODULES.DEP NAME... -> prints the .ko paths (as
# written in modules.dep) to load, dependencies first, each once. NAME
# "all" means every module in the file. Names that are not in the file
# (built in, or absent from this kernel) are silently left out.
vmg_module_order() {
	_dep=$1
	shift
	awk -v want="$*" '
		function norm(p,  b) { b = p; sub(/.*\//, "", b); sub(/\.ko(\..*)?$/, "", b)
			gsub(/-/, "_", b); return b }
		function visit(p,  n, i, d) {
			if (p in seen) return
			seen[p] = 1
			n = split(deps[p], d, " ")
			# modules.dep lists the nearest dependency first.
			for (i = n; i >= 1; i--) visit(d[i])
			print p
		}
		{ p = $1; sub(/:$/, "", p); deps[p] = ""
		  for (i = 2; i <= NF; i++) deps[p] = deps[p] " " $i
		  path[norm(p)] = p; order[++count] = p }
		END {
			if (want == "all") { for (i = 1; i <= count; i++) visit(order[i]); exit }
			n = split(want, w, " ")
			for (i = 1; i <= n; i++) { k = w[i]; gsub(/-/, "_", k)
				if (k in path) visit(path[k]) }
		}' "$_dep"
}

# Usage: vmg_load_modules MODDIR NAME... -> loads NAME... (or "all") with
# busybox insmod in dependency order; a module that fails is reported
# and skipped, since tests check for what they need themselves.
vmg_load_modules() {
	_mdir=$1
	shift
	if [ ! -f "$_mdir/modules.dep" ]; then
		vmg_say "no $_mdir/modules.dep; loading no modules"
		return 0
	fi
	_loaded=
	for _ko in $(vmg_module_order "$_mdir/modules.dep" "$@"); do
		if _err=$(busybox insmod "$_mdir/$_ko" 2>&1); then
			_n=${_ko##*/}
			_loaded="$_loaded ${_n%%.ko*}"
		else
			case $_err in
			*"File exists"*) ;; # already loaded
			*) vmg_say "insmod ${_ko##*/} failed: $_err" ;;
			esac
		fi
	done
	vmg_say "modules:${_loaded:- none}"
}

# Leftover daemons (pppd, socat, ...) of one test must not disturb the
# next, so PID 1 kills every other process. Guarded: outside a VM's PID 1
# a "kill -1" would hit every process the user owns on the host.
vmg_kill_leftovers() {
	[ "$$" -eq 1 ] || return 0
	kill -s KILL -- -1 2>/dev/null
}

# Refuses to go on unless this shell is PID 1, i.e. really inside a VM:
# run on the host by mistake, the init scripts would mount over /tmp etc.
vmg_require_pid1() {
	if [ "$$" -ne 1 ]; then
		echo "$0: this is a VM init (PID 1) script; do not run it directly" >&2
		exit 1
	fi
}

# Prints whole seconds of guest uptime without forking.
vmg_uptime() {
	_up=0
	read -r _up _idle </proc/uptime || :
	_up=${_up%.*}
	echo "${_up:-0}"
}

# Usage: vmg_run_tests RESDIR DEADLINE KIND TEST...
# Runs each TEST with /bin/sh, cwd and TMPDIR in a fresh scratch dir, its
# output in RESDIR/NAME.log and exit status in RESDIR/NAME.rc; a test is
# killed when guest uptime reaches DEADLINE so its log still comes back.
# Writes RESDIR/ALL.rc: 0 all passed, 1 one failed, 77 all skipped.
vmg_run_tests() {
	_res=$1 _deadline=$2 _kind=$3
	shift 3
	_fail=0 _pass=0 _skip=0
	for _t in "$@"; do
		_name=${_t##*/}
		_name=${_name%.sh}
		_scratch=/tmp/vm-test-$_name
		mkdir -p "$_scratch"
		_left=$((_deadline - $(vmg_uptime)))
		[ "$_left" -ge 1 ] || _left=1
		_start=$(vmg_uptime)
		vmg_say "run $_name (time limit ${_left}s)"
		(
			cd "$_scratch" || exit 1
			export TMPDIR="$_scratch" HOME="$_scratch"
			export VM_KIND="$_kind" VM_RESDIR="$_res" VM_TEST_NAME="$_name"
			exec timeout -s KILL "$_left" /bin/sh "$_t"
		) >"$_res/$_name.log" 2>&1 </dev/null
		_rc=$?
		_took=$(($(vmg_uptime) - _start))
		if [ "$_took" -ge "$_left" ] && [ "$_rc" -ne 0 ]; then
			echo "irnet-vm: $_name killed after ${_took}s (time limit)" >>"$_res/$_name.log"
			_rc=124
		fi
		echo "$_rc" >"$_res/$_name.rc"
		case $_rc in
		0) _pass=$((_pass + 1)) ;;
		77) _skip=$((_skip + 1)) ;;
		*) _fail=$((_fail + 1)) ;;
		esac
		vmg_say "end $_name rc=$_rc (${_took}s)"
		vmg_kill_leftovers
	done
	_all=0
	if [ "$_fail" -gt 0 ]; then
		_all=1
	elif [ "$_pass" -eq 0 ] && [ "$_skip" -gt 0 ]; then
		_all=77
	fi
	dmesg >"$_res/dmesg.txt" 2>&1
	echo "$_all" >"$_res/ALL.rc"
	sync
	vmg_say "all done rc=$_all"
	return "$_all"
}

# Never returns: powers the VM off, or hangs if that fails so the host's
# timeout reports it rather than the kernel panicking about init exiting.
vmg_poweroff() {
	sync
	busybox poweroff -f
	while :; do sleep 3600; done
}
