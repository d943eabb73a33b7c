#!/usr/bin/env python3
"""The preview listing in a terminal: how soon `glance list --preview` draws a page of 120
documents, and its first row.

    python3 bench/terminal.py [--glance PATH] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

A container of the bench corpus's documents (photos, PNGs, PDFs, texts), each twice, so that a
page of 120 is full, is generated (a warm store: every thumbnail made). Then, for each protocol
(sixel, kitty, symbols: named, so that they draw into a pipe), `glance list CONTAINER
--preview=MODE --limit 120` runs with COLUMNS=120 (five tiles to a row) and its output is read
as it comes: the time until the first row is complete (its state line), and until the end.
Median of 3 runs each. Every row must come (a page of 120 is 24 rows).
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import tools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODES = ("sixel", "kitty", "symbols")
PAGE = 120
ROUNDS = 3


def run_once(glance, container, mode):
    """(seconds to the first row, seconds to the end, rows seen) of one listing."""
    environment = dict(os.environ, COLUMNS="120")
    start = time.monotonic()
    process = subprocess.Popen([glance, "list", str(container), f"--preview={mode}", "--limit", str(PAGE)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)
    first = None
    rows = 0
    for line in process.stdout:
        # A row ends with its state line: the states of the documents, `fresh` among them.
        if line.startswith(b"fresh") or line.startswith(b"failed") or line.startswith(b"unsupported"):
            rows += 1
            if first is None:
                first = time.monotonic() - start
    process.wait()
    return first, time.monotonic() - start, rows, process.returncode


def measure(glance, corpus, log=print):
    work = Path(tempfile.mkdtemp(prefix="glance-terminal-bench-"))
    try:
        container = work / "container"
        container.mkdir()
        documents = sorted(p for kind in ("jpeg", "png", "pdf", "text") for p in (Path(corpus) / kind).iterdir()
                           if p.is_file())
        copies = 0
        while copies < PAGE:
            for document in documents:
                shutil.copyfile(document, container / f"{copies:03d}-{document.name}")
                copies += 1
        subprocess.run([glance, "generate", str(container), "--jobs", "2", "--quiet"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        result = {"documents": PAGE, "columns": 120, "modes": {}, "problems": []}
        for mode in MODES:
            runs = [run_once(glance, container, mode) for _ in range(ROUNDS)]
            expected = (PAGE + 4) // 5
            for first, _, rows, status in runs:
                if status != 0 or rows != expected or first is None:
                    result["problems"].append(f"{mode}: exit {status}, {rows} of {expected} rows")
            firsts = [r[0] for r in runs if r[0] is not None]
            result["modes"][mode] = {
                "first_row_ms": statistics.median(firsts) * 1000 if firsts else None,
                "page_ms": statistics.median(r[1] for r in runs) * 1000,
            }
            entry = result["modes"][mode]
            log(f"  terminal: {mode}: first row {entry['first_row_ms'] or 0:.0f} ms, page of {PAGE} "
                f"{entry['page_ms']:.0f} ms")
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def format_terminal(result):
    """The report's lines."""
    if not result or not result.get("modes"):
        return []
    parts = [f"{mode} {m['page_ms']:.0f} ms (first row {m['first_row_ms'] or 0:.0f})"
             for mode, m in result["modes"].items()]
    return [f"  terminal: glance list --preview, a page of {result['documents']} documents at "
            f"{result['columns']} columns: " + ", ".join(parts)]


def targets(result):
    """[(target, measured, ratio, passed)]: the page in 1 s in every protocol."""
    if not result or not result.get("modes"):
        return []
    slowest = max(m["page_ms"] for m in result["modes"].values())
    out = [(f"Terminal preview: a page of {result['documents']} documents drawn <= 1 s (slowest protocol)",
            f"{slowest:.0f} ms", slowest / 1000, slowest <= 1000)]
    out.append(("Terminal preview: every row drawn", "; ".join(result["problems"]) or "all",
                0.0 if not result["problems"] else 2.0, not result["problems"]))
    return out


def main():
    return tools.run_alone(__doc__.split("\n")[0], measure, format_terminal, targets)


if __name__ == "__main__":
    sys.exit(main())
