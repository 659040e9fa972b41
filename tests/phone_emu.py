"""tests/phone_emu.py TTY [LOG] [--connect COMMAND...]: a small GSM phone
on a serial line, as an IrCOMM phone looks to gammu or chat: it answers
the AT commands of identification (3GPP TS 27.007: +CGMI, +CGMM, +CGMR,
+CGSN, ...) with fixed, recognisable values, echoes while ATE1, says ERROR
to what it does not know, and logs every command it got to LOG.  A dial
(ATD..., e.g. ATD*99#) answers CONNECT and runs COMMAND (every "{tty}" in
it replaced by TTY: pppd, as the phone's data call) while the line stays
open, then hangs up (exits) when it ends; without --connect a dial gets
NO CARRIER.  Runs until the line hangs up or it is killed."""
import os
import subprocess
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
    args = sys.argv[1:]
    on_connect = []
    if "--connect" in args:
        at = args.index("--connect")
        args, on_connect = args[:at], args[at + 1:]
    path = args[0]
    log = open(args[1], "a", buffering=1) if len(args) > 1 else None
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
                if text[2:3].upper() == "D":
                    if not on_connect:
                        os.write(fd, b"\r\nNO CARRIER\r\n")
                        continue
                    os.write(fd, b"\r\nCONNECT 115200\r\n")
                    cmd = [a.replace("{tty}", path) for a in on_connect]
                    rc = subprocess.call(cmd)
                    if log:
                        log.write("data call ended: %s exited %d\n" % (cmd[0], rc))
                    return
                out = answer(text[2:], state)
                os.write(fd, b"".join(b"\r\n" + l.encode() + b"\r\n" for l in out))
            elif c != b"\n":
                line += c


if __name__ == "__main__":
    main()
