"""`cibench-lab run --cluster`: the options of a distributed run and the jobs it ships.

cibench-lab run ... --cluster tcp://HOST:PORT | --scheduler-file FILE
    [--tls-ca-file F --tls-cert F --tls-key F] [--insecure]
"""

from __future__ import annotations

import argparse
import os

from ..errors import BadInput
from ..runs.dask.client import ClusterOptions, JobOptions
from .common import kernel_limits


def wanted(args: argparse.Namespace) -> bool:
    return bool(args.cluster or args.scheduler_file)


def cluster_options(args: argparse.Namespace) -> ClusterOptions:
    """The cluster the arguments name; BadInput for what a distributed run cannot do (every other
    option of ``run`` applies: ``--export-transcript`` reads the driver's database, as locally)."""
    if args.cluster and args.scheduler_file:
        raise BadInput("--cluster and --scheduler-file: give one")
    if args.jobs != 1:
        raise BadInput("--jobs applies to local runs: a cluster plays one attempt per worker thread")
    if args.player.startswith("replay:") or args.model_config:
        raise BadInput(
            "--cluster: replay players and --model-config need files of this machine; play them locally"
        )
    if args.kernel_pool or args.kernel_pool_memory is not None:
        raise BadInput(
            "--kernel-pool and --kernel-pool-memory apply to local runs: on a cluster each worker "
            "starts its attempts' kernels itself"
        )
    return ClusterOptions(
        address=args.cluster,
        scheduler_file=args.scheduler_file,
        tls_ca_file=args.tls_ca_file,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        insecure=args.insecure,
    )


def job_options(args: argparse.Namespace, options: dict, hidden: tuple[str, ...]) -> JobOptions:
    """What each worker is told: the player's spec and options (the key's variable name, never
    its value), the judge's names, the sandbox setting (its kernel limits too)."""
    given = {
        "model": args.judge_model,
        "base_url": args.judge_base_url,
        "api_key_env": args.judge_api_key_env,
        "api_key_file": args.judge_api_key_file,  # its path: each worker reads the key itself
    }
    judge = {k: v or os.environ.get(f"CIBENCH_LAB_JUDGE_{k.upper()}", "") for k, v in given.items()}
    limits = kernel_limits(args).flag()  # each worker's kernels run under the run's limits
    return JobOptions(
        player=args.player,
        model_options={k: v for k, v in options.items() if k != "config_file"},
        hide_env=tuple(n for n in hidden if n),
        judge=judge,
        sandbox={"enabled": not args.no_sandbox, "network": args.allow_network, "limits": limits},
        grading_workers=args.grading_workers,
    )


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("distributed runs (Dask; docs/operate/dask.md)")
    g.add_argument(
        "--cluster", metavar="ADDRESS", help="the Dask scheduler: tcp://HOST:PORT or tls://HOST:PORT"
    )
    g.add_argument("--scheduler-file", metavar="FILE", help="the scheduler's address from its scheduler file")
    g.add_argument("--tls-ca-file", metavar="FILE", help="CA certificate of the cluster (else Dask's config)")
    g.add_argument("--tls-cert", metavar="FILE", help="this client's certificate (else Dask's config)")
    g.add_argument("--tls-key", metavar="FILE", help="this client's private key (else Dask's config)")
    g.add_argument("--insecure", action="store_true", help="allow a scheduler on another machine without TLS")
