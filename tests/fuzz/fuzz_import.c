/*
 * fuzz_import.c: every importer (with the in-line scan of records, the
 * sessions and the hand-kept table with its Avg./Dev. check), format
 * detection and the result-file reader over arbitrary input.  The first
 * byte chooses the format (or auto-detection, or the result reader) and
 * the flags; the rest is the file's content.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>

#include "import.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t sel = data[0];
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	struct xfer_sets sets;
	struct xfer_error err;
	xfer_sets_init(&sets);
	unsigned choice = sel % (XFER_FORMAT_COUNT + 1);
	if (choice == XFER_FORMAT_COUNT) {
		xfer_sets_load_buffer(&sets, "fuzz", text, len, &err);
	} else {
		struct xfer_import_opts opts = {
			.format = (enum xfer_format)choice,
			.intervals = (sel & 0x40) != 0,
			.size = (sel & 0x80) ? 1048576 : 0,
			.label = (sel & 0x20) ? "L" : NULL,
		};
		struct xfer_import_stats st;
		struct logger log = { NULL, NULL, LOG_LEVEL_DEBUG, NULL };
		bool ok = xfer_import_buffer(&sets, "fuzz", text, len, &opts, &st, &log, &err);
		/* Every line lands in exactly one count, however many runs it
		 * gave; the runs counted are the runs filed (a session cut short
		 * is taken back from both). */
		size_t filed = 0;
		for (size_t i = 0; i < sets.n; i++)
			filed += sets.sets[i].n_runs;
		if (ok && (st.lines != st.run_lines + st.unused + st.unrecognised + st.blank ||
			   filed != st.runs || st.checks_failed > st.n_checks))
			__builtin_trap();
		if (!ok && sets.n != 0)
			__builtin_trap();   /* all or nothing */
		xfer_import_stats_free(&st);
	}
	for (size_t i = 0; i < sets.n; i++)
		for (size_t j = 0; j < sets.sets[i].n_runs; j++)
			if (!(sets.sets[i].runs[j].seconds > 0))
				__builtin_trap();
	xfer_sets_free(&sets);
	return 0;
}
