"""Notebook cells and outputs as raw JSON dicts, for loader tests."""

from __future__ import annotations


def md(text):
    return {"cell_type": "markdown", "source": text, "metadata": {}}


def code(src, outputs=()):
    return {
        "cell_type": "code",
        "source": src,
        "outputs": list(outputs),
        "metadata": {},
        "execution_count": None,
    }


def stdout(text):
    return {"output_type": "stream", "name": "stdout", "text": text}
