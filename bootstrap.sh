#!/bin/bash
# bootstrap.sh: install what is missing, build, and test irnet-tools.
#
#   ./bootstrap.sh          install missing Debian packages, then build
#   ./bootstrap.sh check    the above, then every test; the last line is
#                           "N passed, N failed, N skipped"
#   ./bootstrap.sh bench    the above build, then `make bench`
#   ./bootstrap.sh demo [--verbose]
#                           the above build, then demo/demo.sh: the
#                           toolkit at work, in five steps (~2.5 min)
#
# Run as root on Debian 12 (it calls apt-get only for packages that are
# missing, once).  It is idempotent: a second run installs nothing and
# rebuilds only what changed.  Three out-of-tree builds live in the
# source tree:
#   build/        gcc, -Werror: the programs, every test, distcheck
#   build-asan/   gcc, ASan+UBSan, -Werror: the unit tests again, and
#                 the real-time program tests in SANITIZER_TESTS
#   build-clang/  clang, -Werror, libFuzzer: compiles everything with
#                 clang and runs each fuzzer for FUZZ_SECONDS
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
jobs=${JOBS:-2}

# Build tools, libraries, and what the tests run against.
PACKAGES=(
	autoconf automake libtool autoconf-archive pkg-config make gcc
	clang libclang-rt-14-dev llvm
	libudev-dev libnl-3-dev libnl-route-3-dev libcurl4-openssl-dev
	libgsl-dev libjson-c-dev libcmocka-dev libseccomp-dev libcairo2-dev libusb-1.0-0-dev
	libumockdev-dev umockdev udev
	ppp ppp-dev
	user-mode-linux qemu-system-x86 busybox-static cpio dash xz-utils binutils debootstrap
	socat gammu openobex-apps obexftp jq tshark vsftpd iperf3 nuttcp netpipe-tcp ministat curl ftp inetutils-ftp lftp
	python3 python3-scipy mandoc iproute2 util-linux procps kmod
	debhelper lintian devscripts dpkg-dev
)

# Each step's line carries the time since the start (mm:ss), so a slow
# step shows in CI's log.
say() { printf '== [%02d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
die() { printf 'bootstrap.sh: %s\n' "$*" >&2; exit 2; }

missing_packages() {
	local p status
	for p in "${PACKAGES[@]}"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
		[ "$status" = installed ] || echo "$p"
	done
}

install_packages() {
	local missing
	mapfile -t missing < <(missing_packages)
	if [ ${#missing[@]} -eq 0 ]; then
		say "all ${#PACKAGES[@]} Debian packages present"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}): run as root to install them"
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q || die "apt-get update failed"
	apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		die "apt-get install failed"
}

# Kernels for the QEMU tests come from Debian's archive too, but are not
# installed: they are unpacked into a cache (see docs/vm-testing.md).
fetch_vm_kernels() {
	local fetch="$here/tests/vm/fetch-kernels.sh"
	[ -x "$fetch" ] || return 0
	"$fetch" --rt || die "could not fetch the VM test kernels"
	# The Debian 12 guest of tests/irqtune-boot.sh (debootstrap: root only).
	if [ "$(id -u)" -eq 0 ]; then
		"$here/tests/vm/debian-image.sh" || die "could not build the Debian VM image"
	fi
}

regenerate() {
	# Once configure exists, make re-runs autoconf/automake itself when
	# configure.ac or a Makefile.am changes.
	if [ ! -x configure ] || [ configure.ac -nt configure ]; then
		say "autoreconf"
		autoreconf -fi || die "autoreconf failed"
	fi
}

# configure_dir DIR ARGS...: configures DIR once; later runs leave it to
# make (config.status --recheck) so that nothing is rebuilt needlessly.
configure_dir() {
	local dir=$1
	shift
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ]; then
		say "configure in $dir: $*"
		(cd "$dir" && ../configure "$@") >"$dir.configure.log" 2>&1 || {
			tail -40 "$dir.configure.log"
			return 1
		}
	fi
}

