"""Dies in the middle of one command (argv[2], default genmove).

argv[1]: exit3 (os._exit(3)), segv (SIGSEGV to itself), partial
(writes = D and no end, then exits 0).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import os
import signal

from tests.fakes._engine import serve


def crash(_command: object) -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "exit3"
    if mode == "segv":
        signal.signal(signal.SIGSEGV, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "partial":
        sys.stdout.buffer.write(b"= D")
        sys.stdout.buffer.flush()
        os._exit(0)
    os._exit(3)


if __name__ == "__main__":
    serve({sys.argv[2] if len(sys.argv) > 2 else "genmove": crash})
