"""Games on a real Dask cluster on this machine: a scheduler and two workers on 127.0.0.1.

The sample MCTS engine (few playouts, 7x7) plays the random engine; the arena
runs as a user runs it (``python -m arena_cli run X.ctl --cluster ...``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sgfmill import sgf

from arena.results import EndReason
from arena.store.files import CompetitionFiles
from arena.store.journal import ResultEntry, VoidEntry, iter_journal
from tests.arena.fakes import fake_command
from tests.integration.loopback_cluster import LoopbackCluster

try:
    import distributed  # noqa: F401  (the `cluster` extra; `test` brings it too)
except ImportError:
    if os.environ.get("CI") == "true":
        raise  # CI installs the `test` extra: these tests must run there
    pytest.skip("distributed is not installed", allow_module_level=True)

GAMES = 20
MARK = "ARENA_CLUSTER_TEST"  # in every engine's environment, to find strays


def engine(module: str, *args: str) -> str:
    return repr([sys.executable, "-m", module, *args])


def write_ctl(
    directory: Path,
    *,
    name: str = "cluster",
    games: int = GAMES,
    playouts: int = 8,
    extra: str = "",
) -> Path:
    mark = f"environ={{{MARK!r}: {str(directory)!r}}}"
    path = directory / f"{name}.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "players = {\n"
        f"    'mcts': Player({engine('engines.mcts', '--playouts', str(playouts))}, {mark}),\n"
        f"    'random': Player({engine('engines.random')}, {mark}),\n"
        "}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\n"
        f"{extra}"
        f"matchups = [Matchup('mcts', 'random', alternating=True, number_of_games={games})]\n"
    )
    return path


def arena(path: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}
    return subprocess.Popen(
        [sys.executable, "-m", "arena_cli", "run", str(path), "-q", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def finish(process: subprocess.Popen[str], timeout: float = 180) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"the arena did not finish: {err}") from None
    return process.returncode, err


def events(files: CompetitionFiles) -> list[dict[str, object]]:
    if not files.events.exists():
        return []
    return [json.loads(line) for line in files.events.read_text().splitlines() if line]


def results(files: CompetitionFiles) -> list[str]:
    return [e.result.game_id for e in iter_journal(files) if isinstance(e, ResultEntry)]


def stray_engines(directory: Path, seconds: float = 10.0) -> list[int]:
    """This test's engines still running after ``seconds`` (the mark in their environment)."""
    needle = f"{MARK}={directory}".encode()
    deadline = time.monotonic() + seconds
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if needle in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def wait_for(predicate: object, what: str, seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def assert_complete(files: CompetitionFiles, games: int = GAMES) -> None:
    """Every game exactly once, each with a valid SGF that agrees with its result."""
    ids = results(files)
    width = len(str(games - 1))
    assert sorted(ids) == [f"0_{n:0{width}d}" for n in range(games)]
    for entry in iter_journal(files):
        if not isinstance(entry, ResultEntry):
            continue
        game = sgf.Sgf_game.from_bytes(files.sgf_path(entry.result.game_id).read_bytes())
        root = game.get_root()
        assert root.get("GN") == entry.result.game_id
        assert root.get("RE") == entry.result.sgf_result
        assert game.get_size() == 7
        moves = [node.get_move() for node in game.get_main_sequence()[1:]]
        assert len([m for m in moves if m[0] is not None]) == entry.result.moves


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LoopbackCluster]:
    with LoopbackCluster(tmp_path / "dask") as running:
        yield running


@pytest.mark.slow
def test_playoff_on_two_workers_records_what_a_local_run_records(
    tmp_path: Path, cluster: LoopbackCluster
) -> None:
    address = cluster.start("w1", "w2")
    remote_dir, local_dir = tmp_path / "remote", tmp_path / "local"
    remote_dir.mkdir()
    local_dir.mkdir()
    remote = write_ctl(remote_dir)
    code, err = finish(arena(remote, "--cluster", address))
    assert code == 0, err
    files = CompetitionFiles.for_control_file(remote)
    assert_complete(files)
    log = events(files)
    started = [e for e in log if e["event"] == "game_started"]
    assert len(started) == GAMES
    assert {e["worker"] for e in started} == {"w1", "w2"}  # both workers played
    assert {"event": "workers", "workers": 2, "threads": 2}.items() <= next(
        e for e in log if e["event"] == "workers"
    ).items()
    run_started = next(e for e in log if e["event"] == "run")
    assert run_started["parallel"] == 2  # the cluster's size, as no --parallel was given
    assert "on w1" in files.log.read_text()

    local = write_ctl(local_dir)
    code, err = finish(arena(local, "-j", "2"))
    assert code == 0, err
    local_files = CompetitionFiles.for_control_file(local)
    assert_complete(local_files)
    for directory in ("games_dir", "void_dir"):
        remote_sgfs = sorted(p.name for p in getattr(files, directory).glob("*.sgf"))
        local_sgfs = sorted(p.name for p in getattr(local_files, directory).glob("*.sgf"))
        assert remote_sgfs == local_sgfs
    assert len(list(iter_journal(files))) == len(list(iter_journal(local_files)))
    status = json.loads(files.status.read_text())
    assert status["competition"]["matchups"]["0"]["tally"]["games"] == GAMES
    assert stray_engines(remote_dir) == []


