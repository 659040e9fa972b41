# tests/vm/: tests that need a kernel this machine lacks (PPP, 8250 UART,
# threaded IRQs): user-mode Linux and QEMU TCG runners.  See
# docs/vm-testing.md.
