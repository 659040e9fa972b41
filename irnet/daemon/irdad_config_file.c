/*
 * irdad_config_file.c: the host side of irdad's configuration: reading
 * the file, then the sans-I/O parser (irdad_config.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "irdad_config.h"

static int read_config(const char *path, uint8_t **text, size_t *len, char *err,
		       size_t errlen)
{
	int rc = file_read_all(path, IRDAD_CONFIG_FILE_MAX, text, len);
	if (rc == -EFBIG)
		snprintf(err, errlen, "%s: larger than %u bytes", path, IRDAD_CONFIG_FILE_MAX);
	else if (rc < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	return rc;
}

int irdad_config_load(const char *path, const struct irdad_overrides *ov,
		      struct irdad_config *out, char *err, size_t errlen)
{
	uint8_t *text = NULL;
	size_t len = 0;
	int rc;

	if (path && (rc = read_config(path, &text, &len, err, errlen)) < 0)
		return rc;
	rc = irdad_config_build(text, len, path, ov, out, err, errlen);
	free(text);
	return rc;
}

int irdad_config_reload(struct irdad_config *cur, const char *path,
			const struct irdad_overrides *ov, struct irdad_config_diff *d,
			char *err, size_t errlen)
{
	uint8_t *text = NULL;
	size_t len = 0;
	int rc;

	if (path && (rc = read_config(path, &text, &len, err, errlen)) < 0)
		return rc;
	rc = irdad_config_reload_text(cur, text, len, path, ov, d, err, errlen);
	free(text);
	return rc;
}
