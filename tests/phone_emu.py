"""tests/phone_emu.py TTY [LOG]: a small GSM phone on a serial line, as
an IrCOMM phone looks to gammu or chat: it answers the AT commands of
identification (3GPP TS 27.007: +CGMI, +CGMM, +CGMR, +CGSN, ...) with
fixed, recognisable values, echoes while ATE1, says ERROR to what it does
not know, and logs every command it got to LOG.  Runs until the line
hangs up or it is killed."""
import os
import sys
import termios
import tty

MANUFACTURER = "IrnetTestPhones"
MODEL = "IRP-7110"
REVISION = "V 5.31 01-12-26 NPM-5"
IMEI = "490154203237518"

ANSWERS = {
    "": ["OK"],
    "Z": ["OK"],
    "&F": ["OK"],
    "+CMEE=1": ["OK"],
    "+CMEE=2": ["OK"],
    "+CGMI": [MANUFACTURER, "OK"],
    "+GMI": [MANUFACTURER, "OK"],
    "+CGMM": [MODEL, "OK"],
    "+GMM": [MODEL, "OK"],
    "+CGMR": [REVISION, "OK"],
    "+GMR": [REVISION, "OK"],
    "+CGSN": [IMEI, "OK"],
    "+GSN": [IMEI, "OK"],
    "I": [MANUFACTURER + " " + MODEL, "OK"],
    "+CSCS=?": ['+CSCS: ("GSM","UCS2","IRA")', "OK"],
    "+CSCS?": ['+CSCS: "GSM"', "OK"],
    "+CPIN?": ["+CPIN: READY", "OK"],
    "+CIMI": ["244123456789012", "OK"],
    "+CFUN=1": ["OK"],
    "+CFUN?": ["+CFUN: 1", "OK"],
}


def answer(cmd, state):
    """The lines to send for one command line (without AT and CR)."""
    up = cmd.upper()
    if up.startswith("E") and up[1:] in ("", "0", "1"):
        state["echo"] = up[1:] != "0"
        return ["OK"]
    if up in ANSWERS:
        return ANSWERS[up]
    if up.startswith("+CSCS="):
        return ["OK"]
    return ["ERROR"]


def main():
    path = sys.argv[1]
    log = open(sys.argv[2], "a", buffering=1) if len(sys.argv) > 2 else None
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd, termios.TCSANOW)
    state = {"echo": True}
    line = b""
    while True:
        try:
            data = os.read(fd, 256)
        except OSError:
            break
        if not data:
            break
        for b in data:
            c = bytes([b])
            if state["echo"]:
                os.write(fd, c)
            if c == b"\r":
                text = line.decode("ascii", "replace").strip()
                line = b""
                if not text.upper().startswith("AT"):
                    continue
                if log:
                    log.write(text + "\n")
                out = answer(text[2:], state)
                os.write(fd, b"".join(b"\r\n" + l.encode() + b"\r\n" for l in out))
            elif c != b"\n":
                line += c


if __name__ == "__main__":
    main()
