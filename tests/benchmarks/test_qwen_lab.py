"""A person plays Qwen's Code Interpreter Benchmark tasks in the lab (tests/fixtures/qwen/benchmark).

The kernel runs in the attempt's ``upload_file/`` with the original's start code; an easy item's
prior turn is an already-run, read-only cell; visualization without a judge is "not graded",
general items executable only, GSM8K math accuracy against the gold (never said); SimHei is Noto
Sans CJK, recorded with the attempt; all of it again on a restarted kernel.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from conftest import server_config

from cibench_lab.benchmarks.qwen.words import instruction_text
from cibench_lab.cli import main
from cibench_lab.grading.qwen.lab import NO_JUDGE, grade_qwen
from cibench_lab.grading.turn import TurnOutput
from cibench_lab.kernels.executor import execute
from cibench_lab.kernels.fonts import CJK_FAMILY, font_set_digest
from cibench_lab.kernels.interpreter import Interpreter
from cibench_lab.kernels.sandbox import mpl_cache_dir
from cibench_lab.lab.setup import PRIOR, setup_codes
from cibench_lab.store.tables import Attempt
from cibench_lab.tasks.library import TaskLibrary

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
EASY = "cibench_qwen/qwen-vis/ci_0002"
GSM8K = "cibench_qwen/qwen-math/gsm8k_0001"
GENERAL = "cibench_qwen/qwen-general/ci_0004"
PLOT = "import matplotlib.pyplot as plt\nplt.plot(df['day'], df['temp'])\nplt.title('每日气温')\nplt.show()"


@pytest.fixture(scope="module")
def qwen_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("qwen-tasks")
    assert main(["tasks", "import", str(BENCH), "--into", str(root)]) == 0
    return root


@pytest.fixture
def jp_server_config(tmp_path, qwen_root):
    return server_config(tmp_path, [qwen_root], turn_timeout=60.0)


def _stdout(outputs) -> str:
    return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")


async def _probe(b) -> str:
    """What PROBE prints on the attempt's kernel, through the browser's own client."""
    kernel = b.app.kernel_manager.get_kernel(b.kernel_id)
    await b.kc.wait_for_ready(timeout=30)
    ex = await execute(b.kc, kernel, PROBE, 30)
    return _stdout(ex.outputs) + "".join(o.get("evalue", "") for o in ex.outputs)


PROBE = (
    "import os\nimport matplotlib.font_manager as fm\n"
    "print(os.getcwd(), plt.rcParams['font.sans-serif'],"
    " os.path.basename(fm.findfont('SimHei', fallback_to_default=False)), 'df' in globals())"
)


async def test_an_easy_item_in_the_lab_its_folder_prior_cell_font_grade_and_restore(
    start_attempt, api, jp_serverapp
):
    b = await start_attempt(EASY)
    aid = b.attempt["id"]
    nb = nbformat.read(str(Path(jp_serverapp.root_dir) / b.attempt["notebook_path"]), as_version=4)
    roles = [c.metadata.get("cibench_lab", {}).get("role") for c in nb.cells]
    assert roles == ["title", "instruction", PRIOR, "answer"]
    prior = nb.cells[2]
    assert prior.metadata["editable"] is False and "weather/weather.csv" in prior.source
    assert "day  temp" in _stdout(prior.outputs)  # what the prior turn printed on this kernel
    assert prior.execution_count == 1  # it ran, the kernel's first counted run: the person's first is [2]
    kernel = b.app.kernel_manager.get_kernel(b.kernel_id)
    await b.kc.wait_for_ready(timeout=30)
    assert (await execute(b.kc, kernel, "pass", 30)).execution_count == 2
    assert "`weather/weather.csv`" in nb.cells[1].source and "Qwen Code Interpreter" in nb.cells[0].source
    probe = "/work/attempt/upload_file ['SimHei'] NotoSansCJK-Regular.ttc True\n"
    assert await _probe(b) == probe

    code, turn = await b.turn(0, PLOT)
    assert code == 200, turn
    assert turn["grade"]["detail"] == NO_JUDGE and turn["grade"]["passed"] is False
    assert turn["grade"]["metric"] == "qwen_judge"
    store = jp_serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        cjk = s.get(Attempt, aid).environment["fonts"]["cjk"]
    assert (cjk["family"], cjk["package"], cjk["stands_for"]) == (CJK_FAMILY, "fonts-noto-cjk", "SimHei")

    await jp_serverapp.kernel_manager.restart_kernel(b.kernel_id)  # resume: the setup runs again
    code, bound = await api("POST", f"attempts/{aid}/kernel", {"kernel_id": b.kernel_id})
    assert code == 200, bound
    assert await _probe(b) == probe


#: Chinese drawn after each of the calls that reset matplotlib's font settings; the glyph warnings
#: matplotlib gives for a font without the characters, and the fonts the family resolves to.
RESETS = """\
import warnings
import matplotlib.font_manager as fm
def missing():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        fig, ax = plt.subplots()
        ax.set_title('每日气温 temperature')
        fig.canvas.draw()
        plt.close(fig)
    return [str(w.message) for w in caught if 'missing from' in str(w.message)]
