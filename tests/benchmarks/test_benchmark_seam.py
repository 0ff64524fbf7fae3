"""A benchmark is a package, not a patch: a toy third benchmark changes the settle rule, the person's
limit, the kernel's start, the modes, the players' sessions and refusal, the attempt notebook's words, the
reference shown and the pass rule of its own tasks through the seam alone, and no other task's.
Cost: < 1 s (no kernel)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cibench_lab.benchmarks import CIBench, benchmark_of, register, unregister
from cibench_lab.cli.tasks import task_admin_view, verifiable
from cibench_lab.errors import BadInput
from cibench_lab.grading import TurnOutput
from cibench_lab.lab.setup import KernelSetup, check_mode, setup_codes
from cibench_lab.models.config import ModelConfig
from cibench_lab.play.rules import person_cap, settle_rule
from cibench_lab.play.settings import PlaySettings
from cibench_lab.players import PlayerError, ReferencePlayer
from cibench_lab.players.model import ModelSession, OpenAIPlayer
from cibench_lab.runs.local import task_kernel
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

pytestmark = pytest.mark.fast


class Toy(CIBench):  # the whole of a third benchmark that plays like CIBench but where it says
    name, title = "toy", "the toy"

    def owns(self, task):
        return task.id.endswith("penguins_raw_tidy")

    def person_limit(self, task):
        return 2

    def player_outcome(self, task, turn, n_turns, max_turn, meta):
        return "answered"  # every player's turn ends the step

    def start_codes(self, task, prior_turn):
        return ["TOY = 1"]

    def check_mode(self, task, mode):
        if mode != "e2e":
            raise BadInput("mode: the toy plays end-to-end only")

    def session(self, player, task, mode):
        return ("toy session", player.name)

    def reference_refusal(self, task):
        return f"{task.id}: the toy keeps its reference"

    def reference_view(self, step):
        return None

    def passes(self, step, profile):
        return None

    def notebook_words(self, task):
        return "*The toy", "Do as the toy says."

    def prompt(self, task, step):
        return "toy prompt"


@pytest.fixture
def toy():
    benchmark = Toy()
    register(benchmark)
    yield benchmark
    unregister(benchmark)


@pytest.fixture(scope="module")
def tasks():
    library = TaskLibrary.load([builtin_dir()])
    mine = library.get("cibench_template/pandas/penguins_raw_tidy")
    other = next(t for t in library.tasks.values() if t.id != mine.id and benchmark_of(t).name == "cibench")
    return mine, other


def test_a_registered_benchmark_decides_for_its_own_tasks_only(toy, tasks):
    mine, other = tasks
    assert benchmark_of(mine) is toy and benchmark_of(other).name == "cibench"
    settings = PlaySettings()
    failed = TurnOutput("1/0", [], True, "error")
    assert settle_rule("openai:m", settings, failed, 1, mine) == "answered"
    assert settle_rule("openai:m", settings, failed, 1, other) is None  # CIBench: an error leaves it open
    assert person_cap(replace(settings, turn_cap=5), mine) == 2
    assert person_cap(replace(settings, turn_cap=5), other) == 5
    assert setup_codes(mine) == ["TOY = 1"] and setup_codes(other) == []
    assert task_kernel(mine, 60.0) == (60.0, "TOY = 1") and task_kernel(other, 60.0) == (60.0, "")
    with pytest.raises(BadInput, match="toy"):
        check_mode(mine, "oracle")
    check_mode(other, "oracle")


def test_unregistered_the_task_is_cibenchs_again(tasks):
    mine, _ = tasks
    assert benchmark_of(mine).name == "cibench"


def test_the_players_notebook_and_views_ask_the_benchmark(toy, tasks, tmp_path, capsys):
    mine, other = tasks
    with pytest.raises(PlayerError, match="the toy keeps its reference"):
        ReferencePlayer().session(mine, "e2e")
    assert ReferencePlayer().session(other, "e2e") is not None
    model = OpenAIPlayer(ModelConfig("m", base_url="http://127.0.0.1:9/v1"))
    assert model.session(mine, "e2e") == ("toy session", "openai:m")
    assert isinstance(model.session(other, "e2e"), ModelSession)
    assert verifiable([mine, other]) == [other]
    assert "skipped 1 tasks of the toy (no reference code)" in capsys.readouterr().err
    nb = KernelSetup().write_notebook(mine, "a1", "e2e", tmp_path / "a.ipynb", "human", {})
    assert "Palmer penguins" in nb.cells[0].source and "\n\n*The toy · run each step" in nb.cells[0].source
    assert nb.cells[1].source == "Do as the toy says."
    plain = KernelSetup().write_notebook(other, "a2", "e2e", tmp_path / "b.ipynb", "human", {})
    assert "toy" not in plain.cells[0].source + plain.cells[1].source
    assert {s["prompt"] for s in task_admin_view(mine)["steps"]} == {"toy prompt"}
    assert "toy prompt" not in {s["prompt"] for s in task_admin_view(other)["steps"]}
    step = mine.steps[0]
    assert toy.reference_view(step) is None and benchmark_of(other).reference_view(step) is not None
    assert toy.passes(step, "cibench") is None
