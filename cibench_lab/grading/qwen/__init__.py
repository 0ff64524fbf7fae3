"""Qwen's Code Interpreter Benchmark (Qwen-Agent ``benchmark/code_interpreter``, version 20231206),
scored as its ``--eval-only`` path scores recorded outputs, under the ``qwen`` profile; ``fair``
changes only what docs/qwen.md lists.

One module per measurement: the ReAct text of a recorded generation (react.py), the math answer
(answer.py), which code the executable rate runs (execrate.py), the visualization judge's
question and verdict (judge.py), the output files (outputs.py) and the table (table.py).  Running
the code is the engine's (``cibench_lab.benchmarks.qwen.exec``); asking a judge is the models'.
"""

from .rules import QwenRules

#: found by :func:`cibench_lab.grading.own.all_rules`
RULES = QwenRules()