found = []
for reset in (sns.set_theme, sns.set, plt.rcdefaults, lambda: plt.style.use('ggplot')):
    reset()
    found.append(missing())
used = fm.fontManager._find_fonts_by_props(fm.FontProperties(family=plt.rcParams['font.family']))
print(found, [os.path.basename(p) for p in used])
"""


async def test_chinese_still_draws_after_seaborn_resets_the_fonts(start_attempt):
    b = await start_attempt(GENERAL)  # a person's kernel: their code runs as typed, no SimHei lines added
    kernel = b.app.kernel_manager.get_kernel(b.kernel_id)
    await b.kc.wait_for_ready(timeout=30)
    ex = await execute(b.kc, kernel, RESETS, 60)
    assert not ex.error, ex.outputs
    # no missing glyph after any reset; Latin text keeps its font, Chinese falls back to Noto CJK
    assert _stdout(ex.outputs) == "[[], [], [], []] ['DejaVuSans.ttf', 'NotoSansCJK-Regular.ttc']\n"


async def test_math_accuracy_and_general_executable_in_the_lab(start_attempt):
    gsm = await start_attempt(GSM8K)
    code, wrong = await gsm.turn(0, "print('The answer is', 7)")
    assert code == 200, wrong
    gold = json.loads((BENCH / "gsm8k_test.jsonl").read_text().splitlines()[0])["answer"].split("####")[-1]
    assert wrong["grade"]["detail"] == "answer read: 7 · wrong"  # the gold is never said
    code, right = await gsm.turn(0, f"print('The answer is', {gold.strip()})")
    assert right["grade"]["passed"] is True and right["grade"]["metric"] == "qwen_accuracy"
    general = await start_attempt(GENERAL)
    code, bad = await general.turn(0, "pd.read_csv('orders.csv')")  # cwd upload_file/: shop/orders.csv
    assert bad["grade"]["detail"] == "raised FileNotFoundError · not executable"  # the error first
    general = await start_attempt(GENERAL)  # one call per general item: a new attempt
    code, good = await general.turn(0, "print(pd.read_csv('shop/orders.csv').shape)")
    assert good["grade"] == {**good["grade"], "detail": "executable", "passed": True, "score": None}


async def test_a_persons_runs_are_held_to_the_items_call_limit(start_attempt):
    # the step view's run_limit (what the badge's "N runs left" counts down from) is the limit held
    general = await start_attempt(GENERAL)  # 1 call
    assert general.attempt["steps"][0]["run_limit"] == 1 and general.attempt["settings"]["turn_cap"] == 0
    code, one = await general.turn(0, "print(1)")
    assert code == 200 and one["settled"]["outcome"] == "turn_cap" and one["attempt"]["status"] == "done"
    assert one["attempt"]["steps"][0]["run_limit"] == 1
    easy = await start_attempt(EASY, turn_cap=5)  # 4 calls, the prior turn's one already made
    assert easy.attempt["steps"][0]["run_limit"] == 3
    for n in range(3):
        code, ran = await easy.turn(0, f"print({n})")
        assert code == 200 and bool(ran["settled"]) is (n == 2), ran
    assert ran["settled"]["outcome"] == "turn_cap" and ran["attempt"]["status"] == "done"
    gsm = await start_attempt(GSM8K, turn_cap=2)  # 3 calls, a lower turn cap holds
    assert gsm.attempt["steps"][0]["run_limit"] == 2
    await gsm.turn(0, "print(1)")
    code, ran = await gsm.turn(0, "print(2)")
    assert ran["settled"]["outcome"] == "turn_cap"
    code, view = await gsm.api("GET", f"attempts/{gsm.attempt['id']}")
    assert code == 200 and view["steps"][0]["run_limit"] == 2


@pytest.mark.fast
def test_setup_and_words_of_each_family(qwen_root):
    lib = TaskLibrary.load([qwen_root])
    easy, hard = lib.get(EASY), lib.get("cibench_qwen/qwen-vis/ci_0001")
    codes = setup_codes(easy)
    assert len(codes) == 2 and "os.chdir" in codes[0] and codes[1].startswith("import pandas as pd")
    assert "weather/weather.csv" in codes[1] and "```" not in codes[1]
    assert len(setup_codes(hard)) == 1
    item = lib.get(GSM8K).metadata["cibench_lab"]["qwen"]
    assert item["answer"].split("####")[-1].strip() not in instruction_text(item)
    step = lib.get(EASY).steps[0]
    none = grade_qwen(step, [], "cibench", None)
    assert none.detail == "no code run" and none.tool == 0
    ran = TurnOutput("plt.show()", [{"output_type": "display_data", "data": {"image/png": "x"}}])
    assert grade_qwen(step, [ran], "cibench", None).detail == NO_JUDGE
    said = {"model": "vlm", "reply": "This is not right.", "error": None}
    assert grade_qwen(step, [ran], "cibench", said).passed is True  # the original's "right" anywhere
    assert grade_qwen(step, [ran], "fair", said).passed is False


@pytest.mark.fast
async def test_a_qwen_task_has_no_oracle_mode(api):
    code, body = await api("POST", "attempts", {"task_id": GENERAL, "mode": "oracle"})
    assert code == 400 and "end-to-end only" in body["error"]
    code, tasks = await api("GET", "tasks")
    assert {t["benchmark"] for t in tasks} == {"qwen"}
    # the list carries each item (the question, its files, its runs), never a GSM8K gold
    rows = {t["id"]: t for t in tasks}
    assert rows[GENERAL]["benchmark_item"]["question"].startswith("Join the two tables on item")
    assert rows[GENERAL]["benchmark_item"]["files"] == ["shop/orders.csv", "shop/items.csv"]
    assert [rows[t]["benchmark_item"]["runs"] for t in (GENERAL, EASY, GSM8K)] == [1, 3, 3]
    assert "answer" not in rows[GSM8K]["benchmark_item"] and "####" not in json.dumps(tasks)
    code, detail = await api("GET", f"tasks/{EASY}")
    assert code == 200 and detail["benchmark_item"]["difficulty"] == "easy"


@pytest.mark.fast
def test_the_font_cache_follows_the_font_set(tmp_path):
    (tmp_path / "a.ttf").write_bytes(b"x")
    before = font_set_digest((str(tmp_path),))
    (tmp_path / "b.otf").write_bytes(b"y")
    assert font_set_digest((str(tmp_path),)) != before  # a font added: another cache folder
    (tmp_path / "b.otf").unlink()
    assert font_set_digest((str(tmp_path),)) == before
    python = Interpreter("python", "3.11", tmp_path, (tmp_path,), {"matplotlib": "3.8.4"})
    cache = mpl_cache_dir(python)  # the kernels' prebuilt cache: one per matplotlib and font set
    assert cache is not None and cache.name == f"matplotlib-3.8.4-fonts-{font_set_digest()}"


@pytest.mark.fast
async def test_a_configured_judge_reads_right_or_wrong_on_a_visualization_step(qwen_root, monkeypatch):
    from openai_server import ScriptedServer

    from cibench_lab.grading.pool import Grader
    from cibench_lab.models.judge import VisionJudge

    monkeypatch.setenv("QWEN_JUDGE_KEY", "sk-qwen-judge")
    replies = [{"reply": "right"}, {"reply": "wrong"}, {"reply": "It is not right."}]
    server = ScriptedServer(replies, model="judge-vl", key="sk-qwen-judge", max_tokens=32).start()
    try:
        vlm = VisionJudge(model="judge-vl", base_url=server.base_url, api_key_env="QWEN_JUDGE_KEY")
        grader, step = Grader(vlm, workers=1), TaskLibrary.load([qwen_root]).get(EASY).steps[0]
        said = []
        for png in ("aaaa", "bbbb", "cccc"):  # three figures: three questions
            ran = TurnOutput("plt.show()", [{"output_type": "display_data", "data": {"image/png": png}}])
            said.append(await grader.grade(step, [ran]))
    finally:
        server.stop()
    assert [g["cibench"]["judge"]["error"] for g in said] == [None] * 3
    assert [g["cibench"]["passed"] for g in said] == [True, False, True]  # the original: "right" anywhere
    assert [g["fair"]["passed"] for g in said] == [True, False, False]
    assert said[1]["cibench"]["detail"] == "judge: wrong (judge-vl)"
    asked = server.requests[0]["body"]["messages"][0]["content"][0]["text"]
    item = step.benchmark_item
    assert item is not None and asked == item.judge_prompt  # the original's question
