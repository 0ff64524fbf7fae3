"""The optional VLM judge, against a tiny OpenAI-compatible HTTP server on 127.0.0.1.

The server is real HTTP (http.server in a thread); it replies from a script and
asserts every request it receives: the path, the bearer key, the model, the
judge prompt with the step's question, and the image as a PNG data URL.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_grading_golden import CORPUS, step_of, turns_of

from cibench_lab.grading import grade_all, judge

KEY = "sk-test-judge"
VIS = next(c for c in CORPUS if c["id"] == "vis_same")
OTHER = next(c for c in CORPUS if c["id"] == "vis_different")


class Judge(ThreadingHTTPServer):
    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.replies: list[tuple[int, str]] = []
        self.requests: list[dict] = []
        self.problems: list[str] = []


class Handler(BaseHTTPRequestHandler):
    server: Judge

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        self._check(body)
        status, text = self.server.replies.pop(0) if self.server.replies else (500, "no reply scripted")
        if status != 200:
            self._send(status, {"error": {"message": text, "type": "server_error"}})
            return
        message = {"role": "assistant", "content": text}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        self._send(200, {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                         "choices": [choice]})  # fmt: skip

    def _check(self, body):
        def need(ok, what):
            if not ok:
                self.server.problems.append(what)

        need(self.path == "/v1/chat/completions", f"path {self.path}")
        need(self.headers.get("Authorization") == f"Bearer {KEY}", "api key")
        need(body.get("model") == "judge-vl", "model")
        content = body["messages"][0]["content"]
        need(
            content[0]["type"] == "text" and "[Visualization Problem]:golden case" in content[0]["text"],
            "prompt",
        )
        url = content[1]["image_url"]["url"]
        need(url.startswith("data:image/png;base64,iVBOR"), "image data URL")

    def _send(self, status, payload):
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def server(monkeypatch):
    srv = Judge()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("JUDGE_KEY_FOR_TEST", KEY)
    judge.configure_from_traits(
        "judge-vl", f"http://127.0.0.1:{srv.server_address[1]}/v1", "JUDGE_KEY_FOR_TEST"
    )
    yield srv
    judge.configure(None)
    srv.shutdown()
    srv.server_close()
    assert not srv.problems, srv.problems


@pytest.mark.fast
def test_judge_scores_and_caches_by_image(server):
    server.replies = [(200, "8"), (200, "Score: 3")]
    fair = grade_all(step_of(VIS), turns_of(VIS))["fair"]
    assert fair["judge"]["score"] == 0.8 and fair["judge"]["error"] is None and not fair["judge"]["cached"]
    assert fair["score"] == 1.0 and "judge 0.8" in fair["detail"]
    again = grade_all(step_of(VIS), turns_of(VIS))["fair"]["judge"]
    assert again["score"] == 0.8 and again["cached"] and len(server.requests) == 1
    other = grade_all(step_of(OTHER), turns_of(OTHER))["fair"]["judge"]
    assert other["score"] == 0.3 and len(server.requests) == 2


@pytest.mark.parametrize(
    "reply, error",
    [((200, "I cannot rate this."), "no number"), ((200, "11"), "outside 1..10"), ((500, "boom"), "Error")],
)
@pytest.mark.fast
def test_judge_failure_is_recorded_never_zero(server, reply, error):
    server.replies = [reply, (200, "7")]
    grades = grade_all(step_of(VIS), turns_of(VIS))
    verdict = grades["fair"]["judge"]
    assert verdict["score"] is None and error in verdict["error"]
    assert grades["fair"]["score"] == 1.0  # SSIM stands; the failure is not a 0
    assert "judge" not in grades["fair"]["detail"]
    retry = grade_all(step_of(VIS), turns_of(VIS))["fair"]["judge"]  # failures are not cached
    assert retry["score"] == 0.7


@pytest.mark.fast
def test_judge_prompt_language_and_parse():
    assert judge.judge_prompt("画一个柱状图").startswith("你是一个擅长评价可视化能力的助手")
    assert judge.judge_prompt("Draw a bar chart").endswith("[Visualization Problem]:Draw a bar chart\n")
    assert judge.parse_score("7.9") == 0.7 and judge.parse_score("1 to 10: 9") == 0.9
    with pytest.raises(ValueError):
        judge.parse_score("Question: 5")


@pytest.mark.fast
def test_no_judge_unless_configured(monkeypatch):
    monkeypatch.delenv("CIBENCH_LAB_JUDGE_MODEL", raising=False)
    judge.configure(None)
    assert grade_all(step_of(VIS), turns_of(VIS))["fair"]["judge"] is None
    assert grade_all(step_of(VIS), turns_of(VIS))["cibench"]["judge"] is None


def test_tasks_verify_asks_no_judge(server, capsys):
    from cibench_lab.cli import main

    argv = ["tasks", "verify", "--no-progress", "cibench_template/matplotlib/mpg_figure_anatomy"]
    assert main(argv) == 0, capsys.readouterr()
    assert server.requests == []  # the references' grades read pass/score only: no paid calls
