"""The ``arena`` command line: run, show, report, reset, check and stop a competition.

Both orders work: ``arena run X.ctl`` and Gomill's ``arena X.ctl run`` (the
action defaults to ``run``).  Errors a user can cause (a missing or bad control
file, an engine that fails its startup check, a competition that is already
running) print one line on stderr and exit with status 1; an interrupted run
exits with 130.  Never a traceback for those.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final

from arena.errors import ControlFileError, RunError, StateError

if TYPE_CHECKING:
    from arena.competitions.base import Competition
    from arena.control.config import CompetitionConfig
    from arena.run.ringmaster import RunOptions, RunSummary
    from arena.store.files import CompetitionFiles

MISSING_MATPLOTLIB: Final = "the HTML report needs matplotlib: pip install 'gtp-arena[report]'"
ACTIONS: Final = ("run", "show", "report", "reset", "check", "stop", "export", "watch")
TRIO_ACTIONS: Final = ("run", "check", "watch")  # the commands that run engines or follow a run
EXIT_OK: Final = 0
EXIT_ERROR: Final = 1
EXIT_INTERRUPTED: Final = 130


class UsageError(Exception):
    pass


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, not {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from arena.reports.export import EXPORT_FORMATS

    parser = argparse.ArgumentParser(
        prog="arena",
        description=(
            "Run competitions between GTP Go engines, described by a Gomill-style"
            " control file.  Actions: run (the default) plays the games; show prints"
            " the results; report rewrites X.report (and with --html the page X.html,"
            " with plots); reset deletes every output file;"
            " check tries each engine; stop asks a running competition to finish the"
            " games in progress and stop; export writes one row per game (CSV or JSON);"
            " watch shows the live dashboard of a run going on elsewhere."
        ),
        epilog="Gomill's order works too: arena X.ctl run",
    )
    parser.add_argument("words", nargs="+", metavar="ACTION X.ctl", help="action and control file")
    parser.add_argument(
        "-j",
        "--parallel",
        type=_positive_int,
        default=None,
        metavar="N",
        help="play N games at once (default 1; on a cluster, the threads of its workers)",
    )
    parser.add_argument(
        "--cluster",
        metavar="tcp://HOST:PORT",
        type=_cluster_argument,
        help="play the games on the Dask cluster whose scheduler is there"
        " (overrides the control file's `cluster`; needs gtp-arena[cluster])",
    )
    parser.add_argument(
        "--affinity",
        nargs="?",
        const=1,
        type=_positive_int,
        metavar="N",
        help="run each game slot's engines on N cores of their own (default 1; overrides"
        " the control file's `affinity`; not on a cluster)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument(
        "-y", "--yes", action="store_true", help="reset: delete without asking (on a terminal)"
    )
    parser.add_argument(
        "-g",
        "--max-games",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="start at most N games in this run",
    )
    parser.add_argument(
        "--log-gtp", action="store_true", help="log all GTP traffic to X.gtplogs/<game>.log"
    )
    parser.add_argument(
        "--no-fsync",
        action="store_true",
        help="don't fsync records, journal and status (faster; a power loss may lose results)",
    )
    parser.add_argument(
        "--format", choices=EXPORT_FORMATS, default="csv", help="export: csv (default) or json"
    )
    parser.add_argument(
        "--html",
        action="store_true",
        help="report: also write X.html, a page with plots (needs gtp-arena[report])",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="export: write here, not stdout; report --html: write the page here, not X.html",
    )
    return parser


def _cluster_argument(text: str) -> str:
    from arena.control.settings import cluster_address

    try:
        return cluster_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def split_words(words: Sequence[str]) -> tuple[str, str]:
    """(action, control file) from ``run X.ctl``, ``X.ctl run`` or ``X.ctl``."""
    if len(words) == 1:
        if words[0] in ACTIONS:
            raise UsageError(f"no control file given for {words[0]!r}")
        return "run", words[0]
    if len(words) != 2:
        raise UsageError("expected an action and a control file")
    first, second = words
    if first in ACTIONS and second not in ACTIONS:
        return first, second
    if second in ACTIONS and first not in ACTIONS:
        return second, first
    raise UsageError(
        f"expected one action ({', '.join(ACTIONS)}) and a control file, not {first!r} {second!r}"
    )


def _html_writer() -> Callable[..., Path]:
    """``write_html_report``, imported only when wanted: it needs matplotlib (``[report]``)."""
    try:
        from arena.reports.html import write_html_report
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] == "matplotlib":
            raise RunError(MISSING_MATPLOTLIB) from None
        raise RunError(f"the HTML report cannot load its plotting library: {exc}") from None
    return write_html_report


def _write_html_after_run(config: CompetitionConfig, quiet: bool) -> None:
    """X.html after a run of a control file with ``html_report = True`` (X.report's page)."""
    from arena.store.files import CompetitionFiles

    files = CompetitionFiles.for_control_file(config.control_path)
    try:
        path = _html_writer()(config, _load_results(config).snapshot(), files)
    except (RunError, StateError) as exc:  # the games are safe: say so, keep the run's status
        print(f"arena: {files.html_report.name} not written: {exc}", file=sys.stderr)
        return
    if not quiet:
        print(f"wrote {path}")


def _load_results(config: CompetitionConfig) -> Competition:
    from arena.store.files import CompetitionFiles
    from arena.store.journal import read_state
    from arena.store.restore import load_competition

    files = CompetitionFiles.for_control_file(config.control_path)
    loaded = read_state(files, config.competition_type)
    return load_competition(config, loaded)


_exit_frozen = False


def _freeze_at_exit() -> None:
    """Have the interpreter's exit leave every object alive then to the end of the process.

    Python's finalization runs full collections over all objects left, some 100,000 after a
    run (trio, the arena's modules): ~40 ms of CPU at every exit, for garbage the exit
    frees anyway.  Frozen objects are out of the collector's sight; the arena's files are
    closed by then (each is closed where it is written, the lock released by the run).
    At exit only: a caller of :func:`main` in its own process (a test) is not affected
    before that process ends.
    """
    global _exit_frozen
    if not _exit_frozen:
        _exit_frozen = True
        atexit.register(gc.freeze)


def _modules_loaded(collecting: bool, freeze: bool) -> None:
    """The collector back on (if it was) once a command's modules are loaded; with
    ``freeze`` (a run), what they made frozen first.

    Loading the arena's modules, and trio's for the commands that run engines, makes some
    60,000 objects and no garbage: the collector walked them some 70 times as they loaded
    (~10 ms of CPU).  :func:`main` turns it off; the command turns it back on before it
    does anything.  A run freezes what is alive as it starts anyway
    (``RunOptions.freeze_gc``), and unfreezes it when it ends: this freezes the same
    objects a moment earlier.
    """
    if freeze:
        gc.freeze()
    if collecting:
        gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    _freeze_at_exit()
    collecting = gc.isenabled()
    gc.disable()  # while the modules load: see _modules_loaded
    try:
        return _main(argv, partial(_modules_loaded, collecting))
    finally:
        if collecting:
            gc.enable()


def _main(argv: Sequence[str] | None, modules_loaded: Callable[[bool], None]) -> int:
    parser = build_parser()
    options = parser.parse_intermixed_args(argv)
    try:
        action, control = split_words(options.words)
    except UsageError as exc:
        parser.error(str(exc))
    try:
        return _dispatch(action, Path(control), options, modules_loaded)
    except ControlFileError as exc:
        print(f"arena: {exc}", file=sys.stderr)
    except (RunError, StateError) as exc:
        print(f"arena: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR
    return EXIT_ERROR


async def _run_on_cluster(
    address: str,
    config: CompetitionConfig,
    options: RunOptions,
    *,
    quiet: bool,
    parallel: int | None,
) -> RunSummary:
    """``arena run`` with the games on the Dask cluster at ``address``."""
    import attrs

    from arena.run.cluster import open_cluster
    from arena_cli.run import run_with_display

    async with open_cluster(
        address, stderr="log" if config.stderr_to_log else "inherit"
    ) as executor:
        # Without --parallel, as many games at once as the workers have threads now.
        options = attrs.evolve(options, parallel=parallel or max(1, executor.threads))
        return await run_with_display(config, options, quiet=quiet, executor=executor)


async def _check_on_cluster(address: str, config: CompetitionConfig) -> list[str]:
    """``arena check`` with a cluster: each player's startup check on a worker."""
    from arena.competitions.registry import make_competition
    from arena.run.cluster import open_cluster

    checks = make_competition(config).player_checks()
    async with open_cluster(address) as executor:
        # Say what is going on: a check waits for a worker that can take it, and
        # right after the workers start none may have joined yet.
        if executor.threads:
            print(
                f"checking {len(checks)} player(s) on the cluster at {address}"
                f" ({executor.threads} thread(s))",
                file=sys.stderr,
            )
        else:
            print(
                f"no worker has joined the cluster at {address} yet:"
                " the checks wait for one (Ctrl-C to give up)",
                file=sys.stderr,
            )
        failures = dict(await executor.check_players(checks))
    for item in checks:
        if item.player.code not in failures:
            print(f"player {item.player.code}: ok (on the cluster at {address})")
    return [f"player {code!r}: {exc.message}" for code, exc in sorted(failures.items())]


def _files_and_records(files: CompetitionFiles, paths: list[Path]) -> str:
    """``7 file(s) and 8 game record(s)``: what reset deletes, the SGF records apart."""
    directories = (files.games_dir, files.void_dir)
    records = sum(1 for path in paths if path.parent in directories and path.suffix == ".sgf")
    return f"{len(paths) - records} file(s) and {records} game record(s)"


def _dispatch(
    action: str,
    control: Path,
    options: argparse.Namespace,
    modules_loaded: Callable[[bool], None],
) -> int:
    from arena.store.files import CompetitionFiles, is_running

    if action == "stop":
        modules_loaded(False)
        files = CompetitionFiles.for_control_file(control)
        if not control.exists():
            raise ControlFileError("cannot read the control file: No such file", path=control)
        if not is_running(files):
            print(f"arena: competition {files.code!r} is not running", file=sys.stderr)
            return EXIT_ERROR
        files.cmd.write_text("stop\n", encoding="utf-8")
        if not options.quiet:
            print(f"asked {files.code!r} to stop after the games in progress")
        return EXIT_OK
    from arena.competitions.loader import load_control_file
    from arena.reports.export import export_command
    from arena.reports.text import competition_report
    from arena.store.files import CompetitionLocked, existing_outputs
    from arena.store.files import reset as reset_files

    config = load_control_file(control)
    files = CompetitionFiles.for_control_file(config.control_path)
    if action not in TRIO_ACTIONS:
        modules_loaded(False)
    if action == "reset":
        what = _files_and_records(files, existing_outputs(files))
        if not options.yes and sys.stdin is not None and sys.stdin.isatty():
            try:
                answer = input(f"delete {what} of competition {files.code!r}? [y/N] ")
            except EOFError:  # Ctrl-D
                answer = ""
            if answer.strip().lower() not in ("y", "yes"):
                print("nothing deleted")
                return EXIT_OK
        try:
            removed = reset_files(files)
        except CompetitionLocked as exc:
            raise RunError(f"cannot reset: {exc}") from None
        if not options.quiet:
            print(f"reset {files.code!r}: removed {_files_and_records(files, removed)}")
        return EXIT_OK
    if action == "show":
        sys.stdout.write(competition_report(_load_results(config).snapshot()))
        return EXIT_OK
    if action == "report":
        write_html = _html_writer() if options.html else None  # fails before writing anything
        snapshot = _load_results(config).snapshot()
        files.report.write_text(competition_report(snapshot), encoding="utf-8")
        written = [files.report]
        if write_html is not None:
            target = Path(options.output) if options.output else None
            written.append(write_html(config, snapshot, files, target))
        if not options.quiet:
            for path in written:
                print(f"wrote {path}")
        return EXIT_OK
    if action == "export":
        export_command(files, options.format, options.output)
        return EXIT_OK
    # The commands that run engines or follow a run need trio; the quick ones
    # above don't import it, which keeps `arena show` fast to start.
    import trio

    from arena.events import RunState
    from arena.run.ringmaster import RunOptions, check_players

    if action == "run":
        from arena_cli.run import run_with_display  # the dashboard, plain lines or quiet
    modules_loaded(action == "run")
    if action == "watch":
        from tui.watch import watch_competition

        return trio.run(watch_competition, config)
    cluster = options.cluster or config.cluster
    if action == "check":
        if cluster is None:
            failures = trio.run(
                partial(
                    check_players,
                    parallel=options.parallel or 1,
                    warn=lambda text: print(f"arena: warning: {text}", file=sys.stderr),
                ),
                config,
            )
        else:
            from arena.run.cluster import require_distributed, silence_distributed_logs

            require_distributed()
            silence_distributed_logs()
            failures = trio.run(_check_on_cluster, cluster, config)
        for failure in failures:
            print(f"arena: {failure}", file=sys.stderr)
        return EXIT_ERROR if failures else EXIT_OK
    if config.html_report:
        _html_writer()  # say so now, not after the games
    run_options = RunOptions(
        parallel=options.parallel or 1,
        max_games=options.max_games,
        log_gtp=options.log_gtp,
        durable=not options.no_fsync,
        affinity=options.affinity,
        freeze_gc=True,  # this process is the arena's own
    )
    if cluster is None:
        summary = trio.run(partial(run_with_display, quiet=options.quiet), config, run_options)
    else:
        from arena.run.cluster import require_distributed, silence_distributed_logs

        require_distributed()
        silence_distributed_logs()
        summary = trio.run(
            partial(_run_on_cluster, quiet=options.quiet, parallel=options.parallel),
            cluster,
            config,
            run_options,
        )
    if config.html_report:
        _write_html_after_run(config, options.quiet)
    if summary.state is RunState.HALTED:
        print(f"arena: {summary.message}", file=sys.stderr)
        return EXIT_ERROR
    if summary.state is RunState.STOPPED and summary.message.startswith("interrupted"):
        return EXIT_INTERRUPTED
    return EXIT_OK
