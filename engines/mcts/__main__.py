"""Command line of the sample engine: ``python -m engines.mcts`` / ``arena-mcts``.

Owns the options (every search knob, limits, the seed) and their validation;
a bad option is one clear error line and exit status 2, never a traceback.
Then it serves GTP on stdin/stdout until ``quit`` or the end of input.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

import attrs

from engines.mcts import core
from engines.mcts.gtp_engine import (
    ENGINE_NAME,
    EngineOptions,
    MctsEngine,
    build_server,
    engine_version,
)
from engines.mcts.policy import POLICY_NAMES
from engines.mcts.search import SearchConfig
from engines.mcts.timecontrol import MARGIN_FLOOR, MIN_SIMULATIONS, OVERRUN_WINDOW
from gtp.server import run_stdio


def _parser() -> argparse.ArgumentParser:
    defaults = SearchConfig()
    engine_defaults = EngineOptions()
    parser = argparse.ArgumentParser(
        prog=ENGINE_NAME,
        description="Sample Monte Carlo tree search Go engine speaking GTP on stdin/stdout;"
        f" {core.describe()}.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    limits = parser.add_argument_group(
        "limits",
        "Under time settings (time_settings, kgs-time_settings, kata-time_settings"
        " with Fischer) a move spends its share of main time, or the byo-yomi or"
        " Canadian period it is in, and always leaves room for at least"
        f" {MIN_SIMULATIONS} simulations; it never takes more than the clock allows"
        " minus a safety margin the engine measures on itself: its worst overrun"
        f" of the last {OVERRUN_WINDOW} moves beyond the search time it planned"
        " and its worst stall (a slice of simulations slower than usual), plus"
        f" {MARGIN_FLOOR:g} s for the pipe. A move with no time to search"
        " plays the best move by the priors, never a pass while another move is"
        " legal.",
    )
    limits.add_argument(
        "--playouts",
        type=int,
        default=engine_defaults.playouts,
        metavar="N",
        help="simulations per move (0: time decides)",
    )
    limits.add_argument(
        "--move-time",
        type=float,
        default=engine_defaults.move_time,
        metavar="S",
        help="seconds per move when the controller sets no time (0: off)",
    )
    limits.add_argument(
        "--max-move-time",
        type=float,
        default=engine_defaults.max_move_time,
        metavar="S",
        help="never think longer than this under time settings",
    )
    limits.add_argument(
        "--time-share",
        type=float,
        default=engine_defaults.time_share,
        metavar="F",
        help="most of the remaining main time one move may take",
    )
    search = parser.add_argument_group("search")
    search.add_argument(
        "--seed",
        type=int,
        default=argparse.SUPPRESS,
        help="random seed (default: a fresh one, shown by gomill-describe_engine)",
    )
    search.add_argument(
        "--policy",
        choices=POLICY_NAMES,
        default=defaults.policy,
        help="playout policy: MoGo-style 'default' (it plays the vital point "
        "of a three-point eye space before shapes; 'nakade' is another name "
        "for it), the same without that rule 'no-nakade', the same capturing a "
        "chain in atari anywhere when nothing answers the last move (MoGo's "
        "third rule) 'captures', reading ladders "
        "before it runs a chain out of atari 'ladders', refusing every big "
        "self-atari, sacrifices too, 'strict', trying the last good reply to "
        "the last move before shapes 'lgrf', or uniform random 'light'",
    )
    search.add_argument(
        "--selection",
        choices=("uct", "puct"),
        default=defaults.selection,
        help="tree selection rule",
    )
    search.add_argument(
        "--exploration",
        type=float,
        default=defaults.exploration,
        metavar="C",
        help="UCT exploration constant",
    )
    search.add_argument(
        "--uct-fpu",
        type=float,
        default=defaults.uct_fpu,
        metavar="U",
        help="UCT first-play urgency of unvisited moves (inf: try each once)",
    )
    search.add_argument(
        "--puct-exploration",
        type=float,
        default=defaults.puct_exploration,
        metavar="C",
        help="PUCT exploration constant",
    )
    search.add_argument(
        "--fpu-reduction",
        type=float,
        default=defaults.fpu_reduction,
        metavar="R",
        help="PUCT: value of unvisited moves below the parent's",
    )
    search.add_argument(
        "--expand-threshold",
        type=int,
        default=defaults.expand_threshold,
        metavar="N",
        help="visits before a node lists its moves",
    )
    search.add_argument(
        "--temperature",
        type=float,
        default=defaults.temperature,
        metavar="T",
        help="0: play the most visited move; > 0: sample by visits",
    )
    search.add_argument(
        "--noise",
        type=float,
        default=defaults.noise_fraction,
        metavar="F",
        help="weight of Dirichlet noise in the root priors (0: off)",
    )
    search.add_argument(
        "--dirichlet-alpha",
        type=float,
        default=defaults.dirichlet_alpha,
        metavar="A",
        help="concentration of the root noise",
    )
    search.add_argument(
        "--no-reuse-tree", action="store_true", help="start every move with a fresh tree"
    )
    search.add_argument(
        "--pass-threshold",
        type=float,
        default=defaults.pass_threshold,
        metavar="F",
        help="offer passes in the tree when at most this share of the points is playable",
    )
    search.add_argument(
        "--rave",
        choices=("off", "k", "mse"),
        default=defaults.rave,
        help="MC-RAVE: off, the hand-selected schedule 'k' or the minimum-MSE schedule 'mse'",
    )
    search.add_argument(
        "--rave-k",
        type=float,
        default=defaults.rave_k,
        metavar="K",
        help="equivalence parameter of the 'k' schedule",
    )
    search.add_argument(
        "--rave-bias",
        type=float,
        default=defaults.rave_bias,
        metavar="B",
        help="RAVE bias of the 'mse' schedule",
    )
    search.add_argument(
        "--rave-exploration",
        type=float,
        default=defaults.rave_exploration,
        metavar="C",
        help="UCT exploration constant when RAVE is on",
    )
    search.add_argument(
        "--rave-amaf",
        choices=("first", "any"),
        default=defaults.rave_amaf,
        help="which later plays of a point count for a move's AMAF value: the point's "
        "first play only, or any play by the same player (also after a capture)",
    )
    search.add_argument(
        "--priors",
        choices=("none", "even", "grandfather", "heuristic"),
        default=defaults.priors,
        help="prior knowledge for new nodes (also PUCT's priors)",
    )
    search.add_argument(
        "--prior-visits",
        type=float,
        default=defaults.prior_visits,
        metavar="N",
        help="equivalent experience of the priors",
    )
    search.add_argument(
        "--prior-weights",
        default="",
        metavar="NAME=W,...",
        help="weights of the heuristic priors' rules in units of --prior-visits"
        " (the rest keep their defaults; names: "
        + ", ".join(
            f"{f.name}={getattr(defaults.prior_weights, f.name):g}"
            for f in attrs.fields(type(defaults.prior_weights))
        )
        + ")",
    )
    search.add_argument(
        "--structure",
        choices=("tree", "graph"),
        default=defaults.structure,
        help="search a tree, or a graph sharing transposed positions",
    )
    search.add_argument(
        "--graph-stop",
        action="store_true",
        help="graph: skip the playout when the child already has more visits than the edge",
    )
    search.add_argument(
        "--mercy",
        type=int,
        default=defaults.mercy,
        metavar="N",
        help="end a playout once one side leads by N stones (at least the"
        " komi plus one; 0: play every playout to the end)",
    )
    search.add_argument(
        "--workers",
        type=int,
        default=engine_defaults.workers,
        metavar="N",
        help="worker processes running playouts (0: all in this process);"
        " with sharing, N workers use N+1 cores",
    )
    search.add_argument(
        "--batch",
        type=int,
        default=engine_defaults.batch,
        metavar="N",
        help="leaves sent to a worker at a time (with --workers)",
    )
    search.add_argument(
        "--share",
        action=argparse.BooleanOptionalAction,
        default=engine_defaults.share,
        help="this process plays out too while the workers are busy"
        " (--no-share: it only keeps the tree; deterministic with"
        " --workers 1 and --seed)",
    )
    game = parser.add_argument_group("game")
    game.add_argument(
        "--resign-threshold",
        type=float,
        default=defaults.resign_threshold,
        metavar="W",
        help="resign below this win rate (0: never resign; see --resign-moves)",
    )
    game.add_argument(
        "--resign-min-visits",
        type=int,
        default=defaults.resign_min_visits,
        metavar="N",
        help="root visits needed before resigning or claiming",
    )
    game.add_argument(
        "--resign-moves",
        type=int,
        default=defaults.resign_moves,
        metavar="N",
        help="resign only when N of the player's moves in a row found the game lost",
    )
    game.add_argument(
        "--claim-threshold",
        type=float,
        default=defaults.claim_threshold,
        metavar="W",
        help="gomill-genmove_ex claim: claim at this win rate",
    )
    game.add_argument(
        "--ownership-playouts",
        type=int,
        default=engine_defaults.ownership_playouts,
        metavar="N",
        help="simulations behind final_score and final_status_list",
    )
    game.add_argument(
        "--handicap-compensation",
        choices=("full", "short", "none"),
        default=engine_defaults.handicap_compensation,
        help="points White gets per handicap stone: N, N-1 or 0",
    )
    parser.add_argument("--version", action="version", version=f"{ENGINE_NAME} {engine_version()}")
    return parser


def options_from_args(argv: Sequence[str] | None = None) -> EngineOptions:
    """Parse and validate; exits with status 2 and one message on a bad option."""
    parser = _parser()
    ns = parser.parse_args(argv)
    seed = getattr(ns, "seed", None)
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    try:
        config = SearchConfig(
            policy=ns.policy,
            selection=ns.selection,
            exploration=ns.exploration,
            uct_fpu=ns.uct_fpu,
            puct_exploration=ns.puct_exploration,
            fpu_reduction=ns.fpu_reduction,
            expand_threshold=ns.expand_threshold,
            temperature=ns.temperature,
            dirichlet_alpha=ns.dirichlet_alpha,
            noise_fraction=ns.noise,
            resign_threshold=ns.resign_threshold,
            resign_min_visits=ns.resign_min_visits,
            resign_moves=ns.resign_moves,
            claim_threshold=ns.claim_threshold,
            reuse_tree=not ns.no_reuse_tree,
            pass_threshold=ns.pass_threshold,
            rave=ns.rave,
            rave_k=ns.rave_k,
            rave_bias=ns.rave_bias,
            rave_exploration=ns.rave_exploration,
            rave_amaf=ns.rave_amaf,
            priors=ns.priors,
            prior_visits=ns.prior_visits,
            prior_weights=ns.prior_weights,
            structure=ns.structure,
            graph_stop=ns.graph_stop,
            mercy=ns.mercy,
        )
        return EngineOptions(
            search=config,
            playouts=ns.playouts,
            seed=seed,
            move_time=ns.move_time,
            max_move_time=ns.max_move_time,
            time_share=ns.time_share,
            ownership_playouts=ns.ownership_playouts,
            handicap_compensation=ns.handicap_compensation,
            workers=ns.workers,
            batch=ns.batch,
            share=ns.share,
        )
    except ValueError as exc:
        parser.error(str(exc))


def main(argv: Sequence[str] | None = None) -> int:
    options = options_from_args(argv)
    engine = MctsEngine(options)
    engine.warm_up()  # before the controller's clock runs
    try:
        return run_stdio(build_server(engine))
    finally:
        engine.close()


if __name__ == "__main__":
    sys.exit(main())