build_main() {
	configure_dir build --enable-werror CC=gcc &&
		say "make in build/" && make -C build -j"$jobs"
}

# --- results -------------------------------------------------------------
passed=0
failed=0
skipped=0
failures=()

record() { # record NAME STATUS(0=pass,77=skip,else fail)
	case $2 in
	0) passed=$((passed + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)); failures+=("$1") ;;
	esac
}

# Runs a step that is a test in itself (a build, distcheck) and records it.
step() {
	local name=$1
	shift
	say "$name"
	"$@"
	local rc=$?
	record "$name" "$rc"
	return "$rc"
}

# Adds up automake's per-test results from the .trs files under DIR.
count_trs() {
	local dir=$1 line name
	[ -d "$dir" ] || return 0
	while IFS= read -r line; do
		name=${line%%.trs:*}
		case ${line##*:test-result: } in
		PASS | XFAIL) record "$name" 0 ;;
		SKIP) record "$name" 77 ;;
		*) record "$name" 1 ;;
		esac
	done < <(find "$dir" -name '*.trs' -newer "$dir/.check-start" \
		-exec grep -H '^:test-result:' {} + 2>/dev/null)
}

# make check in DIR (target TARGET), counting every test it ran.
check_dir() {
	local dir=$1 target=$2
	touch "$dir/.check-start"
	say "make $target in $dir/"
	# One job more than the cores: most tests spend their time waiting on
	# an emulated line in real time, so a third one keeps both cores busy.
	make -C "$dir" -j"$((jobs + 1))" "$target"
	local rc=$?
	count_trs "$dir"
	if [ "$rc" -ne 0 ] && ! find "$dir" -name '*.trs' -newer "$dir/.check-start" | grep -q .; then
		record "$dir: make $target" "$rc"   # it failed before any test ran
	fi
}

