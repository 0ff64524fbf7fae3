"""`cibench-lab run`: play tasks headlessly through the engine and print CIBench's metrics.

    cibench-lab run --player openai:MODEL|reference|replay:FILE [--base-url URL]
        [--protocol cibench-react|tools] [--merge-roles] [--mode e2e|oracle]
        [--tasks ID|PATTERN ...] [--jobs N] [--run NAME] [--timeout S] [--compat-timeout]
        [--export-transcript FILE] [--judge-model M [--judge-base-url URL] [--judge-api-key-env VAR]
        [--judge-api-key-file FILE]]
        [--grading-workers N] [--no-sandbox] [--allow-network]
        [--cluster tcp://HOST:PORT | --scheduler-file F] [--tls-ca-file F --tls-cert F --tls-key F]
        [--insecure]

Results go to the database; the same ``--run`` again skips finished attempts and
resumes open ones; one process plays a run name at a time.  Exit status: 0 when every
attempt finished, 1 when some are left open (a model endpoint that kept failing: run
again to resume), 2 on bad input or when another live process plays the run.  SIGTERM stops a
run as Ctrl-C does (its kernels shut down, its folders removed, its lease released); either prints one line
naming the run to resume, and the process ends by SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from ..errors import BadInput
from ..grading.pool import WORKERS
from ..play.attempt import PROFILE, Attempts
from ..store import Store
from ..tasks.model import Task
from ..tasks.vocabulary import MODES
from . import add_command
from .cluster import add_cluster_options
from .common import add_sandbox_options, library, start_sandbox
from .progress import ProgressObserver

if TYPE_CHECKING:
    from ..kernels.pool import PoolSettings
    from ..models.judge import VisionJudge
    from ..players.base import Player
    from ..runs.dask.client import ClusterOptions, JobOptions
    from ..runs.spec import RunSpec
    from ..tasks.library import TaskLibrary

    Remote = tuple[ClusterOptions, JobOptions]  # a distributed run's cluster and job options


def cmd_run(args: argparse.Namespace) -> int:
    from ..kernels.spec import hide_from_kernels
    from ..models.judge import VisionJudge
    from ..runs.lease import RunBusy

    store = Store(args.db)
    store.check_writable()  # a run records every turn: refuse now, in one line, not per task
    player = _player(args, store)
    if player is None:
        return 2
    names = ("model", "base_url", "api_key_env", "api_key_file")
    judge = VisionJudge.from_env(**{k: getattr(args, f"judge_{k}") for k in names})
    config = getattr(player, "config", None)
    hidden = (config.api_key_env if config else "", judge.api_key_env if judge else "")
    hide_from_kernels(*hidden)
    try:
        remote = _remote(args, hidden)
    except BadInput as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if remote is None and not start_sandbox(args):
        return 2
    lib = library(args)
    tasks = _selected(args, lib, player)
    if not tasks:
        return 2
    attempts = Attempts(store, lib)
    spec, observer = _spec(args, player), ProgressObserver(tasks, live=not args.no_progress)
    if remote is not None:
        play = _run_remote(attempts, tasks, spec, observer, remote)
    else:
        play = _run(attempts, tasks, spec, args, observer, judge)
    try:
        ids = _interruptible(play, spec.name)
    except (BadInput, RunBusy) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    _finished(store, lib, ids, player, args, spec.name)
    return observer.report(spec.name)


def _interruptible(play: Coroutine[Any, Any, list[str]], run_name: str) -> list[str]:
    """``play`` run to its end, a SIGTERM meanwhile taken as Ctrl-C (:func:`_as_interrupt`) — in the main
    thread only (a signal handler cannot be set elsewhere: the lab replays a run in a worker thread).
    Either says in one line which run stopped."""
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(play)
    before = signal.signal(signal.SIGTERM, _as_interrupt)
    try:
        return asyncio.run(play)
    except KeyboardInterrupt:
        print(f"interrupted: run {run_name} stopped; the same --run {run_name} resumes it", file=sys.stderr)
        raise
    finally:
        signal.signal(signal.SIGTERM, before)


def _as_interrupt(signum: int, frame: Any) -> None:
    """SIGTERM stops a run as Ctrl-C does: its attempts are cancelled, its kernels (the pool's
    too) shut down, its folders removed and its lease released, then it exits."""
    os.kill(os.getpid(), signal.SIGINT)


def _finished(
    store: Store, lib: TaskLibrary, ids: list[str], player: Player, args: argparse.Namespace, run_name: str
) -> None:
    """The run's table, its transcript when asked, and where its leaderboard is."""
    from .run_summary import print_summary

    judge = {
        "model": args.judge_model,
        "base_url": args.judge_base_url,
        "api_key_env": args.judge_api_key_env,
    }
    title = f"run {run_name} · {player.name} · {args.mode} · profile {PROFILE}"
    print_summary(store, lib, ids, title, run_name, judge)
    if args.export_transcript:
        from ..players.transcript import export_transcript

        n = export_transcript(store, run_name, args.export_transcript)
        print(f"transcript: {n} turns -> {args.export_transcript}", file=sys.stderr)
    print(f"leaderboard view (splits, E-/O- columns): cibench-lab report {run_name}", file=sys.stderr)


