/*
 * irdad_config.h: irdad's configuration: /etc/irnet/irdad.conf
 * (irdad.conf(5)) and the command-line options that override it.
 *
 * Owns: the configuration model (struct irdad_config: the port, the
 * station we announce, privileges and paths, link management, logging,
 * and one endpoint per [ircomm NAME] or [irnet NAME] section), its
 * defaults and limits, the sans-I/O parser (text in through struct
 * cursor, errors out as "FILE:LINE: KEY VALUE: what was expected"), the
 * command-line overrides (same keys, same value syntax, errors named by
 * the option), the checks that need the whole configuration, and the
 * comparison a reload needs (which endpoints were added, removed or
 * changed, which global keys changed and which of those only a restart
 * can apply), and writing a configuration back out in the same syntax.
 *
 * Does not own: opening the port, ptys, sockets or syslog, dropping
 * privileges, or acting on a diff (the daemon does).  Only the loader
 * at the end of this header touches the file system (it reads the file).
 *
 * Nothing half-applied: every function that can fail writes only to a
 * configuration the caller has not handed in as const, and the reload
 * helpers build the new configuration aside and copy it over the current
 * one only once every check has passed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef IRNET_IRDAD_CONFIG_H
#define IRNET_IRDAD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irlap_frame.h"
#include "log.h"

#define IRDAD_CONFIG_PATH "/etc/irnet/irdad.conf"
#define IRDAD_CONFIG_FILE_MAX (64u * 1024u) /* bytes the loader reads */

#define IRDAD_VALUE_MAX 255       /* bytes in one value, after unquoting */
#define IRDAD_PATH_MAX (IRDAD_VALUE_MAX + 1)
#define IRDAD_SOCKET_PATH_MAX 107 /* sun_path less its NUL */
/* hostcli's limit, so that one nickname works in every program (Linux
 * kept 21 bytes; irda-digest 4.3). */
#define IRDAD_NICKNAME_MAX (IRLAP_NICKNAME_MAX - 10)
#define IRDAD_DONGLE_SPEC_MAX 127
#define IRDAD_ACCOUNT_MAX 32      /* a user or group name */
#define IRDAD_NAME_MAX 15         /* an endpoint's name */
#define IRDAD_ENDPOINTS_MAX 32
#define IRDAD_OVERRIDES_MAX 32
#define IRDAD_LINE_CLI UINT32_MAX /* key_line[]: set on the command line */

/* min_tat_us: ask for what the dongle needs (STATION_MIN_TAT_DONGLE). */
#define IRDAD_MIN_TAT_DONGLE (-1L)

/* The global keys, in the order irdad.conf(5) lists them. */
enum irdad_key {
	IRDAD_KEY_DEVICE,
	IRDAD_KEY_DONGLE,
	IRDAD_KEY_SPEED,
	IRDAD_KEY_MIN_TAT,
	IRDAD_KEY_NICKNAME,
	IRDAD_KEY_HINTS,
	IRDAD_KEY_IAS_NAME,
	IRDAD_KEY_USER,
	IRDAD_KEY_GROUP,
	IRDAD_KEY_SOCKET,
	IRDAD_KEY_SOCKET_MODE,
	IRDAD_KEY_LOCK_DIR,
	IRDAD_KEY_SECCOMP,
	IRDAD_KEY_DISCOVERY,
	IRDAD_KEY_IDLE,
	IRDAD_KEY_LOG,
	IRDAD_KEY_LOG_LEVEL,
	IRDAD_KEY_PCAP,
	IRDAD_KEY_COUNT
};

enum irdad_log_target { IRDAD_LOG_SYSLOG, IRDAD_LOG_STDERR };
enum irdad_service { IRDAD_SVC_IRCOMM, IRDAD_SVC_IRNET };
enum irdad_role { IRDAD_ROLE_LISTEN, IRDAD_ROLE_CALL };
enum irdad_peer_kind { IRDAD_PEER_ANY, IRDAD_PEER_NICKNAME, IRDAD_PEER_ADDRESS };
/* IrCOMM service types (irda-digest 7.1).  AUTO: a caller takes the best
 * the peer offers (9-wire, 3-wire, 3-wire raw); a listener offers 9-wire
 * and 3-wire cooked. */
enum irdad_wire { IRDAD_WIRE_AUTO, IRDAD_WIRE_9, IRDAD_WIRE_3, IRDAD_WIRE_3_RAW };

/* The keys of an endpoint section. */
enum irdad_ep_key {
	IRDAD_EP_KEY_ROLE,
	IRDAD_EP_KEY_PEER,
	IRDAD_EP_KEY_WIRE,
	IRDAD_EP_KEY_PTY,
	IRDAD_EP_KEY_RECONNECT,
	IRDAD_EP_KEY_COUNT
};

