"""The server extension's configuration: every ``CIBenchLabApp`` trait (docs/reference/options.md shows them).

Declared on a base class of :class:`~.extension.CIBenchLabApp`, so the extension module holds
only how the services are built from them; they are set as ``CIBenchLabApp.NAME`` (the
section of a subclass reads its bases' traits).
"""

from __future__ import annotations

from jupyter_server.extension.application import ExtensionApp
from traitlets import Bool, Dict, Enum, Float, Int, List, Unicode

from ..grading.pool import WORKERS
from ..grading.profile import PROFILES
from ..kernels.libraries import CHECKS, TASK_LIBRARIES
from ..kernels.limits import KernelLimits
from ..store import DATABASE_URL_VAR
from ..tasks.vocabulary import GRADE_RULES, REVEALS
from .listtrait import NameList

LIMITS = KernelLimits()  # the defaults


class CIBenchLabTraits(ExtensionApp):
    """The configurable traits of the extension (no behaviour)."""

    task_dirs = NameList(
        default_value=[],
        help=(
            "Task directories in CIBench's layout (<dir>/<split>/<lib>/*.ipynb + <dir>/datasources). "
            "Empty (default): the built-in tasks, those imported into "
            "<jupyter data dir>/cibench_lab/tasks, and new_tasks_dir's when it is set (served even "
            "before that folder exists). Every directory but the built-in one is rescanned for new and "
            "changed notebooks while the server runs (when the lab lists the tasks or asks for one it "
            "does not know, at most every 3 seconds): a task made or imported meanwhile appears "
            "without a restart; a task whose notebook is removed stays until the server restarts."
        ),
    ).tag(config=True)
    database_url = Unicode(
        "",
        help=(
            "SQLAlchemy URL of the results store. Empty (default): the environment's "
            f"{DATABASE_URL_VAR} if set, else a SQLite file at "
            "<jupyter data dir>/cibench_lab/results.sqlite. Any SQLAlchemy URL works, e.g. "
            "postgresql+psycopg://user@host/cibench for a shared class database (a hub hands each "
            f"server its own in {DATABASE_URL_VAR}, which task kernels never see: docs/teach/reference.md)."
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
    new_tasks_dir = Unicode(
        "",
        help=(
            'The task directory "Make a CIBench Task from This Notebook" writes the tasks it makes into '
            "(classroom/<lib>/<stem>; each is added to the server's library at once). Empty (default): "
            "<jupyter data dir>/cibench_lab/tasks, where `cibench-lab tasks new` writes too. The default "
            "(empty) task_dirs serve this folder, set or not, and pick up the tasks other servers write "
            "into it (a class's shared folder: docs/teach/reference.md); when task_dirs is set, list this "
            "folder there too, or a task made here is served only until the server stops."
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
        min=0.0,
        help=(
            "Seconds the server waits for a turn's execution to finish (kernel idle) before "
            "grading it as timed out and interrupting its kernel; also bounds hidden setup runs."
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
        min=0.0,
        help=(
            "Seconds an attempt's kernel may stay idle (no run, no edit of the attempt, no kernel "
            "activity) before the server shuts it down; the notebook's next run starts a new kernel "
            "and the attempt's state is restored on it. 0: never. Must be longer than every "
            "attempt's pause_after. A finished attempt's kernel is always shut down once it is idle "
            "(oracle mode: after its last reference ran, or 60 seconds)."
        ),
    ).tag(config=True)
    interrupt_grace = Float(
        10.0,
        min=0.0,
        help=(
            "Seconds a timed-out turn's kernel may take to stop after it is interrupted; one still "
            "busy then is restarted and the attempt's state restored on it (the turn records which)."
        ),
    ).tag(config=True)
    kernel_pool_size = Int(
        0,
        min=0,
        help=(
            "Warm kernels kept ready per (kernel environment, library set): Start takes one (started "
            "in the sandbox, its task's libraries imported, its start code run at Start) instead of "
            "starting a kernel; one is started again in the background for the next Start, and the "
            "pool is filled when the server starts (the library sets most tasks share first, within "
            "kernel_pool_memory). A kernel is never reused across attempts; a restart starts a fresh "
            "one. 0 (default): off."
        ),
    ).tag(config=True)
    kernel_pool_memory = Int(
        2048,
        min=0,
        help=(
            "MB of resident memory all waiting pooled kernels may hold together; no kernel is "
            "started beyond it."
        ),
    ).tag(config=True)
    kernel_pool_idle = Float(
        600.0,
        min=0.0,
        help=(
            "Seconds a pooled kernel may wait unused before it is shut down (and not started again "
            "until a Start needs it)."
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
        min=0,
        help=(
            "A person's step settles after this many turns (0 = no cap). 3 matches the model "
            "protocol's max_turn."
        ),
    ).tag(config=True)
    pause_after = Int(
        300,
        min=1,
        help=(
            "Seconds without an edit and without a run of the open step that pause its working "
            "clock (time per step net of pauses, shown beside wall time); any edit or run resumes "
            "it. At least 1; recorded with each attempt."
        ),
    ).tag(config=True)
    reveal = Enum(
        list(REVEALS),
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
    guard_settings = Enum(
        ["auto", "on", "off"],
        default_value="auto",
        help=(
            "Whether a person's lab settings (Settings -> CIBench, sent with Start) may only tighten the "
            "server's turn_cap, reveal, show_grades and grade_rule, never loosen them "
            "(docs/teach/reference.md, "
            "'Whose settings'). auto (default): on where the server is proctored, has studies, names "
            "instructors, researchers or class_members, locks its settings, or runs under JupyterHub "
            "(whose groups name classes and instructors); on: always; off: a person's settings replace "
            "the server's."
        ),
    ).tag(config=True)
    models = Dict(
        default_value={},
        help=(
            "Models the lab may attach to an attempt: {NAME: {model, base_url, api_key_env, api_key_file, "
            "protocol, merge_roles, temperature, max_tokens, ...}}, as in `cibench-lab run --model-config`. "
            "Keys stay on the server (read from api_key_file, a file outside the server root that only the "
            "server's user reads, else from the named environment variable); the browser sees names and "
            "protocols only."
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
    instructors = NameList(
        default_value=[],
        help=(
            "User names with the instructor role: each reads the attempts of the members of every "
            "class they belong to (`class_members`, or a JupyterHub group cibench-class-<name>). Joined by "
            "the members of the JupyterHub group cibench-instructors (docs/teach/reference.md)."
        ),
    ).tag(config=True)
    researchers = NameList(
        default_value=[],
        help=(
            "User names that may read every participant's record of a study (GET "
            "studies/{id}/participants) and compare its people with model runs (GET studies/{id}/compare, "
            "the study view's Results). Joined by the members of the JupyterHub group "
            "cibench-researchers (docs/teach/reference.md)."
        ),
    ).tag(config=True)
    researcher_key_sha256 = Unicode(
        "",
        help=(
            "On a server whose studies sign participants in with codes (a shared seat), the seat with "
            "no code signed in holds the participant role only, whatever roles the server's own user "
            "has. A request carrying the researcher key in the X-CIBench-Researcher-Key header gets "
            "them back: this is the key's SHA-256, 64 hex digits (empty, default: no key; researchers "
            "read results on their own server or with `cibench-lab export`). docs/studies.md."
        ),
    ).tag(config=True)
    class_members = Dict(  # not `classes`: traitlets' Application holds its configurable classes there
        value_trait=List(Unicode()),
        default_value={},
        help=(
            "Classes: {class name: [member user names]}. Joined by the JupyterHub groups "
            "cibench-class-<class name> (read with the server's hub token: grant "
            "read:users:groups!user to the hub's server role, docs/teach/reference.md); an instructor "
            "teaches each class they are a member of."
        ),
    ).tag(config=True)
    class_tasks = Dict(
        default_value={},
        help=(
            "Each class's task list: {class name: [task ids or patterns such as 'classroom/*']}. A "
            "participant of a class named here sees and starts only the tasks of their classes' lists; "
            "instructors, researchers and users in no such class see every task (docs/teach/reference.md)."
        ),
    ).tag(config=True)
    hub_groups_ttl = Float(
        60.0,
        min=0.0,
        help=(
            "Seconds the server keeps a user's JupyterHub groups and a class group's members, read "
            "through the hub's API with the server's token (JUPYTERHUB_API_TOKEN); a hub that does "
            "not answer leaves the roles these settings give (logged)."
        ),
    ).tag(config=True)
    judge_model = Unicode(
        "",
        help=(
            "Vision model for the optional VLM judge of vis steps (fair profile), on any "
            "OpenAI-compatible endpoint. Empty (default): no judge. VisionJudge.timeout (60 s) and "
            "VisionJudge.max_tokens (32) tune its requests (docs/grading.md)."
        ),
    ).tag(config=True)
    judge_base_url = Unicode("", help="Base URL of the judge's OpenAI-compatible API (empty: OpenAI's).").tag(
        config=True
    )
    judge_api_key_env = Unicode(
        "OPENAI_API_KEY", help="Name of the environment variable that holds the judge's API key."
    ).tag(config=True)
    judge_api_key_file = Unicode(
        "",
        help=(
            "A file whose first line is the judge's API key, read at each request and never put into "
            "an environment; keep it outside the server root (the server refuses to start otherwise), "
            "readable by the server's user only. Empty (default): the variable judge_api_key_env names."
        ),
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
    kernel_check = Enum(
        list(CHECKS),
        "find",
        help=(
            "What the server checks at start of the kernel Python (kernel_libraries and ipykernel), "
            "refusing to start with one line naming what failed: 'find' (default) that each is "
            "installed (free: the interpreter's own answer, kept on disk); 'import' also imports each "
            "once (~5 s for the ten; kept until the environment's packages change); 'off' nothing."
        ),
    ).tag(config=True)
    kernel_libraries = NameList(
        default_value=list(TASK_LIBRARIES),
        help=(
            "The import names kernel_check checks in the kernel Python; default CIBench's ten "
            f"({', '.join(TASK_LIBRARIES)}). [] checks ipykernel only."
        ),
    ).tag(config=True)
    kernel_network = Bool(
        False,
        help="Let sandboxed task kernels reach the network (off by default); recorded with each attempt.",
    ).tag(config=True)
    kernel_max_processes = Int(
        LIMITS.processes,
        min=0,
        help=(
            "Processes and threads a sandboxed kernel may run at once, all it starts included (a fork "
            "bomb gets 'Resource temporarily unavailable'); 0: no limit. As root, held by a pids cgroup."
        ),
    ).tag(config=True)
    kernel_memory_mb = Int(
        LIMITS.memory_mb,
        min=0,
        help="Address space of each process of a sandboxed kernel in MiB (past it: MemoryError); 0: none.",
    ).tag(config=True)
    kernel_tmp_mb = Int(
        LIMITS.tmp_mb,
        min=0,
        help=(
            "Size in MiB of a sandboxed kernel's private /tmp, /dev/shm and HOME, each in memory "
            "(past it: 'No space left on device'); 0: no limit."
        ),
    ).tag(config=True)
    kernel_file_mb = Int(
        LIMITS.file_mb,
        min=0,
        help="Largest file a sandboxed kernel may write, in MiB (past it: 'File too large'); 0: no limit.",
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
    study_files = NameList(
        default_value=[],
        help=(
            "Study files, JSON or TOML, one study each (docs/studies.md): consent text, questionnaire, "
            "tasks or a draw, protocol preset. A study opens from the panel's study list or from "
            "<lab url>?cibench-study=ID. A study the server cannot hold (an unknown task, proctored "
            "without the preset, a wrong field) stops the server with one line naming the file and field."
        ),
    ).tag(config=True)
    studies = Dict(
        default_value={},
        help="Studies defined in the config: {ID: definition}, each as in a study file (docs/studies.md).",
    ).tag(config=True)
    grading_workers = Int(
        WORKERS,
        min=1,
        help=(
            "Processes that grade turns with images or long outputs (SSIM, decoding), at a lower "
            "CPU priority than the server; each may need ~2 GB for a 25-megapixel plot."
        ),
    ).tag(config=True)
