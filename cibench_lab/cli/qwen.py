"""Qwen's Code Interpreter Benchmark: score the original's outputs.

`cibench-lab qwen score` scores Qwen's Code Interpreter Benchmark outputs as the original does.

    cibench-lab qwen score OUTPUT_DIR [--format table|json] [--profile qwen|fair]
        [--judge-replies FILE | --judge-model M [--judge-base-url URL] [--judge-api-key-env VAR]
         [--save-replies FILE]] [--upload-files DIR] [--no-sandbox]

OUTPUT_DIR holds the original's ``{task}_{model}_res.jsonl`` files and the images their
generations link to.  The items' code runs in the sandbox (no network, nothing installed);
visualization accuracy needs a judge's replies: recorded (``--judge-replies``, JSONL rows
``{"file", "line", "reply"}``) or asked of a vision model.  See docs/qwen.md.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from pathlib import Path
from typing import Any

from ..benchmarks.qwen.exec import QwenExecutor
from ..grading.qwen.judge import VisItem
from ..grading.qwen.outputs import OutputFile, upload_folder
from ..grading.qwen.score import PROFILES, score_folder
from ..grading.qwen.table import as_dict, render_text
from . import add_command, fail

QWEN_JUDGE_TOKENS = 300  # the original's max_tokens for its judge


def register(sub: Any) -> None:
    p = add_command(sub, "qwen")
    qsub = p.add_subparsers(dest="qwen_command", required=True)
    s = qsub.add_parser("score", help="score an OUTPUT_DIR of the original's result files, as it does")
    s.add_argument("output_dir", type=Path, metavar="OUTPUT_DIR")
    s.add_argument("--format", choices=("table", "json"), default="table")
    s.add_argument(
        "--profile", choices=PROFILES, default="qwen", help="qwen: as the original; fair: stricter"
    )
    s.add_argument("--judge-replies", type=Path, help="recorded judge replies (JSONL: file, line, reply)")
    s.add_argument("--judge-model", help="vision judge to ask (default: $CIBENCH_LAB_JUDGE_MODEL; none)")
    s.add_argument("--judge-base-url", help="the judge's endpoint, up to /v1 ($CIBENCH_LAB_JUDGE_BASE_URL)")
    s.add_argument(
        "--judge-api-key-env", help="variable holding the judge's key ($CIBENCH_LAB_JUDGE_API_KEY_ENV)"
    )
    s.add_argument("--save-replies", type=Path, help="write the judge's replies here (for --judge-replies)")
    s.add_argument(
        "--upload-files", type=Path, help="the benchmark's upload_file_clean (default: found beside)"
    )
    s.add_argument("--no-sandbox", action="store_true", help="run the items' code without the sandbox")
    s.set_defaults(fn=score)


def score(args: Any) -> int:
    try:
        replies = _replies(args)
        upload = upload_folder(args.output_dir, args.upload_files)
        run = QwenExecutor(upload, sandbox=not args.no_sandbox)
        scores = score_folder(args.output_dir, args.profile, run, replies)
    except ValueError as err:
        return fail(str(err))
    if args.save_replies is not None and isinstance(replies, AskedReplies):
        replies.save(args.save_replies)
    if args.format == "json":
        print(json.dumps(as_dict(scores, args.profile), indent=2, ensure_ascii=False))
    else:
        print(f"profile: {args.profile}")
        print(render_text(scores))
        if upload is None:
            print("note: no upload_file_clean found (--upload-files): the items' code ran without data files")
    return 0


class RecordedReplies:
    """Replies read from a JSONL file of ``{"file", "line", "reply"}`` rows."""

    def __init__(self, path: Path):
        self.replies: dict[tuple[str, int], str] = {}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                self.replies[(str(row["file"]), int(row["line"]))] = str(row["reply"])
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"{path}: line {number} is not a file/line/reply row ({err})") from err

    def __call__(self, out: OutputFile, item: VisItem) -> str | None:
        return self.replies.get((out.path.name, item.index))


class AskedReplies:
    """Replies asked of a vision judge, one item at a time (kept for ``--save-replies``)."""

    def __init__(self, judge: Any):
        self.judge = judge
        self.asked: list[dict] = []

    def __call__(self, out: OutputFile, item: VisItem) -> str | None:
        images = [base64.b64encode(Path(p).read_bytes()).decode() for p in item.images]
        try:
            reply = asyncio.run(self._ask(images, item.prompt))
        except Exception as err:  # a failed request leaves the item without a reply: not graded
            print(f"warning: judge failed on {out.path.name} line {item.index}: {err}", file=sys.stderr)
            return None
        self.asked.append({"file": out.path.name, "line": item.index, "reply": reply})
        return reply

    async def _ask(self, images: list[str], prompt: str) -> str:
        try:
            return await self.judge.reply(images, prompt)
        finally:
            await self.judge.aclose()

    def save(self, path: Path) -> None:
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.asked), encoding="utf-8"
        )


def _no_judge(out: OutputFile, item: VisItem) -> str | None:
    return None


def _replies(args: Any) -> Any:
    if args.judge_replies is not None:
        return RecordedReplies(args.judge_replies)
    from ..models.judge import VisionJudge

    judge = VisionJudge.from_env(
        model=args.judge_model, base_url=args.judge_base_url, api_key_env=args.judge_api_key_env
    )
    if judge is None:
        return _no_judge
    judge.max_tokens = QWEN_JUDGE_TOKENS
    return AskedReplies(judge)