/* Hint bits (irda-digest 4.3) as one number: the first byte in bits
 * 15..8, the second in bits 7..0, extension bits (0x8000, 0x0080) left
 * out: irdad_config_hint_bytes() sets them. */
#define IRDAD_HINT_PNP 0x0100u
#define IRDAD_HINT_PDA 0x0200u
#define IRDAD_HINT_COMPUTER 0x0400u
#define IRDAD_HINT_PRINTER 0x0800u
#define IRDAD_HINT_MODEM 0x1000u
#define IRDAD_HINT_FAX 0x2000u
#define IRDAD_HINT_LAN 0x4000u
#define IRDAD_HINT_TELEPHONY 0x0001u
#define IRDAD_HINT_FILESERVER 0x0002u
#define IRDAD_HINT_IRCOMM 0x0004u
#define IRDAD_HINT_MESSAGE 0x0008u
#define IRDAD_HINT_HTTP 0x0010u
#define IRDAD_HINT_OBEX 0x0020u

struct irdad_peer {
	enum irdad_peer_kind kind;
	uint32_t address;                       /* ADDRESS */
	char nickname[IRDAD_NICKNAME_MAX + 1];  /* NICKNAME */
};

struct irdad_endpoint {
	enum irdad_service service;
	char name[IRDAD_NAME_MAX + 1];
	enum irdad_role role;
	struct irdad_peer peer;       /* role call only */
	enum irdad_wire wire;         /* ircomm only */
	char pty_link[IRDAD_PATH_MAX];
	bool reconnect;               /* role call only */
	/* lines of its [section] header and of each key (0: default);
	 * not compared */
	uint32_t line;
	uint32_t key_line[IRDAD_EP_KEY_COUNT];
};

/*
 * The whole configuration.  Strings are NUL-terminated and zero-filled
 * after the NUL, so two configurations compare with memcmp field by
 * field.  "" means none for lock_dir and pcap.
 */
struct irdad_config {
	char device[IRDAD_PATH_MAX];            /* required: absolute, or usb[:...] */
	char dongle[IRDAD_DONGLE_SPEC_MAX + 1]; /* dongle_init() spec */
	uint32_t speed;                         /* highest rate offered */
	long min_tat_us;                        /* IRDAD_MIN_TAT_DONGLE, 0..10000 */
	char nickname[IRDAD_NICKNAME_MAX + 1];  /* printable ASCII */
	uint16_t hints;                         /* IRDAD_HINT_* before services */
	char ias_name[IRDAD_VALUE_MAX + 1];     /* IAS Device.DeviceName */
	char user[IRDAD_ACCOUNT_MAX + 1];
	char group[IRDAD_ACCOUNT_MAX + 1];      /* of the socket */
	char socket[IRDAD_SOCKET_PATH_MAX + 1];
	uint32_t socket_mode;                   /* 0..0777 */
	char lock_dir[IRDAD_PATH_MAX];
	bool seccomp;
	uint32_t discovery_ms;                  /* 0: discovery on demand */
	uint32_t idle_ms;                       /* link kept after last use */
	enum irdad_log_target log;
	enum log_level log_level;
	char pcap[IRDAD_PATH_MAX];
	size_t nendpoints;
	struct irdad_endpoint ep[IRDAD_ENDPOINTS_MAX];
	/* Where each global key was set: its line in the file, 0 for the
	 * default (or derived), IRDAD_LINE_CLI for an option; not compared. */
	uint32_t key_line[IRDAD_KEY_COUNT];
};

/* The defaults (irdad.conf(5)); no device, no endpoint. */
void irdad_config_defaults(struct irdad_config *cfg);

/* The name of a key in the file, which is also its long option. */
const char *irdad_key_name(enum irdad_key key);
/* Whether a running irdad can take a new value on SIGHUP: discovery,
 * idle-timeout, log-level.  Any other change needs a restart. */
bool irdad_key_reloadable(enum irdad_key key);
const char *irdad_service_name(enum irdad_service s); /* "ircomm", "irnet" */
const char *irdad_wire_name(enum irdad_wire w);       /* "auto", "9wire", ... */

/*
 * Parses a whole file's text (file names it in messages) into out,
 * which is first set to the defaults.  Does not run the checks that
 * need the whole configuration (irdad_config_finish: the device, the
 * rate against the dongle, derived paths), so that the command line can
 * still complete it.  Returns 0, or -EINVAL with "FILE:LINE: message" in
 * err; out is then unspecified (never the caller's current config).
 */
int irdad_config_parse(const void *text, size_t len, const char *file,
		       struct irdad_config *out, char *err, size_t errlen);

/*
 * Command-line overrides: the daemon maps each option to a global key
 * of the same name ("--speed 57600" -> speed) and records it; they are
 * applied after the file, in order, and again after every reload.  The
 * strings are not copied (argv outlives them).
 */
