"""Record the reference outputs of the built-in tasks.

    python -m cibench_lab.builtin.build [--check] [--timeout SECONDS] [NOTEBOOK ...]

Each task notebook (default: every ``cibench_template*/<lib>/*.ipynb`` next to this file) is run
top to bottom in ONE fresh ``cibench-lab`` kernel whose working directory is a temporary copy of
``datasources/`` — exactly how a player's attempt runs — after the hidden start code
(:data:`cibench_lab.engine.kernel.START_CODE`, not stored).  The real outputs are written back
into the notebook in place; execution timing metadata is not recorded, so a rebuild on the same
machine is byte-identical.  Before anything is written, the notebook's structure (alternating
instruction/code cells, ``step_types``, ``modules``, ``cibench_lab`` metadata) and every step's
outputs are checked against its step kind:

- ``exec``: no output at all;
- ``num``:  exactly one stdout stream or execute_result holding one number;
- ``text``: exactly one stdout stream or execute_result holding one short line;
- ``vis``:  exactly one display_data with an ``image/png``;
- never an error or a stderr stream.

A notebook that fails a check is not written.  ``--check`` writes nothing and exits non-zero if
any notebook would change (use it to prove the references are reproducible here).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from cibench_lab.builtin import BUILTIN_DIR, DATASOURCES_DIR
from cibench_lab.engine.kernel import KERNEL_NAME, START_CODE, ensure_kernelspec

STEP_KINDS = ("exec", "num", "text", "vis")
STEP_SECONDS = 3.0  # TASK-AUTHORING.md: a typical step takes at most this long ...
TASK_SECONDS = 30.0  # ... and a whole task at most this long, on two cores.
TEXT_MAX_CHARS = 200
NUMBER_RE = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


class BuildError(Exception):
    """A task notebook that cannot be built; the message names the file and the problem."""


@dataclass
class BuildResult:
    path: Path
    steps: int
    seconds: float
    step_seconds: list[float] = field(default_factory=list)
    changed: bool = False


def default_paths() -> list[Path]:
    return sorted(BUILTIN_DIR.glob("cibench_template*/*/*.ipynb"))


# --------------------------------------------------------------------------- structure


def check_structure(nb: nbformat.NotebookNode) -> list[str]:
    """Problems with the CIBench format of ``nb`` (empty when it is fine)."""
    problems: list[str] = []
    cells = nb.cells
    if not cells or len(cells) % 2:
        problems.append(f"expected an even, non-zero number of cells, found {len(cells)}")
    for index, cell in enumerate(cells):
        want = "markdown" if index % 2 == 0 else "code"
        if cell.cell_type != want:
            problems.append(f"cell {index}: expected a {want} cell, found {cell.cell_type}")
        elif not "".join(cell.source).strip():
            problems.append(f"cell {index}: empty {want} cell")
    n_steps = len(cells) // 2
    meta = nb.metadata
    step_types = meta.get("step_types")
    if not isinstance(step_types, list) or len(step_types) != n_steps:
        problems.append(f"metadata.step_types must list one kind per step ({n_steps} steps)")
    else:
        for i, kind in enumerate(step_types):
            if kind not in STEP_KINDS:
                problems.append(f"metadata.step_types[{i}]: {kind!r} is not one of {STEP_KINDS}")
    modules = meta.get("modules")
    if (
        not isinstance(modules, list)
        or len(modules) != n_steps
        or not all(isinstance(m, str) and m.strip() for m in modules)
    ):
        problems.append(f"metadata.modules must hold one non-empty string per step ({n_steps} steps)")
    lab = meta.get("cibench_lab")
    if not isinstance(lab, dict) or lab.get("schema_version") != 1 or not lab.get("title"):
        problems.append("metadata.cibench_lab must be an object with schema_version 1 and a title")
    if meta.get("kernelspec", {}).get("name") != KERNEL_NAME:
        problems.append(f"metadata.kernelspec.name must be {KERNEL_NAME!r}")
    return problems


# --------------------------------------------------------------------------- outputs


def _output_text(output: nbformat.NotebookNode) -> str:
    if output.output_type == "stream":
        text = output.text
    else:
        text = output.get("data", {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else text


def check_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """Problems with the recorded outputs of each step, given its step kind."""
    problems: list[str] = []
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    for number, (kind, cell) in enumerate(zip(nb.metadata["step_types"], code_cells, strict=False), start=1):
        where = f"step {number} ({kind})"
        outputs = cell.outputs
        for output in outputs:
            if output.output_type == "error":
                problems.append(f"{where}: raised {output.ename}: {output.evalue}")
            elif output.output_type == "stream" and output.name == "stderr":
                problems.append(f"{where}: wrote to stderr: {_output_text(output).strip()[:300]!r}")
        if kind == "exec":
            if outputs:
                kinds = ", ".join(o.output_type for o in outputs)
                problems.append(f"{where}: must produce no output, produced {kinds}")
            continue
        if kind == "vis":
            if (
                len(outputs) != 1
                or outputs[0].output_type != "display_data"
                or "image/png" not in outputs[0].get("data", {})
            ):
                kinds = ", ".join(o.output_type for o in outputs) or "nothing"
                problems.append(f"{where}: must show exactly one PNG figure, produced {kinds}")
            continue
        # num / text: one printed (or returned) answer
        if len(outputs) != 1 or not (
            (outputs[0].output_type == "stream" and outputs[0].name == "stdout")
            or outputs[0].output_type == "execute_result"
        ):
            kinds = ", ".join(o.output_type for o in outputs) or "nothing"
            problems.append(f"{where}: must print exactly one answer, produced {kinds}")
            continue
        answer = _output_text(outputs[0]).strip()
        if kind == "num" and not NUMBER_RE.fullmatch(answer):
            problems.append(f"{where}: must print one number, printed {answer[:100]!r}")
        if kind == "text" and (not answer or "\n" in answer or len(answer) > TEXT_MAX_CHARS):
            problems.append(f"{where}: must print one short line, printed {answer[:100]!r}")
    return problems


# --------------------------------------------------------------------------- execution


def _clear(nb: nbformat.NotebookNode) -> None:
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)


def _kernel_manager(spec_dir: Path) -> AsyncKernelManager:
    # Look only where ensure_kernelspec() just wrote, so a stale user-level spec cannot shadow it.
    spec_manager = KernelSpecManager(kernel_dirs=[str(spec_dir.parent)])
    return AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=spec_manager)


def execute(nb: nbformat.NotebookNode, spec_dir: Path, timeout: int) -> list[float]:
    """Run the code cells of ``nb`` in one fresh kernel, in place; return seconds per step."""
    _clear(nb)
    step_seconds: list[float] = []
    with tempfile.TemporaryDirectory(prefix="cibench-build-") as tmp:
        cwd = Path(tmp) / "datasources"
        shutil.copytree(DATASOURCES_DIR, cwd)
        client = NotebookClient(
            nb,
            km=_kernel_manager(spec_dir),
            kernel_name=KERNEL_NAME,
            timeout=timeout,
            allow_errors=False,
            record_timing=False,
            coalesce_streams=True,
            resources={"metadata": {"path": str(cwd)}},
        )
        client.reset_execution_trackers()
        with client.setup_kernel(cwd=str(cwd), cleanup_kc=True):
            assert client.kc is not None
            info = client.wait_for_reply(client.kc.kernel_info())
            if info is not None and "language_info" in info["content"]:
                nb.metadata["language_info"] = info["content"]["language_info"]
            # Hidden start code: silent, so it neither shows nor bumps the execution count.
            reply = client.wait_for_reply(client.kc.execute(START_CODE, silent=True, store_history=False))
            if reply is None or reply["content"].get("status") != "ok":
                raise BuildError("the kernel start code failed")
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                started = time.perf_counter()
                client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
                step_seconds.append(time.perf_counter() - started)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    return step_seconds


def _render(nb: nbformat.NotebookNode) -> str:
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def build(path: Path, spec_dir: Path, timeout: int, write: bool) -> BuildResult:
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # unreadable JSON, wrong nbformat, ...
        raise BuildError(f"{path}: not a readable notebook: {exc}") from exc
    problems = check_structure(nb)
    if problems:
        raise BuildError(f"{path}: " + "; ".join(problems))
    started = time.perf_counter()
    try:
        step_seconds = execute(nb, spec_dir, timeout)
    except CellExecutionError as exc:
        raise BuildError(f"{path}: a reference cell failed:\n{exc}") from exc
    except (CellTimeoutError, DeadKernelError) as exc:
        raise BuildError(f"{path}: {type(exc).__name__}: {exc}") from exc
    seconds = time.perf_counter() - started
    problems = check_outputs(nb)
    if problems:
        raise BuildError(f"{path}: outputs do not match the step kinds:\n  " + "\n  ".join(problems))
    nbformat.validate(nb)
    new_text = _render(nb)
    old_text = path.read_text(encoding="utf-8")
    changed = new_text != old_text
    if changed and write:
        path.write_text(new_text, encoding="utf-8")
    return BuildResult(path, len(step_seconds), seconds, step_seconds, changed)


def _warm_matplotlib() -> None:
    # A first matplotlib import builds the font cache and logs that on stderr; do it here, not in a step.
    try:
        import matplotlib.font_manager  # noqa: F401
    except ImportError:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cibench_lab.builtin.build", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("paths", nargs="*", type=Path, help="task notebooks (default: all built-in tasks)")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; fail if any notebook would change"
    )
    parser.add_argument("--timeout", type=int, default=120, help="seconds allowed per step (default 120)")
    args = parser.parse_args(argv)

    paths = [p.resolve() for p in args.paths] or default_paths()
    if not paths:
        print("no task notebooks found", file=sys.stderr)
        return 1
    spec_dir = ensure_kernelspec()
    _warm_matplotlib()

    failed = changed = 0
    for path in paths:
        try:
            result = build(path, spec_dir, args.timeout, write=not args.check)
        except BuildError as exc:
            failed += 1
            print(f"FAILED {exc}", file=sys.stderr)
            continue
        changed += result.changed
        state = ("would change" if args.check else "updated") if result.changed else "unchanged"
        slowest = max(result.step_seconds, default=0.0)
        print(
            f"{state:12} {path}  {result.steps} steps, {result.seconds:.1f} s (slowest step {slowest:.1f} s)"
        )
        slow = [f"{i}: {s:.1f} s" for i, s in enumerate(result.step_seconds, 1) if s > STEP_SECONDS]
        if slow:
            print(f"  warning: steps over {STEP_SECONDS:.0f} s: " + ", ".join(slow))
        if result.seconds > TASK_SECONDS:
            print(f"  warning: task took over {TASK_SECONDS:.0f} s")
    if failed:
        return 1
    if args.check and changed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
