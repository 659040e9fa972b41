#!/bin/sh
# The AF_IRDA development kit, installed (issue 26): `make install` of the
# header, irsock.pc and libirsock.so into a DESTDIR in the build tree, then
#   - pkg-config --cflags gives -I.../include/irnet-tools, with
#     linux/irda.h below it (never .../include/linux), --libs links
#     libirsock;
#   - <linux/irda.h> compiles as C99 with -pedantic -Werror, and as C++;
#   - a user's AF_IRDA program (tests/clients/irsock_kit_probe.c, nothing
#     of the tree) built with those flags alone needs libirsock.so, found
#     by its run path in the stage, and runs with no LD_PRELOAD on one of
#     two irdad over irwire: IRLMP_ENUMDEVICES finds the other station,
#     IRLMP_IAS_QUERY reads its DeviceName.
# One PASS line per case.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/station-lib.sh"
. "${top_srcdir:-.}/tests/clients/kit-lib.sh"
command -v pkg-config >/dev/null || skip "pkg-config is not installed"
CC=${CC:-cc}

kit_install irsock-kit
cflags=$(kit_pc --cflags) && libs=$(kit_pc --libs) || fail "pkg-config --cflags --libs irsock failed"
# (pkgconf ends its answers with a blank)
cflags=$(echo $cflags) libs=$(echo $libs)
[ "$cflags" = "-I$kit$kit_prefix/include/irnet-tools" ] || fail "--cflags gave '$cflags'"
[ -f "$kit$kit_prefix/include/irnet-tools/linux/irda.h" ] || fail "no include/irnet-tools/linux/irda.h in $kit"
[ ! -e "$kit$kit_prefix/include/linux" ] || fail "the kit installed into include/linux"
case " $libs " in *" -lirsock "*) ;; *) fail "--libs gave '$libs'" ;; esac
echo "PASS: pkg-config irsock: $cflags / $libs"

printf '#include <linux/irda.h>\nint main(void) { struct sockaddr_irda a = { .sir_family = AF_IRDA }; return a.sir_lsap_sel; }\n' \
	>"$tmp/c99.c"
$CC -std=c99 -pedantic -Wall -Wextra -Werror $cflags -c "$tmp/c99.c" -o "$tmp/c99.o" 2>"$tmp/c99.err" ||
	fail "<linux/irda.h> does not compile as C99 -pedantic: $(cat "$tmp/c99.err")"
if command -v g++ >/dev/null; then
	printf '#include <linux/irda.h>\nint main() { irda_ias_set s; return sizeof s == 1356 ? 0 : 1; }\n' >"$tmp/cxx.cc"
	g++ -Wall -Wextra -Werror $cflags "$tmp/cxx.cc" -o "$tmp/cxx" 2>"$tmp/cxx.err" && "$tmp/cxx" ||
		fail "<linux/irda.h> in C++: $(cat "$tmp/cxx.err")"
	echo "PASS: <linux/irda.h> compiles as C99 -pedantic and as C++ (irda_ias_set 1356 bytes)"
else
	echo "PASS: <linux/irda.h> compiles as C99 -pedantic (no g++ for the C++ case)"
fi

probe=$tmp/irsock_kit_probe
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror $cflags "$abs_top_srcdir/tests/clients/irsock_kit_probe.c" \
	-o "$probe" $libs 2>"$tmp/probe-cc.err" || fail "the probe does not build with the kit's flags"
readelf -d "$probe" >"$tmp/probe-dyn.out" 2>&1 || fail "readelf on the probe failed"
grep -q 'NEEDED.*\[libirsock\.so\]' "$tmp/probe-dyn.out" || fail "the probe does not need libirsock.so"
grep -q "R\(UN\)\?PATH.*\[$kit" "$tmp/probe-dyn.out" || fail "the probe's run path is not in the stage"
ldd "$probe" | grep -q "libirsock.so => $kit" || fail "the loader finds another libirsock.so: $(ldd "$probe")"
echo "PASS: linked directly: NEEDED libirsock.so, found in the stage by the run path"

start_wire
start_irdad alpha "$a" -v
start_irdad beta "$b" -v
env -u LD_PRELOAD IRSOCK_DAEMON="$tmp/alpha.sock" timeout "$(ceiling 60)" "$probe" beta \
	>"$tmp/probe.out" 2>"$tmp/probe.err"
rc=$?
sed -n 's/^ok: /PASS: no preload: /p' "$tmp/probe.out"
[ $rc -eq 0 ] || fail "the probe (exit $rc): $(grep FAIL "$tmp/probe.out")"
[ "$(grep -c '^ok: ' "$tmp/probe.out")" -eq 3 ] || fail "the probe did not take its three steps"
exit 0
