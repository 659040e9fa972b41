# demo/: `./bootstrap.sh demo` (demo/demo.sh and its UML guest part), and
# its test: tests/demo-run.sh runs the whole demo (about 2.5 minutes of
# check's time: real-time serial links) and checks each step's result.
EXTRA_DIST += demo/demo.sh demo/guest-ppp.sh demo/at_chat.py
if RUN_VM_TESTS
TESTS += tests/demo-run.sh
endif
EXTRA_DIST += tests/demo-run.sh

# What `demo/demo.sh` leaves when run by hand (the plot, the guest's log).
clean-local: clean-local-demo
clean-local-demo:
	rm -rf demo-out
.PHONY: clean-local-demo
