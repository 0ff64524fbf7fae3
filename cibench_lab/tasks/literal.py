"""Markdown that shows a text as it is: a benchmark item's question in a task or attempt notebook.

JupyterLab renders a markdown cell's source twice over: as markdown (``x**2 - 5*x`` would
lose its stars to italics, a leading ``#`` make a heading, ``<b>`` be HTML) and, after that,
through MathJax, which typesets any ``$...$`` or ``\\(...\\)`` pair left in the rendered text
(a GSM8K question's two prices). :func:`block` escapes every ASCII punctuation mark markdown
gives a meaning (CommonMark lets a backslash escape any of them), writes a backslash itself as
the entity ``&#92;`` (so no ``\\\\(`` math delimiter or MathJax escape is made of it), keeps
each line break (a hard break) and leading indentation (no-break spaces, never an indented
code block), and wraps the text in a ``mathjax_ignore`` element, which MathJax leaves alone.
:func:`inline` does the same for one line (a heading's text).
"""

from __future__ import annotations

import re

#: The ASCII punctuation that means something to markdown, GFM (``:`` and ``@`` autolinks) or
#: JupyterLab's math split (``@@N@@``); ``:`` also keeps a ``Thought:`` line from being read as one.
_SPECIAL = re.compile(r"([`*_{}\[\]()#+\-.!|<>~=&$:@])")
_IGNORE = "mathjax_ignore"


def _escape(line: str) -> str:
    text = _SPECIAL.sub(r"\\\1", line.replace("\\", "\x00")).replace("\x00", "&#92;")
    indent = len(text) - len(text.lstrip(" \t"))
    lead = text[:indent].replace("\t", "    ")
    return "&nbsp;" * len(lead) + text[indent:]


def inline(text: str) -> str:
    """One line of markdown that renders as ``text`` (its whitespace runs as single spaces)."""
    return f'<span class="{_IGNORE}">{_escape(" ".join(text.split()))}</span>'


def block(text: str) -> str:
    """Markdown that renders as ``text``: each line as it is, a blank line as a paragraph break."""
    paragraphs = re.split(r"\n\s*\n", text.strip("\n").replace("\r\n", "\n"))
    body = "\n\n".join("  \n".join(_escape(line.rstrip()) for line in p.split("\n")) for p in paragraphs)
    return f'<div class="{_IGNORE}">\n\n{body}\n\n</div>'