def _selected(args: argparse.Namespace, lib: TaskLibrary, player: Player) -> list[Task]:
    """The tasks ``--tasks`` (or a replay's transcript) names that the player can play; [] after
    printing why there are none."""
    patterns = args.tasks or (player.task_ids() if hasattr(player, "task_ids") else None)
    if patterns == []:  # a replay with no turns: nothing to play (not every task)
        print(f"error: {player.name} has no recorded turns to play", file=sys.stderr)
        return []
    tasks = lib.select(patterns)
    if not tasks:
        print(f"error: no task matches {' '.join(patterns or [])}", file=sys.stderr)
        return []
    return _playable(player, tasks)


def _playable(player: Player, tasks: list[Task]) -> list[Task]:
    """The tasks ``player`` can play; each one it refuses (the reference player and a task without
    reference code: its benchmark's refusal) is named on stderr and left out."""
    from ..players import ReferencePlayer, reference_refusal

    if not isinstance(player, ReferencePlayer):
        return tasks
    keep = []
    for task in tasks:
        why = reference_refusal(task)
        if why is None:
            keep.append(task)
        else:
            print(f"skipped: {why}", file=sys.stderr)
    if not keep:
        print("error: --player reference: none of the selected tasks has reference code", file=sys.stderr)
    return keep


def _player(args: argparse.Namespace, store: Store) -> Player | None:
    """The player ``--player`` names, or None after printing why it (or the run) cannot be made."""
    from ..players import PlayerContext, make_player

    if args.grading_workers < 1:
        print("error: --grading-workers: must be at least 1", file=sys.stderr)
        return None
    try:
        options = _model_options(args)
        config_file = options.pop("config_file", None)
        ctx = PlayerContext(store=store, model_options=options, config_file=config_file)
        return make_player(args.player, ctx)
    except ValueError as err:  # SpecError, ConfigError and TranscriptError are ValueErrors
        print(f"error: --player: {str(err).removeprefix('player: ')}", file=sys.stderr)
        return None


def _pool(args: argparse.Namespace) -> PoolSettings | None:
    from ..kernels.pool import PoolSettings

    memory = PoolSettings.memory_mb if args.kernel_pool_memory is None else args.kernel_pool_memory
    return PoolSettings(args.kernel_pool, memory) if args.kernel_pool > 0 else None


def _spec(args: argparse.Namespace, player: Player) -> RunSpec:
    """The run the command line asks for (``--run``, or a name from the player and mode), as both
    entry points take it."""
    from ..runs.spec import RunSpec

    return RunSpec(
        player,
        args.mode,
        args.run or default_run_name(player, args.mode),
        timeout=args.timeout,
        compat_timeout=args.compat_timeout,
        jobs=args.jobs,
        kernel_pool=_pool(args),
    )


async def _run(
    attempts: Attempts,
    tasks: list[Task],
    spec: RunSpec,
    args: argparse.Namespace,
    observer: ProgressObserver,
    judge: VisionJudge | None,
) -> list[str]:
    from ..grading.pool import Grader
    from ..runs.local import run_tasks

    grader = Grader(judge, args.grading_workers)
    player = spec.player
    try:
        with observer:
            return await run_tasks(attempts, tasks, spec, observer=observer, grader=grader)
    finally:
        grader.close()
        if judge is not None:
            await judge.aclose()
        close = getattr(player, "aclose", None)
        if close is not None:
            await close()


def _remote(args: argparse.Namespace, hidden: tuple[str, ...]) -> Remote | None:
    """(cluster, job options) of a distributed run; None for a local one."""
    from .cluster import cluster_options, job_options, wanted

    if not wanted(args):
        return None
    return cluster_options(args), job_options(args, _model_options(args), hidden)


async def _run_remote(
    attempts: Attempts, tasks: list[Task], spec: RunSpec, observer: ProgressObserver, remote: Remote
) -> list[str]:
    from ..runs.dask.driver import run_on_cluster

    cluster, jobs = remote
    with observer:
        return await run_on_cluster(attempts, tasks, spec, cluster, jobs, observer=observer)


