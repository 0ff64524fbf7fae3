"""How Qwen's benchmark starts its kernel, as the original does."""

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
