"""Control files: what loads, what each setting defaults to, and the one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.competitions.loader import load_control_file
from arena.errors import ControlFileError

HEADER = "competition_type = 'playoff'\n"
PLAYERS = "players = {'a': Player('enga'), 'b': Player('engb')}\n"
GAME = "board_size = 9\nkomi = 7.5\n"
MATCHUPS = "matchups = [Matchup('a', 'b')]\n"


def write(tmp_path: Path, text: str, name: str = "comp.ctl") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ControlFileError) as info:
        load_control_file(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return message


def test_minimal_playoff_has_gomill_defaults(tmp_path: Path) -> None:
    config = load_control_file(write(tmp_path, HEADER + PLAYERS + GAME + MATCHUPS))
    assert config.code == "comp"
    assert config.competition_type == "playoff"
    assert config.record_games and config.stderr_to_log and not config.skip_player_checks
    assert not config.reuse_engines and config.crash_result == "void"
    (matchup,) = config.playoff.matchups
    assert (matchup.id, matchup.name, matchup.event) == ("0", "a v b", "comp")
    assert not matchup.alternating and matchup.number_of_games is None
    settings = matchup.settings
    assert (settings.board_size, settings.komi, settings.handicap) == (9, 7.5, None)
    assert (settings.move_limit, settings.scorer, settings.handicap_style) == (
        1000,
        "players",
        "fixed",
    )
    assert settings.internal_scorer_handicap_compensation == "full"
    assert (settings.ko_rule, settings.allow_suicide) == ("simple", True)
    player = config.players["a"]
    assert player.command == ("enga",)
    assert player.is_reliable_scorer and not player.allow_claim and player.sgf_player_name_from_gtp
    assert (
        player.startup_timeout == 30
        and player.command_timeout == 60
        and player.move_timeout is None
    )


def test_player_settings_are_read_and_paths_resolved(tmp_path: Path) -> None:
    text = (
        HEADER
        + "import sys\n"
        + "def eng(level):\n"
        + "    return Player('./bin/eng --level=%d' % level, cwd='work',\n"
        + "                  environ={'X': '1'}, discard_stderr=True,\n"
        + "                  startup_gtp_commands=['level 3', ['seed', '7']],\n"
        + "                  gtp_aliases={'gomill-cpu_time': 'cputime'},\n"
        + "                  is_reliable_scorer=False, allow_claim=True,\n"
        + "                  sgf_player_name_from_gtp=False, startup_timeout=5,\n"
        + "                  command_timeout=2.5, move_timeout=None)\n"
        + "players = {'a': eng(1), 'b': Player(['~/x y', '--q'], move_timeout=3)}\n"
        + GAME
        + MATCHUPS
    )
    config = load_control_file(write(tmp_path, text))
    a = config.players["a"]
    assert a.command == (str(tmp_path / "bin" / "eng"), "--level=1")
    assert a.cwd == str(tmp_path / "work")
    assert a.environ_dict == {"X": "1"}
    assert a.discard_stderr and a.allow_claim
    assert not a.is_reliable_scorer and not a.sgf_player_name_from_gtp
    assert a.startup_gtp_commands == (("level", "3"), ("seed", "7"))
    assert a.gtp_name("gomill-cpu_time") == "cputime" and a.gtp_name("genmove") == "genmove"
    assert (a.startup_timeout, a.command_timeout, a.move_timeout) == (5.0, 2.5, None)
    b = config.players["b"]
    assert b.command == (os.path.expanduser("~/x y"), "--q")
    assert b.move_timeout == 3.0


def test_matchup_settings_override_defaults(tmp_path: Path) -> None:
    text = (
        HEADER
        + PLAYERS
        + GAME
        + "alternating = True\nnumber_of_games = 400\nscorer = 'internal'\n"
        + "matchups = [\n"
        + "    Matchup('a', 'b'),\n"
        + "    Matchup('b', 'a', id='hc', name='handicap  games', board_size=13, komi=0.5,\n"
        + "            handicap=4, handicap_style='free', alternating=False,\n"
        + "            number_of_games=None, ko_rule='positional', allow_suicide=False,\n"
        + "            internal_scorer_handicap_compensation='short', move_limit=300),\n"
        + "]\n"
    )
    config = load_control_file(write(tmp_path, text))
    first, second = config.playoff.matchups
    assert (
        first.alternating and first.number_of_games == 400 and first.settings.scorer == "internal"
    )
    assert first.game_id(7) == "0_007"
    assert (second.id, second.name, second.event) == (
        "hc",
        "handicap games",
        "comp (handicap games)",
    )
    assert not second.alternating and second.number_of_games is None
    assert second.game_id(7) == "hc_7"
    s = second.settings
    assert (s.board_size, s.komi, s.handicap, s.handicap_style) == (13, 0.5, 4, "free")
    assert (s.ko_rule, s.allow_suicide, s.move_limit) == ("positional", False, 300)
    assert s.internal_scorer_handicap_compensation == "short"
    assert s.describe() == "board size: 13   handicap: 4 (free)   komi: 0.5"


@pytest.mark.parametrize(
    ("games", "expected"),
    [(None, "0_5"), (1, "0_5"), (10, "0_5"), (11, "0_05"), (100, "0_05"), (101, "0_005")],
)
def test_game_ids_are_padded_to_the_last_game_number(
    tmp_path: Path, games: int | None, expected: str
) -> None:
    text = HEADER + PLAYERS + GAME + f"matchups = [Matchup('a', 'b', number_of_games={games})]\n"
    (matchup,) = load_control_file(write(tmp_path, text)).playoff.matchups
    assert matchup.game_id(5) == expected


def test_user_variables_and_imports_are_allowed(tmp_path: Path) -> None:
    text = HEADER + "import os\nmy_level = 3\n" + PLAYERS + GAME + MATCHUPS
    assert load_control_file(write(tmp_path, text)).players["a"].command == ("enga",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # structure
        ("players = {}\n", ":1: competition_type: must be set first"),
        ("competition_type = 'cup'\n", ":1: competition_type: unknown competition type 'cup'"),
        (HEADER + "players = {\n", "syntax error"),
        (HEADER + "x = 1 / 0\n", ":2: error while running the control file: ZeroDivisionError"),
        (HEADER + GAME + MATCHUPS, "players: not set"),
        (HEADER + PLAYERS + GAME, "matchups: expected a non-empty list"),
        (HEADER + PLAYERS + GAME + "matchups = []\n", "matchups: expected a non-empty list"),
        # players
        (
            HEADER + "players = {'a': 'gnugo'}\n" + GAME + MATCHUPS,
            ":2: players['a']: expected Player(...)",
        ),
        (HEADER + "players = {'a b': Player('x')}\n" + GAME + MATCHUPS, "is not an identifier"),
        (
            HEADER + "players = {'a': Player()}\n" + GAME + MATCHUPS,
            "players['a']: Player needs a command",
        ),
        (
            HEADER + "players = {'a': Player('')}\n" + GAME + MATCHUPS,
            "players['a'].command: empty command",
        ),
        (
            HEADER + "players = {'a': Player('x \"y')}\n" + GAME + MATCHUPS,
            "cannot split the command line",
        ),
        (
            HEADER + "players = {'a': Player(3)}\n" + GAME + MATCHUPS,
            "players['a'].command: expected a string or a list",
        ),
        (
            HEADER + "players = {'a': Player('x', colour='b')}\n" + GAME + MATCHUPS,
            "unknown Player argument 'colour'",
        ),
        (
            HEADER + "players = {'a': Player('x',\n  allow_claim='yes')}\n" + GAME + MATCHUPS,
            ":2: players['a'].allow_claim: expected True or False",
        ),
        (
            HEADER + "players = {'a': Player('x', environ={'A': 1})}\n" + GAME + MATCHUPS,
            "players['a'].environ['A']: expected a string",
        ),
        (
            HEADER
            + "players = {'a': Player('x', startup_gtp_commands='boardsize 9')}\n"
            + GAME
            + MATCHUPS,
            "startup_gtp_commands: expected a list",
        ),
        (
            HEADER
            + "players = {'a': Player('x', startup_gtp_commands=['komi #1'])}\n"
            + GAME
            + MATCHUPS,
            "'#1' cannot be sent as a GTP word",
        ),
        (
            HEADER + "players = {'a': Player('x', startup_gtp_commands=[''])}\n" + GAME + MATCHUPS,
            "empty GTP command",
        ),
        (
            HEADER + "players = {'a': Player('x', move_timeout=0)}\n" + GAME + MATCHUPS,
            "move_timeout: expected a positive number of seconds",
        ),
        (
            HEADER + "players = {'a': Player('x', command_timeout='1')}\n" + GAME + MATCHUPS,
            "command_timeout: expected a number",
        ),
        # game settings
        (
            HEADER + PLAYERS + "board_size = 26\nkomi = 0\n" + MATCHUPS,
            ":3: board_size: must be between 2 and 25, not 26",
        ),
        (
            HEADER + PLAYERS + "board_size = 9.0\nkomi = 0\n" + MATCHUPS,
            "board_size: expected an integer",
        ),
        (
            HEADER + PLAYERS + "board_size = True\nkomi = 0\n" + MATCHUPS,
            "board_size: expected an integer",
        ),
        (
            HEADER + PLAYERS + "board_size = 9\nkomi = '6.5'\n" + MATCHUPS,
            ":4: komi: expected a number",
        ),
        (
            HEADER + PLAYERS + "board_size = 9\nkomi = float('nan')\n" + MATCHUPS,
            "komi: expected a finite number",
        ),
        (HEADER + PLAYERS + GAME + "handicap = 1\n" + MATCHUPS, ":5: handicap: must be at least 2"),
        (
            HEADER + PLAYERS + GAME + "handicap_style = 'loose'\n" + MATCHUPS,
            "handicap_style: expected one of 'fixed', 'free'",
        ),
        (
            HEADER + PLAYERS + GAME + "move_limit = 0\n" + MATCHUPS,
            "move_limit: must be a positive integer",
        ),
        (
            HEADER + PLAYERS + GAME + "scorer = 'gnugo'\n" + MATCHUPS,
            "scorer: expected one of 'players', 'internal'",
        ),
        (
            HEADER + PLAYERS + GAME + "internal_scorer_handicap_compensation = 'half'\n" + MATCHUPS,
            "expected one of 'no', 'full', 'short'",
        ),
        (
            HEADER + PLAYERS + GAME + "ko_rule = 'superko'\n" + MATCHUPS,
            "ko_rule: expected one of 'simple', 'positional', 'situational'",
        ),
        (
            HEADER + PLAYERS + GAME + "allow_suicide = 1\n" + MATCHUPS,
            "allow_suicide: expected True or False",
        ),
        (
            HEADER + PLAYERS + GAME + "record_games = 'no'\n" + MATCHUPS,
            "record_games: expected True or False",
        ),
        (
            HEADER + PLAYERS + GAME + "crash_result = 'loss'\n" + MATCHUPS,
            "crash_result: expected one of 'void', 'forfeit'",
        ),
        (
            HEADER + PLAYERS + GAME + "description = 3\n" + MATCHUPS,
            "description: expected a string",
        ),
        # matchups
        (
            HEADER + PLAYERS + "komi = 6\nmatchups = [Matchup('a', 'b')]\n",
            ":4: matchup 0: board_size is not set",
        ),
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'c')]\n",
            "matchup 0: unknown player 'c'",
        ),
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'a')]\n",
            "a matchup needs two different players",
        ),
        (HEADER + PLAYERS + GAME + "matchups = [Matchup('a')]\n", "Matchup needs two player codes"),
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b', rounds=3)]\n",
            "unknown Matchup argument 'rounds'",
        ),
        (
            HEADER
            + PLAYERS
            + GAME
            + "matchups = [Matchup('a', 'b', id='x'),\n  Matchup('b', 'a', id='x')]\n",
            ":6: matchup x: duplicate matchup id 'x'",
        ),
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b', id='x y')]\n",
            "matchup x y: id: 'x y' is not an identifier",
        ),
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b', number_of_games=-1)]\n",
            "matchup 0: number_of_games: must not be negative",
        ),
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b', komi='x')]\n",
            "matchup 0: komi: expected a number",
        ),
        (
            HEADER + PLAYERS + GAME + "matchups = ['a v b']\n",
            "matchups: item 0: expected Matchup(...)",
        ),
        # handicap against board size
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b', handicap=10)]\n",
            "handicap 10 is too large for fixed handicap on 9x9 (at most 9)",
        ),
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b', board_size=8, handicap=5)]\n",
            "too large for fixed handicap on 8x8 (at most 4)",
        ),
        (
            HEADER + PLAYERS + GAME + "matchups = [Matchup('a', 'b', board_size=5, handicap=2)]\n",
            "fixed handicap is not defined on a 5x5 board",
        ),
        (
            HEADER
            + PLAYERS
            + GAME
            + "matchups = [Matchup('a', 'b', board_size=3, handicap=9, handicap_style='free')]\n",
            "too large for free handicap on 3x3 (at most 8)",
        ),
    ],
)
def test_bad_settings_give_one_line_naming_file_line_and_setting(
    tmp_path: Path, text: str, expected: str
) -> None:
    message = load_error(tmp_path, text)
    assert expected in message, message


def test_missing_control_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ControlFileError) as info:
        load_control_file(tmp_path / "nope.ctl")
    assert (
        str(info.value)
        == f"{tmp_path / 'nope.ctl'}: cannot read the control file: No such file or directory"
    )


def test_free_handicap_on_a_small_board_is_allowed(tmp_path: Path) -> None:
    text = (
        HEADER
        + PLAYERS
        + "board_size = 5\nkomi = 0\nhandicap = 3\nhandicap_style = 'free'\n"
        + MATCHUPS
    )
    (matchup,) = load_control_file(write(tmp_path, text)).playoff.matchups
    assert matchup.settings.handicap == 3


# --------------------------------------------------------------------------
# Misspelt top-level settings

ALLPLAYALL = "competition_type = 'allplayall'\n" + PLAYERS + GAME + "competitors = ['a', 'b']\n"
TUNER = (
    "competition_type = 'mc_tuner'\n"
    "players = {'opp': Player('opponent-engine')}\n"
    "parameters = [Parameter('c', scale=LINEAR(0, 1), split=3)]\n"
    "def make_candidate(c):\n"
    "    return Player(['engine', str(c)])\n"
    "board_size = 9\nkomi = 7.5\nopponent = 'opp'\ncandidate_colour = 'b'\n"
    "exploration_coefficient = 0.45\ninitial_visits = 2\ninitial_wins = 1\n"
)
PLAYOFF = HEADER + PLAYERS + GAME + MATCHUPS


def test_a_misspelt_setting_names_file_line_and_the_setting_meant(tmp_path: Path) -> None:
    text = HEADER + PLAYERS + GAME + "move_limt = 100\n" + MATCHUPS
    path = write(tmp_path, text, "X.ctl")
    with pytest.raises(ControlFileError) as info:
        load_control_file(path)
    assert str(info.value) == f"{path}:5: unknown setting 'move_limt' (did you mean 'move_limit'?)"


# Every setting of every competition type, as Gomill documents them, misspelt
# in three ways: a letter left out, two letters swapped, the wrong case.
SETTINGS_BY_TYPE = {
    "playoff": (
        PLAYOFF,
        [
            "description",
            "record_games",
            "stderr_to_log",
            "players",
            "board_size",
            "komi",
            "handicap",
            "handicap_style",
            "move_limit",
            "scorer",
            "internal_scorer_handicap_compensation",
            "alternating",
            "number_of_games",
            "matchups",
        ],
    ),
    "allplayall": (
        ALLPLAYALL,
        [
            "description",
            "record_games",
            "stderr_to_log",
            "board_size",
            "komi",
            "move_limit",
            "scorer",
            "rounds",
            "competitors",
            "elo_anchor",
        ],
    ),
    "mc_tuner": (
        TUNER,
        [
            "description",
            "record_games",
            "stderr_to_log",
            "board_size",
            "komi",
            "move_limit",
            "scorer",
            "number_of_games",
            "candidate_colour",
            "opponent",
            "parameters",
            "make_candidate",
            "exploration_coefficient",
            "initial_visits",
            "initial_wins",
            "max_depth",
            "summary_spec",
            "log_tree_to_history_period",
            "number_of_running_simulations_to_show",
        ],
    ),
}


def _misspellings(setting: str) -> list[str]:
    middle = len(setting) // 2
    return [
        setting[:middle] + setting[middle + 1 :],
        setting[: middle - 1] + setting[middle] + setting[middle - 1] + setting[middle + 1 :],
        setting.capitalize(),
    ]


@pytest.mark.parametrize(
    ("kind", "setting"),
    [(kind, setting) for kind, (_, names) in SETTINGS_BY_TYPE.items() for setting in names],
)
def test_every_setting_of_every_type_is_known_when_misspelt(
    tmp_path: Path, kind: str, setting: str
) -> None:
    base, _ = SETTINGS_BY_TYPE[kind]
    for typo in _misspellings(setting):
        # A setting the file has is misspelt where it is set; another is added.
        if f"\n{setting} =" in base or f"def {setting}(" in base:
            text = base.replace(f"\n{setting} =", f"\n{typo} =").replace(
                f"def {setting}(", f"def {typo}("
            )
        else:
            text = base + f"{typo} = 1\n"
        message = load_error(tmp_path, text)
        assert message.endswith(f"unknown setting {typo!r} (did you mean {setting!r}?)"), (
            typo,
            message,
        )


@pytest.mark.parametrize("text", [PLAYOFF, ALLPLAYALL, TUNER], ids=SETTINGS_BY_TYPE)
def test_the_files_own_names_stay_allowed(tmp_path: Path, text: str) -> None:
    # Helpers the file reads (as Gomill's examples do), private names, and
    # names far from any setting.
    helpers = (
        "board_sizes = [9, 13]\n"
        "first = board_sizes[0]\n"
        "def komi_for(size):\n"
        "    return 7.5 if size > 7 else 0.5\n"
        "komi_used = komi_for(first)\n"
        "_komi = 3\n"
        "favourite_colour = 'blue'\n"
        "import os, sys\n"
    )
    load_control_file(write(tmp_path, text + helpers))


@pytest.mark.parametrize(
    "example", sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.ctl"))
)
def test_every_example_control_file_loads(example: Path) -> None:
    config = load_control_file(example)
    assert f"competition_type = '{config.competition_type}'" in example.read_text()


@pytest.mark.parametrize(
    ("example", "setting"),
    [
        ("ce_tuner.ctl", "elite_proportion"),
        ("ce_tuner.ctl", "samples_per_generation"),
        ("spsa_tuner.ctl", "number_of_iterations"),
    ],
)
def test_a_misspelt_tuner_setting_is_named(tmp_path: Path, example: str, setting: str) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    text = (examples / example).read_text().replace(f"\n{setting} =", f"\n{setting[:-2]} =")
    assert f"\n{setting[:-2]} =" in text
    message = load_error(tmp_path, text)
    assert message.endswith(f"unknown setting {setting[:-2]!r} (did you mean {setting!r}?)")


@pytest.mark.parametrize(
    ("line", "meant"),
    [("ByoYomy(main=1, period=1, periods=1)", "ByoYomi"), ("Absolut(60)", "Absolute")],
)
def test_a_misspelt_class_names_the_one_meant(tmp_path: Path, line: str, meant: str) -> None:
    text = HEADER + PLAYERS + f"time_control = {line}\n" + MATCHUPS
    message = load_error(tmp_path, text)
    wrong = line.split("(")[0]
    assert message.endswith(
        f":3: error while running the control file: NameError: name {wrong!r} is not defined"
        f" (did you mean {meant!r}?)"
    )


def test_an_unknown_name_with_nothing_close_says_only_what_is_wrong(tmp_path: Path) -> None:
    message = load_error(tmp_path, HEADER + PLAYERS + "x = zzqqxx\n" + MATCHUPS)
    assert message.endswith("NameError: name 'zzqqxx' is not defined")
