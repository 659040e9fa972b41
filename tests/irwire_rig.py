"""irwire_rig.py: an irwire for the Python parts of the test and bench
scripts: start one, and open its pseudo-terminals raw at a speed."""
import os
import subprocess
import termios
import tty


def start(irwire, args=()):
    """Starts irwire with args; returns the process and {"a": pty, "b": pty}."""
    proc = subprocess.Popen([irwire, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    ptys = {}
    while len(ptys) < 2:
        side, path = proc.stdout.readline().split()
        ptys[side] = path
    return proc, ptys


def open_raw(path, speed=termios.B115200):
    """Opens a pty raw (8N1, no echo) at speed; returns the descriptor."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    attrs = termios.tcgetattr(fd)
    attrs[4] = attrs[5] = speed
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    return fd
