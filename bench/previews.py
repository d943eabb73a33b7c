#!/usr/bin/env python3
"""Previews: how long `/previews/` takes to give a page, cold and warm, and whether a storm of
page requests lets a batch go on.

    python3 bench/previews.py [--glance PATH] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

A container of the bench corpus's PDFs and a generated PDF of 40 pages is generated, then served
by `glance serve` on loopback. Measured over HTTP (one client, keep-alive):
  - the first page of each PDF at the default size (2048), cold (the server's first request for
    that page: drawn by a renderer that is already running) and warm (the same again, from the
    server's cache);
  - page 10 of the 40-page PDF, cold and warm;
  - the storm: with `--watch` and 200 photos not yet rendered (the watcher's catch-up renders
    them in the batch lane), three waves of 20 pages of the long PDF asked at once (at 2048, 3072
    and 4096); the photos rendered during the storm, against the catch-up's rate over as long a
    time without one (the same container again, same run).
No answer may be a 5xx.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

import corpus

ROOT = Path(__file__).resolve().parents[1]
LONG_PAGES = 40
STORM_PAGES = 20
PHOTOS = 200


def numbered_pdf(count):
    """A PDF of `count` A4 pages of text and a grey panel, page N saying its number (written by
    the corpus's own PDF writer)."""
    pages = []
    for number in range(1, count + 1):
        lines = b" ".join(b"(Line %d of page %d, set in Helvetica at twelve points.) Tj T*" % (line, number)
                          for line in range(40))
        content = (b"0.8 g 60 620 475 160 re f 0 g BT /F1 48 Tf 72 700 Td (Page %d) Tj ET "
                   b"BT /F1 12 Tf 14 TL 72 560 Td %s ET" % (number, lines))
        pages.append((595, 842, content, {}))
    return corpus.pdf_document(pages)


def start_serve(glance, container, log_path, extra=()):
    """`glance serve` on a free loopback port; (process, host, port)."""
    out = open(log_path, "w")
    process = subprocess.Popen([glance, "serve", str(container), "--port", "0", "--log-level", "warning", *extra],
                               stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"serving .* at http://([^:/]+):(\d+)", Path(log_path).read_text())
        if found:
            return process, found.group(1), int(found.group(2))
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"glance serve printed no URL: {Path(log_path).read_text()[-300:]}")


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def timed_get(connection, path):
    """(status, seconds, bytes) of one GET on a kept-alive connection."""
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    return response.status, time.perf_counter() - started, len(body)


def preview_path(name, page, size=None):
    query = f"page={page}" + (f"&size={size}" if size else "")
    return "/previews/" + quote(name) + "?" + query


def fresh_count(host, port):
    connection = http.client.HTTPConnection(host, port, timeout=60)
    connection.request("GET", "/api/items?status=fresh&type=jpeg&limit=1")
    response = connection.getresponse()
    response.read()
    connection.close()
    return int(response.getheader("X-Total-Count") or 0)


