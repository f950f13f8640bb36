"""Prior knowledge for new tree nodes (Gelly & Silver 2011, §5) and PUCT priors.

Owns the heuristics that give every move of a newly expanded node an initial
value and a confidence measured in *equivalent experience* (virtual
simulations): ``n`` visits of which ``w`` were wins for the player making the
move.  The search adds them to both the Monte-Carlo and the AMAF statistics.

* ``even``: every move starts at 0.5 with the base confidence (the "even-game"
  heuristic: positions between competent players are usually close).
* ``grandfather``: a move starts at the value the same move had two plies up,
  where the same player was to move (the search supplies that node); moves it
  never tried start even.
* ``heuristic``: hand-written Go knowledge on top of the even prior, each rule
  adding wins or losses in units of the base confidence: capturing (more for
  several stones), saving a chain in atari, putting an opponent chain in atari,
  a 3x3 shape of the playout policy, closeness to the last move, and more
  for an atari that the opponent cannot escape because the chain dies in a
  ladder; a big self-atari (unless it is a sacrifice that puts a bigger
  chain in atari: ``sacrifice``, 0 by default), extending a chain in atari
  into a ladder, and first- or second-line moves in an empty area, count as
  losses while moves from the third line in count as wins there, and from the
  fourth line in (the central 3x3 of 9x9, where the first move of a 9x9 game
  belongs) more.

The same heuristic gives PUCT its prior probabilities (:func:`puct_priors`).
What a new node starts with as a whole, its moves and their priors, is
:func:`list_moves` (the search, and the playout workers for the nodes they
are asked to expand).  Everything here is pure and reads the board without
changing it.
"""

from __future__ import annotations

import functools
import math
from array import array
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

import attrs
from librt.vecs import vec
from mypy_extensions import i64

from engines.mcts.fastboard import KEY_5, KEY_9, NATIVE, PASS, FastBoard, int_array, int_table
from engines.mcts.patterns import pattern_table, true_eye_tables
from engines.mcts.tactics import (
    atari_sacrifice,
    extension_dies,
    is_legal,
    ladder_caught,
    liberties_after,
    liberty_count,
    lone_liberty,
    self_atari,
)

if TYPE_CHECKING:
    from engines.mcts.config import SearchConfig

PriorName = Literal["none", "even", "grandfather", "heuristic"]
PRIOR_NAMES: Final = ("none", "even", "grandfather", "heuristic")


@attrs.frozen
class PriorWeights:
    """Weights of the heuristic's rules, in units of the base confidence
    (``pass_rate`` is the win rate a pass starts with).  Tunable from the
    command line (``--prior-weights shape=1.5,atari=0``), e.g. by the arena's
    Monte Carlo tuner (``examples/tune_priors.ctl``)."""

    capture_one: float = 1.0  # wins for capturing one stone ...
    capture_many: float = 2.0  # ... or several
    save: float = 1.0  # saving a chain in atari (when it gains liberties)
    atari: float = 0.5  # putting an opponent chain in atari
    shape: float = 1.0  # a 3x3 shape of the playout policy
    near_last: float = 1.0  # next to the last move
    self_atari: float = 1.5  # losses for a big self-atari ...
    sacrifice: float = 0.0  # ... or, instead, for one that puts a bigger chain in atari
    empty_edge: float = 1.0  # losses for the first line in an empty area
    empty_second: float = 0.5  # losses for the second line there
    empty_good: float = 0.5  # wins for the third line and in from it there
    empty_centre: float = 1.0  # more wins for the fourth line and in from it there
    pass_rate: float = 0.1  # passing is rarely right while moves remain
    ladder_atari: float = 1.5  # wins for an atari whose chain then dies in a ladder
    ladder_save: float = 3.0  # losses (instead of ``save``) for extending into a ladder

    def __str__(self) -> str:
        """The weights that differ from the defaults, as ``--prior-weights`` takes them."""
        default = PriorWeights()
        return ",".join(
            f"{field.name}={getattr(self, field.name):g}"
            for field in attrs.fields(PriorWeights)
            if getattr(self, field.name) != getattr(default, field.name)
        )

    def __attrs_post_init__(self) -> None:
        for field in attrs.fields(PriorWeights):
            value = getattr(self, field.name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"prior weight {field.name} must be a number >= 0")
        if self.pass_rate > 1:
            raise ValueError("prior weight pass_rate is a win rate: at most 1")


