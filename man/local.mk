# man/: one page per program, plugin and config file.  Every page listed
# in MAN_PAGES is installed and linted by tests/man-lint.tap.
MAN_PAGES = man/irnet-tools.7
dist_man_MANS += $(MAN_PAGES)
