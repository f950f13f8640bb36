"""The arena command line: actions in both orders, outputs, and one-line errors."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.store.files import CompetitionFiles, RunLock
from arena_cli.main import UsageError, main, split_words

from .fakes import fake_command


def write_ctl(directory: Path, games: int = 2, black: tuple[str, ...] | None = None) -> Path:
    b = black or fake_command("--moves=D4,E4")
    w = fake_command("--moves=D6,E6")
    path = directory / "cli.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        f"players = {{'a': Player({list(b)!r}), 'b': Player({list(w)!r})}}\n"
        "board_size = 9\nkomi = 7.5\nscorer = 'internal'\n"
        f"matchups = [Matchup('a', 'b', number_of_games={games})]\n"
    )
    return path


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["run", "x.ctl"], ("run", "x.ctl")),
        (["x.ctl", "run"], ("run", "x.ctl")),
        (["x.ctl"], ("run", "x.ctl")),
        (["show", "x.ctl"], ("show", "x.ctl")),
        (["x.ctl", "stop"], ("stop", "x.ctl")),
        (["x.ctl", "reset"], ("reset", "x.ctl")),
    ],
)
def test_both_orders_of_action_and_control_file(
    words: list[str], expected: tuple[str, str]
) -> None:
    assert split_words(words) == expected


@pytest.mark.parametrize("words", [["run"], ["run", "show"], ["a.ctl", "b.ctl"], ["a", "b", "c"]])
def test_bad_words_are_usage_errors(words: list[str]) -> None:
    with pytest.raises(UsageError):
        split_words(words)


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.strip()


def test_missing_control_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "nope.ctl")]) == 1
    assert one_line_error(capsys) == (
        f"arena: {tmp_path / 'nope.ctl'}: cannot read the control file: No such file or directory"
    )


def test_bad_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.ctl"
    path.write_text("competition_type = 'playoff'\nplayers = {'a': Player('x', colour=1)}\n")
    assert main([str(path), "show"]) == 1
    assert one_line_error(capsys) == (
        f"arena: {path}:2: players['a']: unknown Player argument 'colour'"
    )


def test_missing_engine_binary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ctl(tmp_path, black=("no-such-engine-binary", "--mode", "gtp"))
    assert main(["run", str(path), "-q"]) == 1
    error = one_line_error(capsys)
    assert error.startswith("arena: startup check failed: player 'a': cannot start")
    assert "No such file or directory" in error
    assert not CompetitionFiles.for_control_file(path).status.exists()
    assert main(["check", str(path)]) == 1


def test_run_show_report_reset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ctl(tmp_path)
    files = CompetitionFiles.for_control_file(path)
    assert main(["run", str(path), "-j", "2"]) == 0
    out = capsys.readouterr().out
    assert "game 0_0: b beat a W+7.5" in out and "game 0_1: b beat a W+7.5" in out
    assert main(["show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("playoff: cli\n\na v b (2/2 games)\n")
    files.report.unlink()
    assert main([str(path), "report"]) == 0
    assert files.report.read_text() == shown
    assert main(["check", str(path)]) == 0
    assert "player a: ok fake:1.0" in capsys.readouterr().out
    assert main(["reset", str(path)]) == 0
    # Two game records, and the status, journal, log, hist, events and report files.
    assert capsys.readouterr().out == "reset 'cli': removed 6 file(s) and 2 game record(s)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cli.ctl"]


class Terminal(io.StringIO):
    """Standard input that is a terminal, with what the user types."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("typed", "deleted"), [("n\n", False), ("\n", False), ("", False), ("y\n", True)]
)
def test_reset_on_a_terminal_asks_first(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    typed: str,
    deleted: bool,
) -> None:
    path = write_ctl(tmp_path)
    assert main(["run", str(path), "-q"]) == 0
    monkeypatch.setattr("sys.stdin", Terminal(typed))
    assert main(["reset", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("delete 6 file(s) and 2 game record(s) of competition 'cli'? [y/N] ")
    if deleted:
        assert out.endswith("reset 'cli': removed 6 file(s) and 2 game record(s)\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["cli.ctl"]
    else:
        assert out.endswith("nothing deleted\n")
        assert len(list(CompetitionFiles.for_control_file(path).games_dir.glob("*.sgf"))) == 2
    monkeypatch.setattr("sys.stdin", Terminal(""))
    assert main(["reset", str(path), "--yes", "-q"]) == 0  # --yes: no question
    assert capsys.readouterr().out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cli.ctl"]


def test_max_games_option(tmp_path: Path) -> None:
    path = write_ctl(tmp_path, games=5)
    assert main(["run", str(path), "-q", "--max-games", "1"]) == 0
    assert len(CompetitionFiles.for_control_file(path).hist.read_text().splitlines()) == 1


def test_stop_and_reset_need_the_lock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ctl(tmp_path)
    files = CompetitionFiles.for_control_file(path)
    assert main(["stop", str(path)]) == 1
    assert one_line_error(capsys) == "arena: competition 'cli' is not running"
    with RunLock(files.lock):
        assert main(["stop", str(path), "-q"]) == 0
        assert files.cmd.read_text() == "stop\n"
        assert main(["reset", str(path)]) == 1
        assert "cannot reset: competition 'cli' is already running" in one_line_error(capsys)
        assert main(["run", str(path)]) == 1
        assert "already running" in one_line_error(capsys)


def test_halted_run_exits_with_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ctl(tmp_path, black=fake_command("--crash-at=1"))
    assert main(["run", str(path), "-q"]) == 1
    assert "halting competition" in capsys.readouterr().err


def test_a_closed_standard_output_does_not_end_the_run(tmp_path: Path) -> None:
    """``arena run X.ctl | head`` or a parent process gone: the games are all played and
    recorded, the report written, and one line on stderr says why nothing more is printed
    (it used to end the run at once with exit status 1 and no word)."""
    path = write_ctl(tmp_path, games=4)
    reading, writing = os.pipe()
    os.close(reading)  # the first line written gets EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "arena_cli", "run", str(path), "-j", "2"],
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            timeout=120,
        )
    finally:
        os.close(writing)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "arena: standard output was closed: the run goes on without printing"
        " (cli.log has its lines)\n"
    )
    files = CompetitionFiles.for_control_file(path)
    assert len(files.hist.read_text().splitlines()) == 4
    assert files.report.read_text().startswith("playoff: cli\n\na v b (4/4 games)\n")
    assert "game 0_3: b beat a W+7.5" in files.log.read_text()


def test_console_script_help_and_bad_option() -> None:
    done = subprocess.run(["arena", "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "run (the default)" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "arena_cli", "run", "x.ctl", "-j", "0"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "expected a positive integer" in done.stderr


def test_the_readme_lists_every_action_and_the_examples_outputs_are_ignored() -> None:
    """A new user reads the command list in the README; `git status` in examples/ stays clean."""
    from arena_cli.main import ACTIONS

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    block = readme.split("### The `arena` command", 1)[1].split("```", 2)[1]
    listed = {line.split()[1] for line in block.splitlines() if line.startswith("arena ")}
    assert listed == set(ACTIONS)
    ignored = (root / ".gitignore").read_text().splitlines()
    for suffix in ("status", "journal", "log", "hist", "events", "report", "html"):
        assert f"examples/*.{suffix}" in ignored