@pytest.mark.slow
def test_a_worker_killed_mid_game_voids_that_game_and_it_is_played_once(
    tmp_path: Path, cluster: LoopbackCluster
) -> None:
    address = cluster.start("w1", "w2")
    path = write_ctl(tmp_path, playouts=20)  # a game lasts long enough to be killed in
    files = CompetitionFiles.for_control_file(path)
    process = arena(path, "--cluster", address)

    def w1_mid_game() -> bool:
        log = events(files)
        finished = {e["game_id"] for e in log if e["event"] == "game_finished"}
        return len(finished) >= 2 and any(
            e["event"] == "game_started"
            and e.get("worker") == "w1"
            and e["game_id"] not in finished
            for e in log
        )

    wait_for(w1_mid_game, "a game in progress on w1")
    cluster.kill_worker("w1")
    code, err = finish(process)
    assert code == 0, err
    assert_complete(files)
    voids = [e for e in iter_journal(files) if isinstance(e, VoidEntry)]
    assert len(voids) == 1
    assert "worker w1 was lost mid-game" in voids[0].reason
    workers = [e["workers"] for e in events(files) if e["event"] == "workers"]
    assert workers[0] == 2 and workers[-1] == 1
    assert stray_engines(tmp_path) == []  # w1's engines went with it


@pytest.mark.slow
def test_sigkill_of_the_arena_loses_nothing_and_its_games_stop_on_the_workers(
    tmp_path: Path, cluster: LoopbackCluster
) -> None:
    address = cluster.start("w1", "w2")
    games = 6
    path = write_ctl(tmp_path, games=games)
    files = CompetitionFiles.for_control_file(path)
    code, err = finish(arena(path, "--cluster", address, "--max-games", "2"))
    assert code == 0, err
    kept = results(files)
    assert len(kept) == 2

    write_ctl(tmp_path, games=games, playouts=1000)  # games of ten seconds or so
    launched = time.time()
    process = arena(path, "--cluster", address)

    def a_game_just_started() -> bool:
        return any(
            e["event"] == "game_started" and float(e["time"]) > launched  # type: ignore[arg-type]
            for e in events(files)
        )

    wait_for(a_game_just_started, "a game to start")
    wait_for(lambda: len(stray_engines(tmp_path, 0)) >= 2, "its engines")
    process.kill()
    process.communicate()
    # The scheduler released the dead arena's tasks and the workers stopped those
    # games, seconds before they could have ended by themselves.
    assert stray_engines(tmp_path, seconds=3.0) == []

    write_ctl(tmp_path, games=games)
    code, err = finish(arena(path, "--cluster", address))
    assert code == 0, err
    assert_complete(files, games)
    assert set(kept) <= set(results(files))


@pytest.mark.slow
def test_scheduler_lost_stops_the_run_and_a_later_run_completes_it(
    tmp_path: Path, cluster: LoopbackCluster
) -> None:
    address = cluster.start("w1", "w2")
    path = write_ctl(tmp_path, extra=f"cluster = {address!r}\n")  # the control file's setting
    files = CompetitionFiles.for_control_file(path)
    process = arena(path)
    wait_for(lambda: len(results(files)) >= 3, "three results")
    kept = set(results(files))
    cluster.kill_scheduler()
    code, err = finish(process, timeout=60)
    assert code == 1
    assert err.splitlines() == [
        f"arena: lost the Dask scheduler at {address}; the finished games are kept,"
        " `arena run` again resumes the competition"
    ]
    assert kept <= set(results(files))
    assert len(results(files)) < GAMES
    assert "run finished: lost the Dask scheduler" in files.log.read_text()

    # The workers shut down with their scheduler; start them all again, same address.
    cluster.stop()
    cluster.start_scheduler(port=int(address.rsplit(":", 1)[1]))
    cluster.start_worker("w1")
    cluster.start_worker("w2")
    cluster.wait_for_workers("w1", "w2")
    code, err = finish(arena(path))
    assert code == 0, err
    assert_complete(files)
    assert stray_engines(tmp_path) == []


@pytest.mark.slow
def test_a_player_needing_a_gpu_plays_only_on_the_worker_that_has_one(
    tmp_path: Path, cluster: LoopbackCluster
) -> None:
    cluster.start("gpu", "cpu", resources={"gpu": "GPU=1"})
    random = engine("engines.random")
    path = tmp_path / "gpu.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "players = {\n"
        f"    'big': Player({engine('engines.mcts', '--playouts', '8')}, resources={{'GPU': 1}}),\n"
        f"    'r1': Player({random}),\n"
        f"    'r2': Player({random}),\n"
        "}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\n"
        "matchups = [\n"
        "    Matchup('big', 'r1', alternating=True, number_of_games=6),\n"
        "    Matchup('r1', 'r2', alternating=True, number_of_games=6),\n"
        "]\n"
    )
    code, err = finish(arena(path, "--cluster", cluster.address))
    assert code == 0, err
    started = [
        e for e in events(CompetitionFiles.for_control_file(path)) if e["event"] == "game_started"
    ]
    assert len(started) == 12
    big = [e["worker"] for e in started if "big" in (e["black"], e["white"])]
    others = [e["worker"] for e in started if "big" not in (e["black"], e["white"])]
    assert big == ["gpu"] * 6
    assert "cpu" in others  # the other worker was there and played what it could


