"""The server extension: configuration, services built once, handlers."""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.serverapp import ServerApp
from traitlets import Bool, Dict, Enum, Float, Int, List, Unicode

from .engine.attempt import Attempts
from .engine.cull import check_cull
from .engine.errors import BadInput
from .engine.interpreter import PYTHON_VAR, check_kernel_python, kernel_python, kernel_python_note
from .engine.kernel import ensure_kernelspec, hide_from_kernels
from .engine.lab import LabConfig, LabPlay
from .engine.proctor import apply_preset
from .engine.sandbox import SandboxSetting, configure, prepare
from .engine.settings import REVEAL, PlaySettings
from .engine.workspace import check_writable, unwritable
from .grading.kept import GRADE_RULES
from .grading.pool import WORKERS, Grader
from .grading.profile import PROFILES
from .handlers.routes import handlers
from .models.config import ModelRegistry, read_config_file
from .models.judge import VisionJudge
from .models.redact import redact_logs
from .store import NeedsUpgrade, Store, StoreError
from .tasks.library import TaskLibrary, default_task_dirs

KERNEL_ACTIONS = "https://events.jupyter.org/jupyter_server/kernel_actions/v1"


@dataclass
class Services:
    """Everything the handlers use, built once when the server starts."""

    library: TaskLibrary
    store: Store
    attempts: Attempts
    lab: LabPlay
    participant: str
    models: ModelRegistry

    def settings_view(self) -> dict:
        c = self.lab.config
        return {
            "defaults": c.settings.as_dict(),
            "locked": c.lock_settings,
            "turn_timeout": c.turn_timeout,
            "kernel_idle_cull": c.kernel_idle_cull,
            "profile": self.attempts.profile,
            "profiles": list(PROFILES),
        }


