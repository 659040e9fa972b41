# man/: one page per program, plugin and config file.  Each part appends
# its pages to dist_man_MANS in its own fragment; tests/man-lint.tap lints
# every page in man/.
dist_man_MANS += man/irnet-tools.7
