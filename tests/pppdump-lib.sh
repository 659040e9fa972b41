# tests/pppdump-lib.sh: pppdump -p (pppd's own reader of async HDLC in
# its record files: flags, escapes, FCS) for the TAP scripts (sourced
# after lib.sh).

# Sets PPPDUMP, or skips the whole script.
pppdump_find() {
	PPPDUMP=$(command -v pppdump 2>/dev/null || true)
	[ -n "$PPPDUMP" ] || { [ -x /usr/sbin/pppdump ] && PPPDUMP=/usr/sbin/pppdump; }
	[ -n "$PPPDUMP" ] || tap_skip_all "pppdump not found (apt-get install ppp)"
}

# pppdump_packets OUT NOTES: the packets of pppdump's output OUT in hex,
# one a line, on stdout; every other line of OUT goes to NOTES.
# pppdump prints each packet as "sent  " or "rcvd  " and up to 16 hex
# bytes in a 48-column field, continuation lines indented by 6 spaces,
# then an ASCII column; anything else (BAD FCS, partial packet ...) is a
# complaint.
pppdump_packets() {
	awk -v notes="$2" '
	/^(sent|rcvd)  / { if (started) print pkt; pkt = ""; started = 1; hex() ; next }
	/^      [0-9a-f][0-9a-f] / { hex(); next }
	{ print > notes }
	function hex(   s, n, i, f) {
		s = substr($0, 7, 48); n = split(s, f, " ")
		for (i = 1; i <= n; i++) pkt = pkt (pkt == "" ? "" : " ") f[i]
	}
	END { if (started) print pkt }' "$1"
}
