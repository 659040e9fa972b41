# tests/xferstat-lib.sh: helpers for the xferstat script tests (sourced).
#
# Everything listens on 127.0.0.1 or inside network namespaces the test
# made; every process, user and namespace started here is removed by
# xs_cleanup, which the tests run from an EXIT trap.

. "${top_srcdir:-.}/tests/lib.sh"

XFERSTAT=${abs_top_builddir:-$(pwd)}/xferstat/xferstat
PY=/usr/bin/python3
xs_pids=""
xs_users=""
xs_netns=""
xs_tmp=""

xs_cleanup() {
	local p u n
	for p in $xs_pids; do
		kill "$p" 2>/dev/null
	done
	for p in $xs_pids; do
		wait "$p" 2>/dev/null
	done
	# vsftpd's session processes run as the user and end a moment after
	# their parent: userdel refuses until they are gone.
	for u in $xs_users; do
		for p in $(seq 30); do
			userdel "$u" 2>/dev/null && break
			sleep 0.1
		done
		id "$u" >/dev/null 2>&1 && userdel -f "$u" 2>/dev/null
	done
	for n in $xs_netns; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$n" 2>/dev/null
	done
	[ -n "$xs_tmp" ] && rm -rf "$xs_tmp"
}

xs_need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (vsftpd, useradd, network namespaces)"
}

xs_need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "$t not installed (./bootstrap.sh installs it)"
	done
}

xs_mktemp() {
	xs_tmp=$(mktemp -d /tmp/xferstat-test.XXXXXX) || exit 99
	chmod 755 "$xs_tmp"
}

# A TCP port on 127.0.0.1 that nothing listens on now.
xs_free_port() {
	"$PY" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# xs_wait_port HOST PORT: until something accepts there (5 s at most).
xs_wait_port() {
	local i
	for i in $(seq 50); do
		if "$PY" -c 'import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=0.2)' "$1" "$2" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	echo "nothing listens on $1:$2" >&2
	return 1
}

# xs_vsftpd DIR PORT [EXTRA CONFIG LINES...]: starts vsftpd on
# 127.0.0.1:PORT serving DIR/anon anonymously and local users, with its
# own config file; sets xs_vsftpd_pid.
xs_vsftpd() {
	local dir=$1 port=$2 conf
	shift 2
	conf=$dir/vsftpd-$port.conf
	mkdir -p "$dir/anon"
	chmod 755 "$dir/anon"
	cat >"$conf" <<CONF
listen=YES
listen_ipv6=NO
background=NO
listen_address=127.0.0.1
listen_port=$port
anonymous_enable=YES
anon_root=$dir/anon
no_anon_password=YES
local_enable=YES
write_enable=YES
secure_chroot_dir=/var/run/vsftpd/empty
pam_service_name=vsftpd
seccomp_sandbox=NO
xferlog_enable=NO
vsftpd_log_file=$dir/vsftpd-$port.log
pasv_enable=YES
pasv_address=127.0.0.1
CONF
	local line
	for line in "$@"; do
		echo "$line" >>"$conf"
	done
	mkdir -p /var/run/vsftpd/empty
	vsftpd "$conf" >"$dir/vsftpd-$port.out" 2>&1 &
	xs_vsftpd_pid=$!
	xs_pids="$xs_pids $xs_vsftpd_pid"
	xs_wait_port 127.0.0.1 "$port" || { cat "$dir/vsftpd-$port.out"; return 1; }
}

# xs_user NAME HOME: a throwaway local user with a random password (in
# xs_user_pw), removed by xs_cleanup.  Not to be run in a subshell.
xs_user() {
	local name=$1 home=$2
	xs_user_pw=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
	useradd -M -d "$home" -s /bin/sh "$name" || return 1
	xs_users="$xs_users $name"
	mkdir -p "$home"
	chown "$name" "$home"
	echo "$name:$xs_user_pw" | chpasswd || return 1
}

# xs_json FILE EXPR: evaluates a Python expression over the result file
# loaded as d, prints the value.
xs_json() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# check DESCRIPTION COMMAND...: runs the command, reports, counts.
xs_fail=0
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAIL: $what"
		xs_fail=1
	fi
}
