"""Time ceilings that hold on a busy machine (the Python side of
tests/ceiling.sh).

A test waits for events; where it must give up, it gives up at a ceiling
far above what the wait takes on an idle machine, multiplied by
IRNET_TEST_SLOWDOWN (a positive number, 1 when unset; bootstrap.sh check
measures it with tests/slowdown.sh), so no test fails for running slowly.

SPDX-License-Identifier: GPL-2.0-or-later
"""
import os
import sys


def slowdown():
    text = os.environ.get("IRNET_TEST_SLOWDOWN", "") or "1"
    try:
        factor = float(text)
    except ValueError:
        factor = 0.0
    if not factor > 0:
        print(f'IRNET_TEST_SLOWDOWN="{text}" is not a positive number: using 1',
              file=sys.stderr)
        factor = 1.0
    return factor


def ceiling(seconds):
    """seconds x IRNET_TEST_SLOWDOWN."""
    return seconds * slowdown()