def catch_up(glance, container, work, storm, window=None):
    """Serves `container` with --watch while its catch-up renders the photos. From the moment the
    first photos are fresh: with `storm`, waves of STORM_PAGES pages of long.pdf asked at once
    (sizes 2048, 3072, 4096); without, a wait of `window` seconds. (photos rendered per second in
    that time, its seconds, the storm's answers' statuses)."""
    process, host, port = start_serve(glance, container, work / f"serve-{'storm' if storm else 'alone'}.log",
                                      ["--watch"])
    statuses = []
    try:
        deadline = time.monotonic() + 60
        while fresh_count(host, port) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        before = fresh_count(host, port)
        started = time.perf_counter()
        if storm:
            for size in (2048, 3072, 4096):
                def ask(page):
                    connection = http.client.HTTPConnection(host, port, timeout=120)
                    status, _, _ = timed_get(connection, preview_path("long.pdf", page, size))
                    statuses.append(status)
                    connection.close()

                threads = [threading.Thread(target=ask, args=(page,)) for page in range(1, STORM_PAGES + 1)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
        else:
            time.sleep(window)
        elapsed = time.perf_counter() - started
        rendered = fresh_count(host, port) - before
    finally:
        stop(process)
    return rendered / elapsed, elapsed, statuses


def measure(glance, corpus, log=print):
    work = Path(tempfile.mkdtemp(prefix="glance-previews-"))
    try:
        container = work / "container"
        container.mkdir()
        pdfs = sorted(p for p in (Path(corpus) / "pdf").iterdir() if p.suffix == ".pdf")
        for pdf in pdfs:
            shutil.copyfile(pdf, container / pdf.name)
        (container / "long.pdf").write_bytes(numbered_pdf(LONG_PAGES))
        subprocess.run([glance, "generate", str(container), "--jobs", "2"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        process, host, port = start_serve(glance, container, work / "serve.log")
        problems = []
        try:
            connection = http.client.HTTPConnection(host, port, timeout=120)
            # The renderers start with the first request: a page the measurements do not ask for.
            timed_get(connection, preview_path("long.pdf", LONG_PAGES, 512))
            cold, warm = [], []
            for pdf in pdfs:
                status, seconds, _ = timed_get(connection, preview_path(pdf.name, 1))
                if status != 200:
                    problems.append(f"{pdf.name} page 1: {status}")
                cold.append(seconds)
                warm.append(min(timed_get(connection, preview_path(pdf.name, 1))[1] for _ in range(5)))
            status, page10_cold, _ = timed_get(connection, preview_path("long.pdf", 10))
            if status != 200:
                problems.append(f"long.pdf page 10: {status}")
            page10_warm = min(timed_get(connection, preview_path("long.pdf", 10))[1] for _ in range(5))
            connection.close()
        finally:
            stop(process)
        log(f"  previews: first page cold median {statistics.median(cold) * 1000:.0f} ms "
            f"(max {max(cold) * 1000:.0f}), warm {statistics.median(warm) * 1000:.1f} ms; "
            f"page 10 of {LONG_PAGES} cold {page10_cold * 1000:.0f} ms, warm {page10_warm * 1000:.1f} ms")

        # The storm: photos for the watcher's catch-up, twice (alone, then with the storm).
        # One photo over and over: every render the same work, so that the two rates compare.
        photos = [min((p for p in (Path(corpus) / "jpeg").iterdir() if p.suffix == ".jpg"),
                      key=lambda p: p.stat().st_size)]
        runs = {}
        window = None
        for label, storm in (("storm", True), ("alone", False)):
            for index in range(PHOTOS):
                shutil.copyfile(photos[index % len(photos)], container / f"photo-{label}-{index:03d}.jpg")
            rate, window, statuses = catch_up(glance, container, work, storm, window)
            runs[label] = {"photos_per_s": rate, "seconds": window}
            if storm:
                bad = [s for s in statuses if s >= 500 and s != 503]
                runs[label]["statuses"] = {str(s): statuses.count(s) for s in sorted(set(statuses))}
                if bad or len(statuses) != 3 * STORM_PAGES:
                    problems.append(f"storm answers {runs[label]['statuses']}")
            for path in container.glob(f"photo-{label}-*.jpg"):
                path.unlink()
        log(f"  previews: 3 waves of {STORM_PAGES} pages at once during a catch-up took {runs['storm']['seconds']:.1f} s; "
            f"the catch-up rendered {runs['storm']['photos_per_s']:.1f} photos/s meanwhile, "
            f"{runs['alone']['photos_per_s']:.1f} alone")
        return {"pdfs": len(pdfs), "cold_ms": [s * 1000 for s in cold], "warm_ms": [s * 1000 for s in warm],
                "cold_median_ms": statistics.median(cold) * 1000, "cold_max_ms": max(cold) * 1000,
                "warm_median_ms": statistics.median(warm) * 1000,
                "page10_cold_ms": page10_cold * 1000, "page10_warm_ms": page10_warm * 1000,
                "storm": runs, "problems": problems}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def format_previews(result):
    """The report's lines."""
    if not result or "cold_median_ms" not in result:
        return []
    storm = result.get("storm", {})
    lines = [f"  previews: first page of {result['pdfs']} PDFs cold median {result['cold_median_ms']:.0f} ms "
             f"(max {result['cold_max_ms']:.0f}), warm {result['warm_median_ms']:.1f} ms; page 10 of a "
             f"{LONG_PAGES}-page PDF cold {result['page10_cold_ms']:.0f} ms, warm {result['page10_warm_ms']:.1f} ms"]
    if "storm" in storm and "alone" in storm:
        lines.append(f"  previews: {3 * STORM_PAGES} page requests in waves of {STORM_PAGES} during a catch-up: "
                     f"{storm['storm']['photos_per_s']:.1f} photos/s rendered meanwhile, "
                     f"{storm['alone']['photos_per_s']:.1f} alone")
    return lines


def targets(result):
    """[(target, measured, ratio, passed)] of the previews."""
    if not result or "cold_median_ms" not in result:
        return []
    out = [
        ("Preview first page cold <= 300 ms (median of the bench's PDFs)", f"{result['cold_median_ms']:.0f} ms",
         result["cold_median_ms"] / 300, result["cold_median_ms"] <= 300),
        ("Preview first page warm <= 20 ms", f"{result['warm_median_ms']:.1f} ms",
         result["warm_median_ms"] / 20, result["warm_median_ms"] <= 20),
        ("Preview page 10 of a long PDF cold <= 300 ms", f"{result['page10_cold_ms']:.0f} ms",
         result["page10_cold_ms"] / 300, result["page10_cold_ms"] <= 300),
    ]
    storm = result.get("storm", {})
    if "alone" in storm and "storm" in storm and storm["alone"]["photos_per_s"] > 0:
        ratio = storm["storm"]["photos_per_s"] / storm["alone"]["photos_per_s"]
        out.append(("A batch during 20 page requests keeps >= 1/3 of its rate", f"{ratio:.2f} of its rate",
                    (1 / 3) / ratio if ratio else float("inf"), ratio >= 1 / 3))
    out.append(("Previews: no 5xx but 503", "; ".join(result.get("problems", [])) or "none",
                0.0 if not result.get("problems") else 2.0, not result.get("problems")))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--glance", default=os.environ.get("GLANCE", ".build-static/release/glance"))
    parser.add_argument("--corpus", default=str(ROOT / "bench" / "work" / "corpus-small"))
    parser.add_argument("--json", help="write the result here as JSON")
    args = parser.parse_args()
    glance = str((ROOT / args.glance).resolve()) if not os.path.isabs(args.glance) else args.glance
    result = measure(glance, args.corpus)
    for target, measured, _, passed in targets(result):
        print(f"  {'PASS' if passed else 'FAIL'}  {target}: {measured}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