class CIBenchLabApp(ExtensionApp):
    name = "cibench_lab"
    judge: VisionJudge | None = None  # built from the judge_* traits, injected into the grader

    task_dirs = List(
        Unicode(),
        default_value=[],
        help=(
            "Task directories in CIBench's layout (<dir>/<split>/<lib>/*.ipynb + <dir>/datasources). "
            "Empty (default): the built-in tasks plus those imported into "
            "<jupyter data dir>/cibench_lab/tasks."
        ),
    ).tag(config=True)
    database_url = Unicode(
        "",
        help=(
            "SQLAlchemy URL of the results store. Empty (default): a SQLite file at "
            "<jupyter data dir>/cibench_lab/results.sqlite. Any SQLAlchemy URL works, e.g. "
            "postgresql+psycopg://user@host/cibench for a shared class database."
        ),
    ).tag(config=True)
    db_auto_upgrade = Bool(
        False,
        help=(
            "Upgrade a non-SQLite results database (e.g. a class's PostgreSQL) to this version's "
            "schema when the server starts. Off (default): the server refuses to start on a database "
            "that needs an upgrade and names the command that does it (`cibench-lab db upgrade`). "
            "A SQLite database is always upgraded."
        ),
    ).tag(config=True)
    attempts_dir = Unicode(
        "cibench-attempts",
        help=(
            "Folder under the server root where each attempt gets its own folder "
            "(a copy of the task's data and the attempt's notebook)."
        ),
    ).tag(config=True)
    turn_timeout = Float(
        120.0,
        help=(
            "Seconds the server waits for a turn's execution to finish (kernel idle) before "
            "grading it as timed out; also bounds hidden setup runs."
        ),
    ).tag(config=True)
    profile = Enum(
        list(PROFILES),
        default_value="fair",
        help=(
            "The grading profile the lab shows: badges, the Turns dialog, summaries. `fair` (default): "
            "ours (plots by what the figure shows, CJK-aware text, numbers with tolerance; "
            "docs/grading.md); `cibench`: CIBench's own rules (plots by SSIM; its text rule reads only "
            "Latin letters and digits, so Chinese answers are not read). Every turn is graded and stored "
            "under every profile whatever this says (each attempt's view carries both summaries)."
        ),
    ).tag(config=True)
    kernel_idle_cull = Float(
        1800.0,
        help=(
            "Seconds an attempt's kernel may stay idle (no run, no edit of the attempt, no kernel "
            "activity) before the server shuts it down; the notebook's next run starts a new kernel "
            "and the attempt's state is restored on it. 0: never. Must be longer than every "
            "attempt's pause_after. A finished attempt's kernel is always shut down when it finishes."
        ),
    ).tag(config=True)
    interrupt_grace = Float(
        10.0,
        help=(
            "Seconds a timed-out turn's kernel may take to stop after it is interrupted; one still "
            "busy then is restarted and the attempt's state restored on it (the turn records which)."
        ),
    ).tag(config=True)
    show_grades = Bool(
        True,
        help=(
            "Show each turn's grade before the step settles (live feedback). Off: grades "
            "appear when the attempt is finished."
        ),
    ).tag(config=True)
    turn_cap = Int(
        0,
        help=(
            "A person's step settles after this many turns (0 = no cap). 3 matches the model "
            "protocol's max_turn."
        ),
    ).tag(config=True)
    pause_after = Int(
        300,
        help=(
            "Seconds without an edit and without a run of the open step that pause its working "
            "clock (time per step net of pauses, shown beside wall time); any edit or run resumes "
            "it. At least 1; recorded with each attempt."
        ),
    ).tag(config=True)
    reveal = Enum(
        list(REVEAL),
        default_value="after-task",
        help=(
            "When an end-to-end step's reference code and output are shown: after-step, "
            "after-task or never. Oracle mode shows each settled step's reference by nature."
        ),
    ).tag(config=True)
    grade_rule = Enum(
        list(GRADE_RULES),
        default_value="best",
        help=(
            "The grade a person's step keeps: `best` (default) the best of its runs so far (passed, "
            "then score, then ran without error), `settling` the profile applied to its runs when it "
            "settles, as for models (the last run's grade). A model's or replay's attempt is always "
            "`settling`. Recorded with each attempt."
        ),
    ).tag(config=True)
    lock_settings = Bool(
        False,
        help=(
            "When True, attempts always use the server's settings above and settings sent "
            "by the browser (from the lab's settings editor) are ignored."
        ),
    ).tag(config=True)

    models = Dict(
        default_value={},
        help=(
            "Models the lab may attach to an attempt: {NAME: {model, base_url, api_key_env, protocol, "
            "merge_roles, temperature, max_tokens, ...}}, as in `cibench-lab run --model-config`. Keys "
            "stay on the server (read from the named environment variables); the browser sees names "
            "and protocols only."
        ),
    ).tag(config=True)

    model_config_file = Unicode(
        "",
        help=(
            "A JSON or TOML file of models the lab may attach, in the format of `cibench-lab run "
            '--model-config` ({"models": {NAME: {...}}}); they join `models` (which wins on a clash).'
        ),
    ).tag(config=True)

    participant = Unicode(
        "",
        help=(
            "Name under which this server's attempts are recorded. Empty (default): the JupyterHub "
            "user (JUPYTERHUB_USER) when running under JupyterHub, else the operating-system "
            "user."
        ),
    ).tag(config=True)

    judge_model = Unicode(
        "",
        help=(
            "Vision model for the optional VLM judge of vis steps (fair profile), on any "
            "OpenAI-compatible endpoint. Empty (default): no judge."
        ),
    ).tag(config=True)
    judge_base_url = Unicode("", help="Base URL of the judge's OpenAI-compatible API (empty: OpenAI's).").tag(
        config=True
    )
    judge_api_key_env = Unicode(
        "OPENAI_API_KEY", help="Name of the environment variable that holds the judge's API key."
    ).tag(config=True)
    kernel_sandbox = Bool(
        True,
        help=(
            "Start every task kernel in a bubblewrap sandbox (Debian's bubblewrap package): it sees "
            "its own Python environment read-only, its attempt folder at /work/attempt, a private /tmp "
            "and HOME, no server process and (unless kernel_network) no network. Off: kernels run as "
            "the server's user with its view of the disk; each attempt records the choice."
        ),
    ).tag(config=True)
    kernel_python = Unicode(
        "",
        help=(
            "The Python task kernels run (an environment with ipykernel and the task libraries; "
            "nothing of cibench_lab is needed in it). Empty: $CIBENCH_LAB_KERNEL_PYTHON, else the "
            "kernel environment scripts/setup installs inside the server's environment "
            "(<venv>/kernel/bin/python) when it exists, else the server's own Python (logged). "
            "Each attempt records its version and libraries, asked of that interpreter."
        ),
    ).tag(config=True)
    kernel_network = Bool(
        False,
        help="Let sandboxed task kernels reach the network (off by default); recorded with each attempt.",
    ).tag(config=True)
    proctored = Bool(
        False,
        help=(
            "The preset for studies and exams: kernels sandboxed (kernel_sandbox cannot be turned "
            "off), Jupyter terminals off, and only the `cibench-lab` kernelspec can be started, so "
            "nothing a participant runs gets outside the sandbox (to the task files, the database or "
            "the admin command line)."
        ),
    ).tag(config=True)
    grading_workers = Int(
        WORKERS,
        help=(
            "Processes that grade turns with images or long outputs (SSIM, decoding), at a lower "
            "CPU priority than the server; each may need ~2 GB for a 25-megapixel plot."
        ),
    ).tag(config=True)

    @property
    def _server(self) -> ServerApp:
        """``serverapp``, which is set once the extension is linked (before initialize_settings)."""
        assert self.serverapp is not None, "the extension is not linked to a server"
        return self.serverapp

    def _link_jupyter_server_extension(self, serverapp: ServerApp) -> None:
        super()._link_jupyter_server_extension(serverapp)
        if self.proctored:  # before the server builds its kernel managers and terminals
            apply_preset(serverapp)

    def initialize_settings(self) -> None:
        self._start_kernel_python()
        self._start_sandbox()
        ensure_kernelspec(self._server.kernel_spec_manager)
        library = TaskLibrary.load([Path(d) for d in self.task_dirs] or default_task_dirs())
        root = Path(self._server.root_dir).resolve()
        self._check_attempts_dir(root)
        store = self._open_store()
        attempts = Attempts(store, library, self.profile)
        participant = self.participant or os.environ.get("JUPYTERHUB_USER") or getpass.getuser()
        config = LabConfig(
            root_dir=root,
            attempts_dir=self.attempts_dir,
            turn_timeout=self.turn_timeout,
            interrupt_grace=self.interrupt_grace,
            kernel_idle_cull=self.kernel_idle_cull,
            lock_settings=self.lock_settings,
            settings=PlaySettings(
                show_grades=self.show_grades,
                turn_cap=self.turn_cap,
                reveal=self.reveal,
                grade_rule=self.grade_rule,
                pause_after=self.pause_after,
            ),
            participant=participant,
        )
        config.settings.validate()
        self._check_cull(config)
        models = ModelRegistry(self._model_configs())
        hide_from_kernels(self.judge_api_key_env, *(c.api_key_env for c in models.configs.values()))
        self.judge = self._judge()
        grader = Grader(self.judge, self.grading_workers)
        grader.warm()  # the first text grade would load rouge-score and nltk (seconds): now, in its thread
        lab = LabPlay(attempts, self._server, config, models, grader)
        self.services = Services(library, store, attempts, lab, participant, models)
        self.settings.update({"cibench_lab": self.services})
        events = self._server.event_logger
        assert events is not None  # ServerApp makes one when it initializes
        events.add_listener(schema_id=KERNEL_ACTIONS, listener=self._on_kernel)
        redact_logs(logging.getLogger(), self.log, self._server.log)
        self.log.info("cibench-lab: %d tasks, results in %s", len(library.tasks), store.shown_url)

    def _check_cull(self, config: LabConfig) -> None:
        """Idle kernels are culled after the working clock pauses, or the server exits saying so."""
        try:
            check_cull(config.kernel_idle_cull, config.settings.pause_after, "CIBenchLabApp.pause_after")
        except BadInput as err:
            self.log.critical("cibench-lab: %s", err)
            raise SystemExit(1) from None

    def _start_kernel_python(self) -> None:
        """Kernels run the configured Python, or the server exits with one line saying why not."""
        if self.kernel_python:
            os.environ[PYTHON_VAR] = self.kernel_python
        problem = check_kernel_python()
        if problem:
            self.log.critical("cibench-lab: %s", problem)
            raise SystemExit(1)
        executable = kernel_python()
        log = self.log.info if executable != sys.executable else self.log.warning
        log("cibench-lab: %s", kernel_python_note(executable))

    def _start_sandbox(self) -> None:
        """Kernels start sandboxed as configured, or the server exits with one line saying why not."""
        if self.proctored and not self.kernel_sandbox:
            self.log.critical("cibench-lab: proctored needs the kernel sandbox (kernel_sandbox=False given)")
            raise SystemExit(1)
        problem = prepare() if self.kernel_sandbox else None
        if problem:
            self.log.critical("cibench-lab: %s", problem)
            raise SystemExit(1)
        configure(SandboxSetting(self.kernel_sandbox, self.kernel_network))
        # the server's kernels only (not a headless kernel of this process): see no folder but an attempt's
        attempts = Path(self._server.root_dir, self.attempts_dir).resolve()
        self._server.config.SandboxProvisioner.attempts_root = str(attempts)
        if not self.kernel_sandbox:
            self.log.warning("cibench-lab: task kernels are NOT sandboxed (kernel_sandbox=False)")

    def _open_store(self) -> Store:
        """The results store at this version's schema, or the server exits with one line.

        Without its database the extension can record nothing; a server that kept running
        would show a panel whose every call fails, with the reason far back in the log."""
        store = None
        try:
            store = Store(self.database_url or None, auto_upgrade=self.db_auto_upgrade)
            store.check_writable()  # every Start and turn writes: say so now, not as a 500 later
            return store
        except StoreError as err:
            if store is not None:
                store.dispose()
            hint = " (or start with --CIBenchLabApp.db_auto_upgrade=True)"
            hint = hint if isinstance(err, NeedsUpgrade) else ""
            self.log.critical("cibench-lab: %s%s", err, hint)
            raise SystemExit(1) from None

    def _check_attempts_dir(self, root: Path) -> None:
        """Each Start writes a folder under ``attempts_dir``: a server that cannot would answer
        every Start with an error, so it exits with one line instead (as for its database)."""
        folder = root / self.attempts_dir
        try:
            check_writable(folder)
        except OSError as err:
            what = f"the attempts folder {folder}"
            self.log.critical("cibench-lab: %s", unwritable(err, what, "CIBenchLabApp.attempts_dir"))
            raise SystemExit(1) from None

    def _judge(self) -> VisionJudge | None:
        """The VLM judge the ``judge_*`` traits (and any ``VisionJudge`` config) describe."""
        if not self.judge_model:
            return None
        return VisionJudge(
            parent=self,
            model=self.judge_model,
            base_url=self.judge_base_url,
            api_key_env=self.judge_api_key_env or "OPENAI_API_KEY",
        )

    def _model_configs(self) -> dict:
        configs = read_config_file(self.model_config_file) if self.model_config_file else {}
        return {**configs, **self.models}

    async def _on_kernel(self, logger, schema_id: str, data: dict) -> None:
        kernel_id = data.get("kernel_id")
        if data.get("status") != "success" or not kernel_id:
            return
        km = self._server.kernel_manager
        for _ in range(50):  # the manager registers a started kernel just after the event
            if kernel_id in km or data.get("action") == "shutdown":
                break
            await asyncio.sleep(0.02)
        self.services.lab.on_kernel_action(data.get("action", ""), kernel_id)

    def initialize_handlers(self) -> None:
        self.handlers.extend(handlers())

    async def stop_extension(self) -> None:
        await self.services.lab.close()
        if self.judge is not None:
            await self.judge.aclose()
        self.services.store.dispose()
