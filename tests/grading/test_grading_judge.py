"""The optional VLM judge: the models' VisionJudge injected into a Grader, against the
scripted OpenAI-compatible server (tests/openai_server.py) on 127.0.0.1.

The server asserts every request it receives: the bearer key, the model, the
judge's max_tokens and temperature, and the exact message — the judge prompt with
the step's question and the graded figure as a PNG data URL.
"""

from __future__ import annotations

import asyncio

import pytest
from openai_server import ScriptedServer
from test_grading_golden import CORPUS, step_of, turns_of

from cibench_lab.grading import grade_all, judge
from cibench_lab.grading.fair import judged_image
from cibench_lab.grading.pool import Grader
from cibench_lab.models.judge import VisionJudge

KEY = "sk-test-judge"
VIS = next(c for c in CORPUS if c["id"] == "vis_same")
OTHER = next(c for c in CORPUS if c["id"] == "vis_different")


def asks(case: dict, reply: str, faults: list[str] | None = None) -> dict:
    """The one exchange the judge of ``case``'s figure must have with the server."""
    step, image = step_of(case), judged_image(step_of(case), turns_of(case))
    content = [
        {"type": "text", "text": judge.judge_prompt(step.prompt)},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}},
    ]
    return {"messages": [{"role": "user", "content": content}], "reply": reply, "faults": faults or []}


@pytest.fixture
def serve(monkeypatch):
    """Start the scripted server with the exchanges the judge must have."""
    monkeypatch.setenv("JUDGE_KEY_FOR_TEST", KEY)
    started: list[ScriptedServer] = []

    def start(exchanges: list[dict]) -> ScriptedServer:
        srv = ScriptedServer(exchanges, model="judge-vl", key=KEY, max_tokens=32, temperature=0.0)
        started.append(srv.start())
        return srv

    yield start
    for srv in started:
        srv.stop()


def grader_for(server: ScriptedServer) -> Grader:
    vlm = VisionJudge(model="judge-vl", base_url=server.base_url, api_key_env="JUDGE_KEY_FOR_TEST")
    return Grader(vlm, workers=1)


def fair_of(grader: Grader, case: dict) -> dict:
    return asyncio.run(grader.grade(step_of(case), turns_of(case)))["fair"]


def test_judge_scores_and_caches_by_image(serve):
    server = serve([asks(VIS, "8"), asks(OTHER, "Score: 3")])
    grader = grader_for(server)
    try:
        fair = fair_of(grader, VIS)
        assert fair["judge"] == {
            "model": "judge-vl",
            "score": 0.8,
            "reply": "8",
            "error": None,
            "cached": False,
        }
        assert fair["score"] == 1.0 and "judge 0.8" in fair["detail"]
        again = fair_of(grader, VIS)["judge"]
        assert again["score"] == 0.8 and again["cached"] and len(server.requests) == 1
        assert fair_of(grader, OTHER)["judge"]["score"] == 0.3 and len(server.requests) == 2
    finally:
        grader.close()
    server.check()


@pytest.mark.parametrize(
    "first, error",
    [
        (asks(VIS, "I cannot rate this."), "no number"),
        (asks(VIS, "11"), "outside 1..10"),
        (asks(VIS, "7", faults=["500"]), "ModelError"),  # the 500 is served, then "7"
    ],
)
def test_judge_failure_is_recorded_never_zero(serve, first, error):
    server = serve([first] if first["faults"] else [first, asks(VIS, "7")])
    grader = grader_for(server)
    try:
        fair = fair_of(grader, VIS)
        assert fair["judge"]["score"] is None and error in fair["judge"]["error"]
        assert fair["score"] == 1.0  # SSIM stands; the failure is not a 0
        assert "judge" not in fair["detail"]
        assert fair_of(grader, VIS)["judge"]["score"] == 0.7  # failures are not cached
    finally:
        grader.close()
    server.check()


@pytest.mark.fast
def test_judge_prompt_language_and_parse():
    assert judge.judge_prompt("画一个柱状图").startswith("你是一个擅长评价可视化能力的助手")
    assert judge.judge_prompt("Draw a bar chart").endswith("[Visualization Problem]:Draw a bar chart\n")
    assert judge.parse_score("7.9") == 0.7 and judge.parse_score("1 to 10: 9") == 0.9
    with pytest.raises(ValueError):
        judge.parse_score("Question: 5")


def test_no_judge_unless_given(monkeypatch):
    monkeypatch.setenv("CIBENCH_LAB_JUDGE_MODEL", "judge-vl")  # read by the CLI only
    assert grade_all(step_of(VIS), turns_of(VIS))["fair"]["judge"] is None
    grader = Grader()
    try:
        grades = asyncio.run(grader.grade(step_of(VIS), turns_of(VIS)))
    finally:
        grader.close()
    assert grades["fair"]["judge"] is None and grades["cibench"]["judge"] is None


def test_judge_from_the_environment_and_flags():
    env = {"CIBENCH_LAB_JUDGE_MODEL": "vl", "CIBENCH_LAB_JUDGE_BASE_URL": "http://h/v1"}
    vlm = VisionJudge.from_env(env, api_key_env="MY_KEY")
    assert (vlm.model, vlm.base_url, vlm.api_key_env) == ("vl", "http://h/v1", "MY_KEY")
    assert (
        VisionJudge.from_env({}) is None
        and VisionJudge.from_env({}, model="m").api_key_env == "OPENAI_API_KEY"
    )
    config = VisionJudge(model="vl", timeout=5.0).model_config()
    assert (config.retries, config.max_tokens, config.request_timeout) == (0, 32, 5.0)


def test_tasks_verify_asks_no_judge(serve, capsys, monkeypatch):
    server = serve([])
    for name, value in [
        ("MODEL", "judge-vl"),
        ("BASE_URL", server.base_url),
        ("API_KEY_ENV", "JUDGE_KEY_FOR_TEST"),
    ]:
        monkeypatch.setenv(f"CIBENCH_LAB_JUDGE_{name}", value)
    from cibench_lab.cli import main

    argv = ["tasks", "verify", "--no-progress", "cibench_template/matplotlib/mpg_figure_anatomy"]
    assert main(argv) == 0, capsys.readouterr()
    assert server.requests == []  # the references' grades read pass/score only: no paid calls
