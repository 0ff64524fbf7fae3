"""Every task kernel draws Chinese (a CIBench Chinese task's plot title, not only Qwen's benchmark): with
matplotlib's defaults, with the usual ``font.sans-serif = ['SimHei']`` idiom and its siblings, and after
seaborn resets the fonts; Latin text keeps its font (one real sandboxed kernel, ~5 s)."""

from __future__ import annotations

import asyncio
import json

from cibench_lab.kernels.executor import KernelExecutor

PROBE = """\
import json, os, warnings
import matplotlib.pyplot as plt
import matplotlib.font_manager as fm
import seaborn as sns
def draw(setup):
    setup()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        fig, ax = plt.subplots()
        ax.set_title('总账单直方图 total_bill')
        fig.canvas.draw()
        plt.close(fig)
    used = fm.fontManager._find_fonts_by_props(fm.FontProperties(family=plt.rcParams['font.family']))
    said = [str(w.message) for w in caught]
    missing = [m for m in said if 'missing from' in m or 'not found' in m]
    return missing, [os.path.basename(p) for p in used][-1]
def sans(*names):
    return lambda: plt.rcParams.update({'font.sans-serif': list(names)})
setups = [lambda: None, sans('SimHei'), sans('Microsoft YaHei'), sans('WenQuanYi Micro Hei', 'DejaVu Sans'),
          sns.set_theme, plt.rcdefaults]
print(json.dumps([draw(s) for s in setups]))
print(os.path.basename(fm.findfont(fm.FontProperties(family='DejaVu Sans'))))
"""


async def _probe(folder) -> list[str]:
    executor = KernelExecutor(folder, timeout=60)
    await executor.start()
    try:
        run = await executor.run(PROBE)
    finally:
        await executor.shutdown()
    assert not run.error, run.outputs
    return "".join(o.get("text", "") for o in run.outputs if o.get("name") == "stdout").splitlines()


def test_a_chinese_title_draws_with_no_missing_glyph_whatever_the_font_idiom(tmp_path):
    drawn, latin = asyncio.run(_probe(tmp_path))
    for missing, last in json.loads(drawn):
        assert missing == [] and last == "NotoSansCJK-Regular.ttc", drawn
    assert latin == "DejaVuSans.ttf"
