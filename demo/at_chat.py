"""demo/at_chat.py TTY COMMAND...: sends each AT command to a modem on
TTY and prints it ("> AT...") with the modem's answer lines ("< ...")
until its final OK or ERROR; exits 1 if an answer does not come within
10 s or is ERROR.  Used by demo/demo.sh, step 2."""
import os
import select
import sys
import termios
import time
import tty


def chat(fd, cmd):
    os.write(fd, cmd.encode() + b"\r")
    print("> " + cmd)
    buf = b""
    deadline = time.time() + 10
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            buf += os.read(fd, 256)
        lines = [l.strip() for l in buf.decode("ascii", "replace").split("\r\n")]
        final = [l for l in lines if l in ("OK", "ERROR")]
        if final:
            for l in lines:
                if l and l != cmd:  # without the echo
                    print("< " + l)
            return final[0] == "OK"
    print("no answer to %s within 10 s" % cmd)
    return False


def main():
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd, termios.TCSANOW)
    ok = all(chat(fd, c) for c in sys.argv[2:])
    os.close(fd)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
