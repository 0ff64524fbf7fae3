"""An axe-core accessibility scan in the browser (axe-core from the repository's node_modules)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

AXE_JS = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SEVERE = ("serious", "critical")


def axe_violations(page: Page, include: list[str], impacts: tuple[str, ...] = SEVERE) -> list[dict]:
    """Violations of impact serious or critical (or ``impacts``) within the elements matching
    ``include`` (CSS selectors); each as ``{id, impact, help, targets}``."""
    if not AXE_JS.exists():
        raise RuntimeError(f"{AXE_JS} is missing: run `jlpm install` (axe-core is a dev dependency)")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate(
        """async (include) => {
            const present = include.filter(sel => document.querySelector(sel));
            if (!present.length) { return {error: 'nothing to scan: ' + include.join(', ')}; }
            const r = await axe.run({include: present.map(sel => [sel])}, {resultTypes: ['violations']});
            return {violations: r.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.map(n => n.target.join(' ') + ' :: ' + n.failureSummary)}))};
        }""",
        include,
    )
    if "error" in result:
        raise AssertionError(result["error"])
    return [v for v in result["violations"] if v["impact"] in impacts]