struct irdad_override {
	enum irdad_key key;
	const char *value;
};
struct irdad_overrides {
	size_t n;
	struct irdad_override o[IRDAD_OVERRIDES_MAX];
};
/* Records "--name value".  -EINVAL (unknown key name) or -E2BIG, with
 * the reason in err. */
int irdad_overrides_add(struct irdad_overrides *ov, const char *name, const char *value,
			char *err, size_t errlen);
/* Sets the overridden keys on cfg; a bad value gives -EINVAL with
 * "--KEY VALUE: what was expected" in err (cfg is then unspecified). */
int irdad_config_apply_overrides(struct irdad_config *cfg, const struct irdad_overrides *ov,
				 char *err, size_t errlen);

/*
 * The checks that need the whole configuration, and the derived
 * defaults: a device is given; the dongle spec is valid and offers the
 * speed; socket defaults to /run/irnet/BASENAME(device).sock and
 * ias-name to the nickname; pty links are distinct and are not the
 * socket.  file names the configuration in messages ("FILE:LINE: ..."
 * for a key set in it, "--KEY ..." for an option).  0 or -EINVAL.
 */
int irdad_config_finish(struct irdad_config *cfg, const char *file, char *err,
			size_t errlen);

/* Parse, overrides (may be NULL), finish: what the daemon checks at
 * start-up and on SIGHUP.  0 or -EINVAL with err. */
int irdad_config_build(const void *text, size_t len, const char *file,
		       const struct irdad_overrides *ov, struct irdad_config *out,
		       char *err, size_t errlen);

/* The hint bytes to announce: the configured hints, plus IrCOMM for a
 * listening ircomm endpoint (and Printer for a 3-wire raw one), plus
 * LAN for a listening irnet endpoint; extension bits set.  Returns the
 * number of bytes (1 or 2). */
size_t irdad_config_hint_bytes(const struct irdad_config *cfg, uint8_t out[2]);

/* Writes cfg in irdad.conf syntax, every key spelt out (for irdad's
 * check mode and for tests: parsing it back gives the same values).
 * Returns the length written (NUL not counted), or -ENOSPC if cap is too
 * small; IRDAD_CONFIG_FILE_MAX bytes always suffice. */
long irdad_config_write(const struct irdad_config *cfg, char *buf, size_t cap);

/* Index of the endpoint with this name, or -1. */
int irdad_config_find(const struct irdad_config *cfg, const char *name);

/* --- reload ------------------------------------------------------------ */

enum irdad_ep_change {
	IRDAD_EP_KEPT,     /* same service, name and settings: leave it running */
	IRDAD_EP_ADDED,    /* new: start it */
	IRDAD_EP_CHANGED,  /* same service and name, new settings: restart it */
	IRDAD_EP_REMOVED,  /* gone (old side only): stop it */
};

struct irdad_config_diff {
	/* per endpoint of the new config: KEPT, ADDED or CHANGED, and the
	 * index of the same-named endpoint in the old one (-1 if added) */
	enum irdad_ep_change new_ep[IRDAD_ENDPOINTS_MAX];
	int old_index[IRDAD_ENDPOINTS_MAX];
	/* per endpoint of the old config: KEPT, CHANGED or REMOVED */
	enum irdad_ep_change old_ep[IRDAD_ENDPOINTS_MAX];
	size_t added, removed, changed;
	uint32_t keys_changed;   /* bit (1 << enum irdad_key) per global key */
	uint32_t keys_kept;      /* of those, the ones a reload leaves as they were */
};

/* Compares two configurations (values only, never line numbers).  An
 * endpoint is the same one when its service and name match. */
void irdad_config_diff(const struct irdad_config *old, const struct irdad_config *new_cfg,
		       struct irdad_config_diff *d);

/*
 * SIGHUP: builds the new configuration from text (with the overrides)
 * aside, keeps the current value of every global key a running daemon
 * cannot change (reported in d->keys_kept, for a warning), checks the
 * result, and only then copies it over *cur.  On any error returns
 * -EINVAL (or -ENOMEM) with err, and *cur is byte for byte as it was.
 */
int irdad_config_reload_text(struct irdad_config *cur, const void *text, size_t len,
			     const char *file, const struct irdad_overrides *ov,
			     struct irdad_config_diff *d, char *err, size_t errlen);

/* --- host side: reading the file ------------------------------------------ */

/* Reads path (at most IRDAD_CONFIG_FILE_MAX bytes) and builds out from
 * it.  path NULL: no file, defaults and overrides only.  0, or -errno
 * with "PATH: reason" or the parser's message in err. */
int irdad_config_load(const char *path, const struct irdad_overrides *ov,
		      struct irdad_config *out, char *err, size_t errlen);
/* irdad_config_reload_text() on the file's content. */
int irdad_config_reload(struct irdad_config *cur, const char *path,
			const struct irdad_overrides *ov, struct irdad_config_diff *d,
			char *err, size_t errlen);

#endif