def _model_options(args: argparse.Namespace) -> dict[str, Any]:
    if not args.player.startswith("openai:"):
        for flag in ("base_url", "protocol", "merge_roles", "model_config"):
            if getattr(args, flag):
                raise ValueError(f"--{flag.replace('_', '-')} applies to openai:MODEL players only")
        return {}
    return {
        "config_file": args.model_config,
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "api_key_file": args.api_key_file,
        "protocol": args.protocol,
        "merge_roles": args.merge_roles or None,
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "request_timeout": args.request_timeout,
        "retries": args.retries,
    }


def default_run_name(player: Player, mode: str) -> str:
    model = player.describe().get("model")
    if model:
        merged = "-merged" if model.get("merge_roles") else ""
        return f"{player.name}-{model['protocol']}{merged}-{mode}"
    return f"{player.name}-{mode}"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = add_command(sub, "run")
    r.add_argument(
        "--player",
        default="reference",
        help="reference (default) | openai:MODEL | replay:FILE | replay:attempt:ID",
    )
    r.add_argument("--mode", choices=MODES, default="e2e", help="end-to-end or oracle")
    r.add_argument("--tasks", nargs="+", metavar="ID", help="task ids or glob patterns (default: all)")
    r.add_argument("--run", help="run name; the same name again skips finished attempts, resumes open ones")
    r.add_argument("--jobs", type=int, default=1, help="attempts played at once, one kernel each (default 1)")
    r.add_argument("--timeout", type=float, default=300.0, help="seconds per turn (default 300)")
    _pool_arguments(r)
    r.add_argument(
        "--compat-timeout",
        action="store_true",
        help="OpenCompass's rule too: a turn fails after 10 s without any output",
    )
    r.add_argument("--export-transcript", metavar="FILE", help="write the run's turns as JSONL (replay:FILE)")
    r.add_argument("--no-progress", action="store_true", help="plain progress lines, no bar")
    _model_arguments(r)
    add_sandbox_options(r)
    add_cluster_options(r)
    _grading_arguments(r)
    r.set_defaults(fn=cmd_run)


def _pool_arguments(r: argparse.ArgumentParser) -> None:
    r.add_argument(
        "--kernel-pool",
        type=int,
        default=0,
        metavar="N",
        help="warm kernels: the next task's kernel starts while one plays (N per library set; 0: off)",
    )
    r.add_argument(
        "--kernel-pool-memory",
        type=int,
        metavar="MB",
        help="resident memory all waiting pooled kernels may hold together (default 2048)",
    )


def _model_arguments(r: argparse.ArgumentParser) -> None:
    m = r.add_argument_group("model players (openai:MODEL)")
    m.add_argument("--base-url", help="OpenAI-compatible endpoint, up to /v1 (default: $OPENAI_BASE_URL)")
    m.add_argument("--api-key-env", help="environment variable holding the key (default OPENAI_API_KEY)")
    m.add_argument("--api-key-file", help="a file holding the key (kept out of the environment; chmod 600)")
    m.add_argument("--model-config", help="JSON/TOML file: {models: {NAME: {base_url, model, ...}}}")
    m.add_argument("--protocol", choices=("cibench-react", "tools"), help="default cibench-react")
    m.add_argument(
        "--merge-roles",
        action="store_true",
        help="cibench-react without mid-conversation system messages (OpenCompass's CIReActMergeRole)",
    )
    m.add_argument("--temperature", type=float, help="default 0")
    m.add_argument("--max-tokens", type=int, help="new tokens per reply (default 512, as CIBench)")
    m.add_argument("--request-timeout", type=float, help="seconds per model request (default 120)")
    m.add_argument("--retries", type=int, help="retries on 429/5xx/timeouts/malformed replies (default 6)")


def _grading_arguments(r: argparse.ArgumentParser) -> None:
    g = r.add_argument_group("grading")
    g.add_argument(
        "--grading-workers",
        type=int,
        default=WORKERS,
        help=f"processes grading image turns (default {WORKERS})",
    )
    g.add_argument("--judge-model", help="VLM judge of vis steps (default: $CIBENCH_LAB_JUDGE_MODEL; none)")
    g.add_argument("--judge-base-url", help="the judge's endpoint, up to /v1 ($CIBENCH_LAB_JUDGE_BASE_URL)")
    g.add_argument(
        "--judge-api-key-env", help="variable holding the judge's key ($CIBENCH_LAB_JUDGE_API_KEY_ENV)"
    )
    g.add_argument(
        "--judge-api-key-file",
        help="file whose first line is the judge's key ($CIBENCH_LAB_JUDGE_API_KEY_FILE)",
    )