@pytest.mark.slow
def test_a_game_no_worker_can_serve_is_warned_of_and_waits_for_a_worker_that_can(
    tmp_path: Path, cluster: LoopbackCluster
) -> None:
    # Each player alone has a worker; the game needs both resources on one.
    cluster.start("gpu", "big", resources={"gpu": "GPU=1", "big": "BIG=1"})
    random = engine("engines.random")
    path = tmp_path / "union.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "players = {\n"
        f"    'g': Player({random}, resources={{'GPU': 1}}),\n"
        f"    'b': Player({random}, resources={{'BIG': 1}}),\n"
        "}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\n"
        "matchups = [Matchup('g', 'b', alternating=True, number_of_games=2)]\n"
    )
    files = CompetitionFiles.for_control_file(path)
    process = arena(path, "--cluster", cluster.address)
    try:

        def warned() -> list[object]:
            return [e["text"] for e in events(files) if e["event"] == "warning"]

        wait_for(warned, "the warning that no worker offers GPU and BIG together")
        assert results(files) == []  # nothing was played on a worker without both
        cluster.start_worker("both", resources="GPU=1,BIG=1")
        code, err = finish(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert code == 0, err
    [text] = warned()
    assert "no worker of the cluster" in str(text) and "BIG=1, GPU=1" in str(text)
    started = [e["worker"] for e in events(files) if e["event"] == "game_started"]
    assert started == ["both", "both"]
    assert sorted(results(files)) == ["0_0", "0_1"]


@pytest.mark.slow
@pytest.mark.slow
def test_check_on_a_cluster_no_worker_has_joined_says_it_waits_for_one(
    tmp_path: Path, cluster: LoopbackCluster
) -> None:
    """The first `arena check --cluster` right after the workers start said nothing for a
    minute: it waits for a worker, and now says so at once."""
    cluster.start_scheduler()
    path = write_ctl(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "arena_cli", "check", str(path), "--cluster", cluster.address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()  # blocks until it says something (or exits)
        assert first.startswith(f"no worker has joined the cluster at {cluster.address} yet")
        cluster.start_worker("w1")
        code, err = finish(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert code == 0, err


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:9", "http://nowhere:1"])
def test_an_unreachable_scheduler_is_one_line_and_a_failure(tmp_path: Path, address: str) -> None:
    """One line, and nothing after it (no 'coroutine ... was never awaited' warnings)."""
    path = write_ctl(tmp_path)
    code, err = finish(arena(path, "--cluster", address), timeout=60)
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"arena: cannot reach the Dask scheduler at {address}: ")
    assert not CompetitionFiles.for_control_file(path).journal.exists()


def test_a_cluster_without_distributed_installed_says_what_to_install(tmp_path: Path) -> None:
    blocker = tmp_path / "blocked" / "distributed"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('no distributed here')\n")
    path = write_ctl(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker.parent), *sys.path])}
    process = subprocess.run(
        [sys.executable, "-m", "arena_cli", "run", str(path), "--cluster", "tcp://127.0.0.1:9"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert process.returncode == 1
    assert process.stderr == (
        "arena: playing on a cluster needs the 'distributed' package:"
        " pip install 'gtp-arena[cluster]'\n"
    )


@pytest.mark.slow
def test_the_loopback_cluster_leaves_no_process_behind(tmp_path: Path) -> None:
    """The fixture's own guarantee: nothing of the cluster outlives it."""
    with LoopbackCluster(tmp_path / "dask") as running:
        running.start("w1")
        pids = [running.scheduler.pid, running.workers["w1"].pid]  # type: ignore[union-attr]
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.slow
def test_a_move_timeout_on_a_worker_loses_on_time_as_it_does_here(
    tmp_path: Path, cluster: LoopbackCluster
) -> None:
    address = cluster.start("w1")
    hang = list(fake_command("--moves=D4,E4", "--hang-at=2"))
    path = tmp_path / "timeout.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "players = {\n"
        f"    'slow': Player({hang!r}, move_timeout=1),\n"
        f"    'random': Player({engine('engines.random')}),\n"
        "}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\n"
        "matchups = [Matchup('slow', 'random', number_of_games=1)]\n"
    )
    code, err = finish(arena(path, "--cluster", address))
    assert code == 0, err
    (entry,) = [e for e in iter_journal(CompetitionFiles.for_control_file(path))]
    assert isinstance(entry, ResultEntry)
    assert entry.result.end is EndReason.TIME
    assert entry.result.winning_player == "random"
    assert entry.result.reason == "slow (black) did not answer 'genmove b' within 1s"
