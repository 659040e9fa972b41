# pppd-plugin/: irnet.so, loaded by pppd $(PPPD_VERSION).  pppd refuses a
# plugin built for another version, so it installs into a directory named
# after the version (configure --with-pppd-plugin-dir overrides it).
pppdplugindir = $(PPPD_PLUGIN_DIR)
