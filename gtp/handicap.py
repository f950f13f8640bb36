"""Fixed handicap placement as the GTP spec's §4.1.1 table defines it.

Defined for board sizes 7..25: at most 4 stones on 7x7 and on even sizes, up to
9 on odd sizes from 9 up, never fewer than 2.  Boards below 13 use the third
line, larger ones the fourth.  The order is the spec's: the four corners (lower
left, upper right, upper left, lower right), then the left and right sides, then
the bottom and top sides, with the centre last for the odd counts 5, 7 and 9.
"""

from __future__ import annotations

from typing import Final

from gtp.vertex import Point, check_board_size

MIN_FIXED_HANDICAP_SIZE: Final = 7
MIN_HANDICAP_STONES: Final = 2


def max_fixed_handicap(size: int) -> int:
    """The largest fixed handicap the spec defines for ``size`` (0 below 7x7)."""
    check_board_size(size)
    if size < MIN_FIXED_HANDICAP_SIZE:
        return 0
    if size == MIN_FIXED_HANDICAP_SIZE or size % 2 == 0:
        return 4
    return 9


def fixed_handicap_points(size: int, stones: int) -> list[Point]:
    """The spec's points for ``stones`` handicap stones; ValueError when undefined."""
    limit = max_fixed_handicap(size)
    if limit == 0:
        raise ValueError(f"fixed handicap is not defined on a {size}x{size} board")
    if not MIN_HANDICAP_STONES <= stones <= limit:
        raise ValueError(
            f"invalid number of handicap stones for {size}x{size}: {stones}"
            f" (allowed {MIN_HANDICAP_STONES}..{limit})"
        )
    near = 2 if size < 13 else 3  # the third or the fourth line
    far = size - 1 - near
    middle = size // 2
    corners = [(near, near), (far, far), (far, near), (near, far)]
    left_right = [(middle, near), (middle, far)]
    bottom_top = [(near, middle), (far, middle)]
    centre = [(middle, middle)]
    layouts: dict[int, list[Point]] = {
        2: corners[:2],
        3: corners[:3],
        4: corners,
        5: corners + centre,
        6: corners + left_right,
        7: corners + left_right + centre,
        8: corners + left_right + bottom_top,
        9: corners + left_right + bottom_top + centre,
    }
    return layouts[stones]
