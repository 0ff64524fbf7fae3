"""How Qwen's benchmark starts its kernel, as the original does.

The original starts its kernel inside ``upload_file/`` and runs a start code there (imports,
``sns.set_theme()``, matplotlib asked for SimHei); an *easy* visualization item's first assistant
turn, carried in its query, runs before the model starts (:meth:`.benchmark.Qwen.prior_code`).

Differences from the original, for a person: SimHei is not to be had offline, so the kernel's
matplotlib gets Noto Sans CJK under that name (:mod:`cibench_lab.kernels.fonts`, recorded in the
attempt's ``environment.fonts.cjk``), kept as ``font.family``'s last fallback after any reset of
matplotlib's settings (the original loses it at a person's ``sns.set_theme()``); the instruction
lists the files with their paths inside ``upload_file/`` (:mod:`.words`); no per-run alarm (the
lab's ``turn_timeout`` stops a run).
"""

from __future__ import annotations

from ...kernels.fonts import STANDS_FOR
from ...tasks.qwen import WORKDIR

#: The original's kernel start code (its ``code_interpreter.py``), less the per-run alarm; SimHei
#: is Noto Sans CJK here, as in every task kernel (:data:`.fonts.CJK_CODE`, run before this: the font
#: is also ``font.family``'s last fallback whatever resets the fonts later, so Chinese still draws).
QWEN_START = f"""\
import os
if '{WORKDIR}' not in os.getcwd():
    os.chdir("./{WORKDIR}/")

import math
import re
import json

import seaborn as sns
sns.set_theme()

import matplotlib
import matplotlib.pyplot as plt
plt.rcParams['font.sans-serif'] = [{STANDS_FOR!r}]
plt.rcParams['axes.unicode_minus'] = False

import numpy as np
import pandas as pd

from sympy import Eq, symbols, solve
"""