def prior_weights(value: PriorWeights | Mapping[str, Any] | str) -> PriorWeights:
    """Weights from ``name=value,...`` (the rest at their defaults), a mapping, or as they are."""
    if isinstance(value, PriorWeights):
        return value
    if isinstance(value, str):
        items: dict[str, Any] = {}
        for word in (w.strip() for w in value.split(",")):
            if not word:
                continue
            name, sep, number = word.partition("=")
            try:
                if not sep:
                    raise ValueError
                items[name.strip().replace("-", "_")] = float(number)
            except ValueError:
                raise ValueError(f"prior weights: expected NAME=NUMBER, not {word!r}") from None
        value = items
    known = {field.name for field in attrs.fields(PriorWeights)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise ValueError(f"unknown prior weight {unknown[0]!r} (known: {', '.join(sorted(known))})")
    return PriorWeights(**value)


DEFAULT_WEIGHTS: Final = PriorWeights()


@functools.cache
def _edge_lines(size: int) -> tuple[vec[i64], vec[vec[i64]]]:
    """Per point index: its line (1 = edge) and the points within Manhattan distance 3
    (board arrays: native compiled, see :func:`~engines.mcts.fastboard.int_array`)."""
    from engines.mcts.fastboard import geometry

    geo = geometry(size)
    cells = geo.cells
    line = [0] * cells
    near: list[tuple[int, ...]] = [()] * cells
    coords = {geo.index((r, c)): (r, c) for r in range(size) for c in range(size)}
    for p, (r, c) in coords.items():
        line[p] = min(r, c, size - 1 - r, size - 1 - c) + 1
        near[p] = tuple(
            q for q, (r2, c2) in coords.items() if q != p and abs(r - r2) + abs(c - c2) <= 3
        )
    return int_array(line), int_table(near)


def even_priors(moves: Sequence[int], confidence: float) -> list[tuple[float, float]]:
    """(visits, wins) for every move: 0.5 with the base confidence."""
    half = confidence / 2
    return [(confidence, half) for _ in moves]


def heuristic_priors(
    board: FastBoard,
    moves: Sequence[int],
    confidence: float,
    weights: PriorWeights = DEFAULT_WEIGHTS,
) -> list[tuple[float, float]]:
    """(visits, wins) for the player to move at each of ``moves`` (see the module doc)."""
    c = board.to_move
    o = 3 - c
    color = board.color
    head = board.head
    nxt = board.nxt
    csize = board.csize
    lkey = board.lkey
    pat = board.pat
    geo = board.geo
    nb = geo.neighbours
    # At most 4 and at most 8 pseudo-liberties: ``lkey`` below these (keys compiled,
    # counts interpreted: see LIB_COUNT)
    key5: i64 = KEY_5 if NATIVE else 5
    key9: i64 = KEY_9 if NATIVE else 9
    around = geo.around
    shapes = pattern_table()
    eyes = true_eye_tables()[c]
    line, near = _edge_lines(geo.size)
    last = board.last_move
    # the points around the last move, marked on a board array (compiled, a native
    # load a move, where a set of boxed points took a hash lookup)
    near_last = geo.zeros[:]
    if last != PASS:
        for q in around[last]:
            near_last[q] = 1
    # Points with a stone within distance 3 ("not an empty area"), marked from the
    # stones when there are fewer stones than moves to ask about (the opening).
    crowded: vec[i64] | None = None
    stones = [q for q in geo.points if color[q]]
    if len(stones) < len(moves):
        crowded = geo.zeros[:]
        for s in stones:
            for q in near[s]:
                crowded[q] = 1
    u = confidence
    capture_one = weights.capture_one * u
    capture_many = weights.capture_many * u
    save = weights.save * u
    atari = weights.atari * u
    shape = weights.shape * u
    near_bonus = weights.near_last * u
    self_atari_loss = weights.self_atari * u
    sacrifice_loss = weights.sacrifice * u
    empty_edge = weights.empty_edge * u
    empty_second = weights.empty_second * u
    empty_good = weights.empty_good * u
    empty_centre = weights.empty_centre * u
    pass_rate = weights.pass_rate
    ladder_atari = weights.ladder_atari * u
    ladder_save = weights.ladder_save * u
    out: list[tuple[float, float]] = []
    for p in moves:
        n = u
        w = u / 2
        if p == PASS:
            out.append((n, n * pass_rate))
            continue
        captured = 0
        free = 0
        friend = False
        # the chains (and border cells) already seen around p: at most three before the last
        seen1 = seen2 = seen3 = -1
        after: FastBoard | None = None  # the board after p, once a ladder needs reading
        for q in nb[p]:
            cq = color[q]
            if not cq:
                free += 1
            else:
                h = head[q]
                if h in (seen1, seen2, seen3):
                    continue
                if seen1 < 0:
                    seen1 = h
                elif seen2 < 0:
                    seen2 = h
                else:
                    seen3 = h
            if cq == o:
                lq = lkey[h]  # (compared as its count: see LIB_COUNT)
                if lq < key5 and lone_liberty(h, color, nxt, lkey, nb) == p:
                    captured += csize[h]
                elif lq < key9 and liberty_count(h, color, nxt, nb, 3) == 2:
                    n += atari  # it will be in atari (if we survive)
                    w += atari
                    if ladder_atari:
                        if after is None:
                            after = board.copy()
                            after.play(p, c)
                        if ladder_caught(after, h):
                            n += ladder_atari
                            w += ladder_atari
            elif cq == c:
                friend = True
                if lkey[h] < key5 and lone_liberty(h, color, nxt, lkey, nb) == p:
                    # saving only helps if the stone leaves the chain more liberties,
                    # and not if the two it leaves run into a ladder
                    libs_after = liberties_after(p, c, color, head, nxt, nb)
                    if libs_after == 2 and ladder_save and extension_dies(board, h, p):
                        n += ladder_save
                    elif libs_after >= 2:
                        n += save
                        w += save
        if captured:
            bonus = capture_many if captured > 1 else capture_one
            n += bonus
            w += bonus
        elif free < 2 and friend and self_atari(p, c, color, head, nxt, lkey, csize, nb):
            if atari_sacrifice(p, c, color, head, nxt, csize, nb):
                n += sacrifice_loss
            else:
                n += self_atari_loss
        code = pat[p]
        if shapes[code] and not eyes[code]:
            n += shape
            w += shape
        if near_last[p]:
            n += near_bonus
            w += near_bonus
        if crowded is not None:
            empty_area = not crowded[p]
        else:
            for q in near[p]:
                if color[q]:
                    empty_area = False
                    break
            else:
                empty_area = True
        if empty_area:
            ln = line[p]
            if ln == 1:
                n += empty_edge
            elif ln == 2:
                n += empty_second
            else:
                n += empty_good
                w += empty_good
                if ln >= 4:
                    n += empty_centre
                    w += empty_centre
        out.append((n, w))
    return out


def puct_priors(stats: Sequence[tuple[float, float]]) -> list[float]:
    """Prior probabilities from (visits, wins) heuristics: proportional to the squared value."""
    weights = [(w / n) ** 2 if n else 0.25 for n, w in stats]
    total = sum(weights)
    if total <= 0:
        return [1.0 / len(stats)] * len(stats) if stats else []
    return [x / total for x in weights]


def candidate_moves(board: FastBoard, pass_threshold: float) -> array[int]:
    """The moves a node lists: legal, not filling an own true eye; PASS once the board is full.

    PASS is offered after a pass, or when at most ``pass_threshold`` of the
    points are still playable.
    """
    c = board.to_move
    eyes = true_eye_tables()[c]
    pat = board.pat
    color = board.color
    head = board.head
    lkey = board.lkey
    nb = board.geo.neighbours
    ko = board.ko if board.ko_colour == c else 0
    # a list turned into the array at the end (compiled, appending to the array
    # was a Python call per move)
    moves: list[int] = []
    for p in board.empties:
        if eyes[pat[p]]:
            continue
        ns = nb[p]  # indexed: unpacking a vec row would box it
        a = ns[0]
        b = ns[1]
        d = ns[2]
        e = ns[3]
        if p != ko and not (color[a] and color[b] and color[d] and color[e]):
            moves.append(p)  # an empty neighbour: legal
        elif is_legal(p, c, ko, color, head, lkey, nb):
            moves.append(p)
    if board.passes or len(moves) <= len(board.geo.points) * pass_threshold:
        moves.append(PASS)
    return array("H", moves)


def prior_stats(
    board: FastBoard, moves: Sequence[int], config: SearchConfig
) -> list[tuple[float, float]] | None:
    """The priors that need only the position (``grandfather`` needs the tree: None here)."""
    if config.priors == "even":
        return even_priors(moves, config.prior_visits)
    if config.priors == "heuristic":
        return heuristic_priors(board, moves, config.prior_visits, config.prior_weights)
    return None


def list_moves(
    board: FastBoard, config: SearchConfig
) -> tuple[array[int], list[tuple[float, float]] | None]:
    """What expanding ``board``'s node needs from the position: its moves and their priors."""
    moves = candidate_moves(board, config.pass_threshold)
    return moves, prior_stats(board, moves, config)
