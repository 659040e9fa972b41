# tests/vm/: tests that need a kernel this machine lacks (PPP, 8250 UART,
# threaded IRQs): user-mode Linux and QEMU TCG runners.  See
# docs/vm-testing.md.  IRNET_VM_REQUIRE=1 turns a skip into a failure.
VM_TESTS = \
	tests/vm/smoke-uml-pppd.sh \
	tests/vm/smoke-qemu-threadirqs.sh \
	tests/vm/uml-irdad-pppd.sh \
	tests/vm/uml-plugin-irnet.sh \
	tests/vm/uml-plugin-pppd25.sh
if RUN_VM_TESTS
TESTS += $(VM_TESTS)
endif
EXTRA_DIST += $(VM_TESTS)
# Files, not the directory: a directory would also pull the build tree's
# test logs into the tarball.
EXTRA_DIST += \
	tests/vm/fetch-kernels.sh tests/vm/debian-image.sh tests/vm/vm-common.sh tests/vm/guest-lib.sh \
	tests/vm/uml-run.sh tests/vm/uml-init.sh \
	tests/vm/qemu-run.sh tests/vm/qemu-init.sh \
	tests/vm/guest/pppd-pair.sh tests/vm/guest/threadirqs.sh \
	tests/vm/guest/irdad-pppd.sh tests/vm/guest/ppp-lib.sh \
	tests/vm/guest/plugin-irnet.sh

# uml-plugin-pppd25.sh builds pppd 2.5.2 and a second configuration of this
# tree against it inside the build tree.
clean-local: clean-local-pppd25
clean-local-pppd25:
	rm -rf ppp-2.5.2 ppp-2.5.2-stage build-pppd25 ppp-2.5.2-build.log
.PHONY: clean-local-pppd25

# `make bench`: PPP over irnet.so against PPP on the raw line (UML).
BENCHMARKS += tests/vm/uml-plugin-bench.sh
bench: pppd-plugin/irnet.la irnet/tools/irdad irnet/tools/irwire
EXTRA_DIST += tests/vm/uml-plugin-bench.sh tests/vm/guest/plugin-bench.sh
