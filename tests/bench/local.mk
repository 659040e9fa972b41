# tests/bench/: benchmarks run by `make bench`.  Each prints lines of the
# form `bench: NAME VALUE UNIT`; ratios are measured side by side in one
# run.  A benchmark fails only on a real error, never on a timing.
