"""The random engine, slowed down: each genmove waits ``--delay`` seconds first.

Games then last long enough to be seen in progress (and to be stopped) in the
terminal tests, without costing CPU.  Usage: ``python paced_engine.py --delay
0.03 [random engine options]``.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from engines import random as random_engine


def main(argv: list[str]) -> int:
    delay = 0.0
    if argv[:1] == ["--delay"]:
        delay, argv = float(argv[1]), argv[2:]
    genmove = random_engine.RandomEngine.handle_genmove

    def paced(self: random_engine.RandomEngine, args: tuple[str, ...]) -> str:
        time.sleep(delay)
        return genmove(self, args)

    random_engine.RandomEngine.handle_genmove = paced  # type: ignore[method-assign]
    return random_engine.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