# Names the tests that failed inside distcheck's own build and shows the
# end of each one's log (make leaves that build in place on failure).
distcheck_failures() {
	local line name log
	grep -E '^(FAIL|ERROR): ' build/distcheck.log | sort -u | while IFS= read -r line; do
		say "distcheck: $line"
		name=${line#*: }
		name=${name%% *}
		log=$(find build -path '*/_build/*' -name "$(basename "$name").log" 2>/dev/null | head -1)
		[ -n "$log" ] && tail -40 "$log"
	done
}

# distcheck builds the release tarball and checks it from scratch.  Its
# result is remembered per source state, so an unchanged tree does not
# pay for it twice; a fresh clone always runs it.
distcheck() {
	local state stamp=build/.distcheck-pass
	state=$(git rev-parse HEAD 2>/dev/null; git status --porcelain 2>/dev/null | sha1sum)
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$state" ]; then
		say "distcheck: passed before on this exact source state, not repeated"
		return 0
	fi
	make -C build -j"$jobs" distcheck >build/distcheck.log 2>&1 || {
		tail -60 build/distcheck.log
		distcheck_failures
		return 1
	}
	grep -A3 'archives ready for distribution' build/distcheck.log
	printf '%s\n' "$state" >"$stamp"
}

# Shows what went wrong: each failed test's log (tail), once per test.
report_failures() {
	local name log
	[ ${#failures[@]} -gt 0 ] || return 0
	for name in $(printf '%s\n' "${failures[@]}" | sort -u); do
		log=$name.log
		[ -f "$log" ] || continue
		echo "---- $log (last 40 lines)"
		tail -40 "$log"
	done
	# The reason each test gave, last, beside the summary: a reader who
	# sees only the first and last lines of this output still sees why.
	echo "failed:"
	printf '%s\n' "${failures[@]}" | sort | uniq -c | sed 's/^ *\([0-9]*\) \(.*\)/  \2 (\1)/'
	for name in $(printf '%s\n' "${failures[@]}" | sort -u); do
		log=$name.log
		[ -f "$log" ] || continue
		grep -m3 -E '^(FAIL|not ok|ERROR)' "$log" | sed "s|^|  $name: |"
	done
}

# The ten slowest tests of this check (the NAME.time files that
# tests/timed-driver.sh leaves beside each .trs), so the time budget
# stays visible as tests are added.
slowest_tests() {
	local dir list=()
	for dir in build build-asan build-clang; do
		[ -f "$dir/.check-start" ] || continue
		while IFS= read -r -d '' f; do
			list+=("$(sed "s|^\([0-9.]*\) |\1 $dir/|" "$f")")
		done < <(find "$dir" -name '*.time' -newer "$dir/.check-start" -print0 2>/dev/null)
	done
	[ ${#list[@]} -gt 0 ] || return 0
	echo "the ten slowest tests (wall-clock seconds):"
	printf '%s\n' "${list[@]}" | sort -rn | head -10 | awk '{ printf "  %7.1f  %s\n", $1, $2 }'
}

summary() {
	say "every step done"
	slowest_tests
	report_failures
	local line="$passed passed, $failed failed"
	[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
	echo "$line"
	[ "$failed" -eq 0 ]
}

# Every test's time limits scale with IRNET_TEST_SLOWDOWN
# (tests/ceiling.sh).  Unless the caller set it, it is measured here,
# once, from how much slower than an idle core a CPU-bound probe runs.
set_slowdown() {
	if [ -z "${IRNET_TEST_SLOWDOWN:-}" ]; then
		IRNET_TEST_SLOWDOWN=$(sh "$here/tests/slowdown.sh") || IRNET_TEST_SLOWDOWN=1
		say "IRNET_TEST_SLOWDOWN=$IRNET_TEST_SLOWDOWN (measured by tests/slowdown.sh: time limits scale by it)"
	else
		say "IRNET_TEST_SLOWDOWN=$IRNET_TEST_SLOWDOWN (set by the caller: time limits scale by it)"
	fi
	export IRNET_TEST_SLOWDOWN
}

cmd_check() {
	set_slowdown
	if step "build (gcc -Werror)" build_main; then
		check_dir build check
		step "distcheck" distcheck
		# The Debian packages from the release tarball, lintian-clean
		# (docs/packaging.md); exit 77 (skip) without debhelper/lintian.
		step "debian packages" tests/debian-package.sh build
	fi
	if step "build (gcc, ASan+UBSan)" \
		eval 'configure_dir build-asan --enable-werror --enable-sanitizers CC=gcc &&
		      make -C build-asan -j"$jobs"'; then
		check_dir build-asan check-unit
	fi
	if step "build (clang -Werror, libFuzzer)" \
		eval 'configure_dir build-clang --enable-werror --enable-fuzzing CC=clang &&
		      make -C build-clang -j"$jobs"'; then
		check_dir build-clang check-fuzz
	fi
	summary
}

main() {
	local cmd=${1:-build}
	case $cmd in
	build | check | bench | demo) ;;
	-h | --help)
		sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
		return 0
		;;
	*) die "unknown command '$cmd' (use: build, check, bench, demo)" ;;
	esac
	shift
	[ "$cmd" = demo ] || [ $# -eq 0 ] || die "'$cmd' takes no arguments"
	install_packages
	# The demo needs only user-mode Linux, not the QEMU test kernels.
	[ "$cmd" = demo ] || fetch_vm_kernels
	regenerate
	case $cmd in
	build) build_main ;;
	demo)
		say "build (make -j$jobs in build/, log in build.demo.log)"
		build_main >build.demo.log 2>&1 || {
			tail -40 build.demo.log
			die "the build failed (build.demo.log)"
		}
		"$here/demo/demo.sh" "$@"
		;;
	check) cmd_check ;;
	bench) build_main && make -C build bench ;;
	esac
}

main "$@"
