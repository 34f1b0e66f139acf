#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Retry policies for the HTTP client.

Backoff is exponential, with jitter.
"""

import functools
import random

# How many times a request is tried before giving up.
MAX_ATTEMPTS = 5

TIMEOUT = 30  # a trailing comment is not a doc

#: Seconds added at random to each wait.
JITTER: float = 0.25

RETRY_CODES = (429, 502, 503)
"""Status codes worth another attempt."""

HELP = """
def not_a_function():
    '''Lives in a string.'''
"""


@functools.lru_cache(maxsize=None)
@trace
def backoff(attempt: int,
            base: float = 0.5,  # seconds
            ) -> float:
    '''Seconds to wait before attempt number *attempt*.'''
    def inner():
        """A nested function is a section of its own."""
        return random.random() * JITTER
    return base * 2 ** attempt + inner()


class Policy(Base, metaclass=Meta):
    r"""A retry policy.

        It keeps count of attempts.
    """

    limit = 3

    def __init__(self, limit):
        self.limit = limit

    # Whether another attempt is allowed.
    async def allow(self, n):
        if (left := self.limit - n) > 0:
            return True
        return False

    @property
    def name(self): return "policy"

    class Nested:
        def hidden(self):
            pass


async def fetch(url, *, attempts=MAX_ATTEMPTS):
    msg = f"{url!r} {'}'} {attempts["n"]:>{width}} done"
    match url:
        case "":
            return None
    return msg


def after():
    """Found after the f-string and the match."""
    return b'\x00' + rb"\d" + u'it''s'


if __name__ == "__main__":
    def main():
        pass
