/*
 * fuzz_irdad_config.c: irdad.conf's parser and checks over arbitrary
 * bytes.  A refusal must say why, naming the file; an accepted file must
 * give a configuration that keeps the documented limits, equals itself
 * in the reload comparison, reads back the same from what
 * irdad_config_write() makes of it, and reloads onto itself unchanged.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irdad_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const char *s, size_t cap)
{
	if (!memchr(s, '\0', cap))
		abort();
}

static void check_endpoint(const struct irdad_config *c, size_t i)
{
	const struct irdad_endpoint *ep = &c->ep[i];
	check_string(ep->name, sizeof(ep->name));
	check_string(ep->pty_link, sizeof(ep->pty_link));
	check_string(ep->peer.nickname, sizeof(ep->peer.nickname));
	if (!ep->name[0] || ep->pty_link[0] != '/' || irdad_config_find(c, ep->name) != (int)i)
		abort();
	if (ep->role != IRDAD_ROLE_CALL && (ep->peer.kind != IRDAD_PEER_ANY || ep->reconnect))
		abort();
	if (ep->peer.kind == IRDAD_PEER_ADDRESS &&
	    (ep->peer.address == 0 || ep->peer.address == 0xffffffffu))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct irdad_config c, again;
	static char text[IRDAD_CONFIG_FILE_MAX];
	struct irdad_config_diff d;
	char err[600];
	uint8_t hints[2];

	err[0] = '\0';
	if (irdad_config_build(data, size, "f.conf", NULL, &c, err, sizeof(err)) != 0) {
		if (!memchr(err, '\0', sizeof(err)) || strncmp(err, "f.conf", 6) != 0)
			abort();   /* every refusal names the file */
		return 0;
	}
	check_string(c.device, sizeof(c.device));
	check_string(c.nickname, sizeof(c.nickname));
	check_string(c.socket, sizeof(c.socket));
	if (c.device[0] != '/' || c.socket[0] != '/' || strlen(c.nickname) > IRDAD_NICKNAME_MAX ||
	    c.nendpoints > IRDAD_ENDPOINTS_MAX || c.socket_mode > 0777 || c.min_tat_us > 10000)
		abort();
	for (size_t i = 0; i < c.nendpoints; i++)
		check_endpoint(&c, i);
	size_t n = irdad_config_hint_bytes(&c, hints);
	if (n != 1 && n != 2)
		abort();
	irdad_config_diff(&c, &c, &d);
	if (d.added || d.removed || d.changed || d.keys_changed)
		abort();
	/* written out, it reads back to the same values */
	long len = irdad_config_write(&c, text, sizeof(text));
	if (len < 0 || irdad_config_build(text, (size_t)len, "w.conf", NULL, &again, err,
					  sizeof(err)) != 0)
		abort();
	irdad_config_diff(&c, &again, &d);
	if (d.added || d.removed || d.changed || d.keys_changed || again.nendpoints != c.nendpoints)
		abort();
	memcpy(&again, &c, sizeof(c));
	if (irdad_config_reload_text(&again, data, size, "f.conf", NULL, &d, err, sizeof(err)) != 0 ||
	    memcmp(&again, &c, sizeof(c)) != 0 || d.keys_kept != 0)
		abort();
	return 0;
}
