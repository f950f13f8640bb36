"""``python -m arena_cli``: the ``arena`` command."""

from __future__ import annotations

import sys

from arena_cli.main import main

sys.exit(main())
