# tests/clients/kit-lib.sh: the development kit staged as a user installs
# it (sourced after tests/lib.sh and tests/station-lib.sh, not run).
#
# kit_install NAME: `make install` of the kit's parts only (the header,
# irsock.pc, libirsock.so) with DESTDIR=$abs_top_builddir/tests/clients/
# NAME-kit (each test its own, so that two can run at once); sets kit
# (that directory) and exports PKG_CONFIG_PATH for the staged irsock.pc.
# kit_pc ARG...: pkg-config on it, its prefix moved into the stage.
kit_install() {
	kit=$abs_top_builddir/tests/clients/$1-kit
	rm -rf "$kit"
	make -s -C "$abs_top_builddir" DESTDIR="$kit" install-irsockincludeHEADERS \
		install-pkgconfigDATA install-pkglibLTLIBRARIES >"$tmp/kit-install.out" 2>&1 ||
		fail "installing the kit into $kit failed"
	kit_pcfile=$(find "$kit" -name irsock.pc)
	[ -n "$kit_pcfile" ] || fail "no irsock.pc installed in $kit"
	PKG_CONFIG_PATH=$(dirname "$kit_pcfile")
	export PKG_CONFIG_PATH
	kit_prefix=$(pkg-config --variable=prefix irsock) || fail "pkg-config cannot read $kit_pcfile"
}
kit_pc() {
	pkg-config --define-variable=prefix="$kit$kit_prefix" "$@" irsock
}
