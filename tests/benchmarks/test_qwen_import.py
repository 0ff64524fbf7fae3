"""`tasks import` of Qwen's Code Interpreter Benchmark (tests/fixtures/qwen/benchmark: the original's
format), the tasks it makes, and the checks that skip them (no reference code)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cibench_lab.cli import main
from cibench_lab.cli.run import _playable
from cibench_lab.cli.tasks import verifiable
from cibench_lab.players import PlayerError, ReferencePlayer
from cibench_lab.tasks import literal
from cibench_lab.tasks.errors import TaskError
from cibench_lab.tasks.format import parse_notebook
from cibench_lab.tasks.library import TaskLibrary, builtin_dir
from cibench_lab.tasks.lint import lint_task
from cibench_lab.tasks.qwen import call_limit, is_qwen, qwen_item, stops

pytestmark = pytest.mark.fast

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
UPLOADS = ["shop/items.csv", "shop/orders.csv", "sales/sales_2023.csv", "weather/weather.csv"]


def _import(src: Path, into: Path, capsys) -> str:
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    return capsys.readouterr().out


@pytest.fixture
def lib(tmp_path, capsys) -> TaskLibrary:
    _import(BENCH, tmp_path / "tasks", capsys)
    return TaskLibrary.load([tmp_path / "tasks"])


def test_every_item_imports_as_a_one_step_task_of_its_family(lib):
    families = {tid: qwen_item(t)["family"] for tid, t in lib.tasks.items()}
    assert families == {
        "cibench_qwen/qwen-vis/ci_0001": "qwen-vis",
        "cibench_qwen/qwen-vis/ci_0002": "qwen-vis",
        "cibench_qwen/qwen-vis/ci_0003": "qwen-vis",
        "cibench_qwen/qwen-general/ci_0004": "qwen-general",
        "cibench_qwen/qwen-general/ci_0005": "qwen-general",
        "cibench_qwen/qwen-math/ci_0006": "qwen-math",
        "cibench_qwen/qwen-math/ci_0007": "qwen-math",
        **{f"cibench_qwen/qwen-math/gsm8k_000{n}": "qwen-math" for n in (1, 2, 3)},
    }
    for task in lib.tasks.values():
        nb = json.loads(task.path.read_text(encoding="utf-8"))
        assert [c["cell_type"] for c in nb["cells"]] == ["markdown", "code"]
        assert nb["cells"][1]["source"] == "" and nb["cells"][1]["outputs"] == []
        assert len(task.steps) == 1 and task.steps[0].code == ""


def test_limits_stop_rule_judge_prompt_and_gold(lib):
    calls = {tid.rsplit("/", 1)[1]: call_limit(t) for tid, t in lib.tasks.items()}
    # visualization 3 (+1 for the easy item), other benchmark items 1, GSM8K rows 3
    assert calls == {
        **{"ci_0001": 3, "ci_0002": 4, "ci_0003": 3, "ci_0004": 1, "ci_0005": 1, "ci_0006": 1},
        **{"ci_0007": 1, "gsm8k_0001": 3, "gsm8k_0002": 3, "gsm8k_0003": 3},
    }
    easy, hard_zh = lib.tasks["cibench_qwen/qwen-vis/ci_0002"], lib.tasks["cibench_qwen/qwen-vis/ci_0003"]
    assert qwen_item(easy)["difficulty"] == "easy" and qwen_item(hard_zh)["difficulty"] == "hard"
    assert easy.steps[0].instruction == literal.block("Plot the temperature of each day as a line chart.")
    assert "<|im_start|>assistant\nThought:" in qwen_item(easy)["query"]
    assert qwen_item(easy)["judge_prompt"].endswith(
        "[Question]: Plot the temperature of each day as a line chart.\n"
    )
    assert qwen_item(hard_zh)["judge_prompt"].startswith("请判断图片是否与下面的[问题]一致")
    assert hard_zh.language == "zh"
    assert qwen_item(lib.tasks["cibench_qwen/qwen-math/gsm8k_0003"])["answer"].endswith("#### 2,100")
    assert stops(easy, "Traceback (most recent call last)") and stops(easy, "error: name 'x'")
    assert not stops(easy, "stdout: 42")


def test_the_whole_upload_folder_is_beside_every_task(lib, tmp_path):
    data = tmp_path / "tasks" / "datasources" / "upload_file"
    assert sorted(p.relative_to(data).as_posix() for p in data.rglob("*.csv")) == sorted(UPLOADS)
    for task in lib.tasks.values():
        assert sorted(task.data_files) == sorted(f"upload_file/{f}" for f in UPLOADS)
        assert qwen_item(task)["workdir"] == "upload_file"
    assert qwen_item(lib.tasks["cibench_qwen/qwen-general/ci_0004"])["input_file_path"] == [
        "shop/orders.csv",
        "shop/items.csv",
    ]


def test_import_again_changes_nothing_and_a_jsonl_alone_imports(tmp_path, capsys):
    into = tmp_path / "tasks"
    _import(BENCH, into, capsys)
    assert "0 imported, 0 updated, 10 unchanged, 0 rejected, 0 data files written" in _import(
        BENCH, into, capsys
    )
    out = _import(BENCH / "gsm8k_test.jsonl", tmp_path / "g", capsys)
    assert "3 imported" in out and "4 data files written" in out


def test_the_layout_of_the_originals_readme_imports_with_its_uploads(tmp_path, capsys):
    """Qwen-Agent's README unzips the data in benchmark/ and moves the questions into eval_data/, beside
    upload_file_clean/: that folder, eval_data/ and a file in it each import with every upload."""
    bench = tmp_path / "benchmark"
    shutil.copytree(BENCH / "upload_file_clean", bench / "upload_file_clean")
    for name in ("eval_code_interpreter_v1.jsonl", "gsm8k_test.jsonl"):
        (bench / "eval_data").mkdir(exist_ok=True)
        shutil.copy(BENCH / name, bench / "eval_data" / name)
    for source, items in [
        (bench, 10),
        (bench / "eval_data", 10),
        (bench / "eval_data" / "gsm8k_test.jsonl", 3),
    ]:
        into = tmp_path / f"into-{items}-{source.name}"
        out = _import(source, into, capsys)
        assert f"{items} imported" in out and "4 data files written" in out, out
        data = into / "datasources" / "upload_file"
        assert sorted(p.relative_to(data).as_posix() for p in data.rglob("*.csv")) == sorted(UPLOADS)


def test_bad_rows_are_rejected_by_file_line_and_field(tmp_path, capsys):
    src = tmp_path / "src"
    shutil.copytree(BENCH / "upload_file_clean", src / "upload_file_clean")
    good = {"query": "q", "tags": "general", "input_file_path": [], "lang": "en"}
    rows = [
        good,
        {**good, "tags": 3},
        {**good, "lang": "fr"},
        {**good, "input_file_path": ["shop/missing.csv"]},
        {**good, "input_file_path": "shop/orders.csv"},
        {**good, "input_file_path": ["../etc/passwd"]},
    ]
    lines = [json.dumps(r) for r in rows] + ["{not json"]
    (src / "eval_code_interpreter_v1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _import(src, tmp_path / "tasks", capsys)
    where = f"{src / 'eval_code_interpreter_v1.jsonl'}:"
    assert "imported   cibench_qwen/qwen-general/ci_0001" in out
    assert f"rejected   {where}2: field 'tags': missing or not a non-empty string" in out
    assert f"rejected   {where}3: field 'lang': 'fr' is neither 'en' nor 'zh'" in out
    assert (
        f"rejected   {where}4: field 'input_file_path[0]': 'shop/missing.csv' is not in upload_file_clean/"
        in out
    )
    assert f"rejected   {where}5: field 'input_file_path': not a list of paths" in out
    assert f"{where}6: field 'input_file_path[0]': '../etc/passwd' is not a path inside" in out
    assert f"rejected   {where}7: not a JSON object" in out
    assert "1 imported" in out and "6 rejected" in out


def test_a_file_of_neither_kind_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "x.jsonl").write_text('{"a": 1}\n', encoding="utf-8")
    assert main(["tasks", "import", str(tmp_path / "x.jsonl"), "--into", str(tmp_path / "t")]) == 2
    assert "x.jsonl: rows neither of the benchmark {query, tags, ...} nor of GSM8K" in capsys.readouterr().err


def test_the_schema_names_a_bad_qwen_field(lib):
    task = lib.tasks["cibench_qwen/qwen-vis/ci_0001"]
    nb = json.loads(task.path.read_text(encoding="utf-8"))
    nb["metadata"]["cibench_lab"]["qwen"]["family"] = "qwen-plot"
    with pytest.raises(TaskError, match=r"metadata\.cibench_lab\.qwen\.family: 'qwen-plot' is not one of"):
        parse_notebook(json.dumps(nb).encode(), task.path, task.id, None)
    del nb["metadata"]["cibench_lab"]["qwen"]["judge_prompt"]
    nb["metadata"]["cibench_lab"]["qwen"]["family"] = "qwen-vis"
    with pytest.raises(TaskError, match="'judge_prompt' is a required property"):
        parse_notebook(json.dumps(nb).encode(), task.path, task.id, None)


def test_reference_player_verify_and_lint_skip_them_by_kind(lib, capsys):
    qwen_task = lib.tasks["cibench_qwen/qwen-math/ci_0006"]
    cibench = next(iter(TaskLibrary.load([builtin_dir()]).tasks.values()))
    assert is_qwen(qwen_task) and not is_qwen(cibench)
    with pytest.raises(
        PlayerError, match="ci_0006: a task of Qwen's Code Interpreter Benchmark has no reference"
    ):
        ReferencePlayer().session(qwen_task, "e2e")
    assert ReferencePlayer().session(cibench, "e2e") is not None
    assert _playable(ReferencePlayer(), [qwen_task, cibench]) == [cibench]
    assert "skipped: cibench_qwen/qwen-math/ci_0006" in capsys.readouterr().err
    assert _playable(ReferencePlayer(), [qwen_task]) == []
    assert "none of the selected tasks has reference code" in capsys.readouterr().err
    assert verifiable([qwen_task, cibench]) == [cibench]
    assert "skipped 1 tasks of Qwen's benchmark" in capsys.readouterr().err
    assert lint_task(qwen_task) == []


def test_show_gives_the_qwen_react_prompt_the_original_builds(tmp_path, capsys):
    into = tmp_path / "tasks"
    _import(BENCH, into, capsys)
    golden = (BENCH.parent / "prompts" / "ci_0002.txt").read_bytes().decode("utf-8")
    assert main(["--task-dir", str(into), "tasks", "show", "cibench_qwen/qwen-vis/ci_0002", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["steps"][0]["prompt"] == golden
    assert view["benchmark_item"]["calls"] == 4 and view["benchmark_item"]["difficulty"] == "easy"
    assert main(["--task-dir", str(into), "tasks", "show", "cibench_qwen/qwen-math/gsm8k_0001"]) == 0
    out = capsys.readouterr().out
    assert "qwen: qwen-math, at most 3 interpreter calls, stops at an observation holding 'error:' or" in out
