# common/: code shared by every part of the toolkit (no IrDA in here):
# the bounds-checked cursor, the logger, growing arrays, reading files.
noinst_LTLIBRARIES += common/libcommon.la
common_libcommon_la_SOURCES = \
	common/cursor.c common/cursor.h \
	common/log.c common/log.h \
	common/array.c common/array.h \
	common/fileio.c common/fileio.h
common_libcommon_la_LIBADD = -lm
