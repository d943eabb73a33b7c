#!/usr/bin/env python3
"""What metrics cost: thumbnail GETs on `glance serve` with its metrics and with --no-metrics, and
a watcher's catch-up of the corpus with --metrics-address and without, in the same run.

    python3 bench/metrics.py [--glance PATH] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

GETs: the corpus's JPEGs, PNGs and PDFs generated into a store, served twice over (metrics on,
then --no-metrics, then on and off again: three pairs, alternating, so that a machine that slows
down during the run weighs on both), each loaded by wrk for a few seconds with 64 connections on
the thumbnails' immutable URLs. Batch: the same container, a fresh store each time, caught up by
`glance watch` with and without `--metrics-address` (three of each, alternating); the time is the
one its `catch-up done` line says. The cost is the median's difference, as a share.
"""

import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import serve
import tools

ROUNDS = 3


def catch_up_seconds(glance, container, store, extra, log_path):
    """Seconds `glance watch` says its first catch-up took, with `extra` options."""
    shutil.rmtree(store, ignore_errors=True)
    with open(log_path, "w") as err:
        process = subprocess.Popen([glance, "watch", container, "--store", store, "--jobs", "2", *extra],
                                   stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            found = re.search(r"catch-up done .*seconds=([0-9.]+)", Path(log_path).read_text())
            if found:
                return float(found.group(1))
            if process.poll() is not None:
                raise RuntimeError(f"glance watch exited {process.returncode}: {Path(log_path).read_text()[-300:]}")
            time.sleep(0.05)
        raise RuntimeError("glance watch did not finish its catch-up in 10 minutes")
    finally:
        serve.stop(process)


def measure(glance, corpus, log=print):
    work = Path(tempfile.mkdtemp(prefix="glance-metrics-bench-"))
    try:
        container, count = serve.make_container(corpus, str(work))
        store = str(work / "store")
        subprocess.run([glance, "generate", container, "--store", store, "--jobs", "2", "--quiet"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        result = {"documents": count, "problems": []}
        # Thumbnail GETs.
        urls = []
        runs = {"metrics": [], "none": []}
        for round_index in range(ROUNDS):
            for label, extra in (("metrics", ()), ("none", ("--no-metrics",)))[::1 if round_index % 2 == 0 else -1]:
                process, base, _ = serve.start_glance(glance, container, store, 2, str(work / f"serve-{label}.log"),
                                                      extra=extra)
                try:
                    if not urls:
                        status, _, body, _ = serve.fetch(base, "/api/items")
                        items = json.loads(body) if status == 200 else []
                        urls = [serve.thumbnail_url(item["path"], (item.get("digest") or "").split(":")[-1] or None)
                                for item in items if item.get("thumbnails")]
                    script = work / "get.lua"
                    script.write_text(serve.wrk_script(urls))
                    run = serve.run_wrk(base, str(script), serve.SECONDS, serve.CONNECTIONS, 2, str(work / "wrk.log"))
                    if any(run["errors"].values()):
                        result["problems"].append(f"wrk errors ({label}): {run['errors']}")
                    runs[label].append(run["requests_per_s"])
                finally:
                    serve.stop(process)
        on, off = statistics.median(runs["metrics"]), statistics.median(runs["none"])
        result["gets"] = {"with_metrics_per_s": on, "without_per_s": off, "cost": 1 - on / off,
                          "runs": runs}
        log(f"  metrics: thumbnail GETs {on:.0f}/s with metrics, {off:.0f}/s without "
            f"({(1 - on / off) * 100:+.1f}% cost)")
        # A batch: the watcher's catch-up.
        batch = {"metrics": [], "none": []}
        for round_index in range(ROUNDS):
            order = (("metrics", ("--metrics-address", "127.0.0.1:0")), ("none", ()))
            for label, extra in order[::1 if round_index % 2 == 0 else -1]:
                batch[label].append(catch_up_seconds(glance, container, str(work / "watch-store"), extra,
                                                     str(work / f"watch-{label}.log")))
        on, off = statistics.median(batch["metrics"]), statistics.median(batch["none"])
        result["batch"] = {"with_metrics_s": on, "without_s": off, "cost": on / off - 1, "runs": batch}
        log(f"  metrics: a catch-up of {count} documents {on:.2f} s with metrics, {off:.2f} s without "
            f"({(on / off - 1) * 100:+.1f}% cost)")
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def format_metrics(result):
    """The report's lines."""
    if not result or "gets" not in result:
        return []
    gets, batch = result["gets"], result.get("batch")
    line = (f"  metrics: thumbnail GETs {gets['with_metrics_per_s']:.0f}/s with, {gets['without_per_s']:.0f}/s "
            f"without ({gets['cost'] * 100:+.1f}%)")
    if batch:
        line += (f"; a catch-up of {result['documents']} documents {batch['with_metrics_s']:.2f} s with, "
                 f"{batch['without_s']:.2f} s without ({batch['cost'] * 100:+.1f}%)")
    return [line]


def targets(result):
    """[(target, measured, ratio, passed)]: each cost at most 2%."""
    if not result or "gets" not in result:
        return []
    out = []
    cost = result["gets"]["cost"]
    out.append(("Metrics cost on thumbnail GETs <= 2%", f"{cost * 100:+.1f}%", max(cost, 0) / 0.02, cost <= 0.02))
    if result.get("batch"):
        cost = result["batch"]["cost"]
        out.append(("Metrics cost on a batch <= 2%", f"{cost * 100:+.1f}%", max(cost, 0) / 0.02, cost <= 0.02))
    return out


def main():
    return tools.run_alone(__doc__.split("\n")[0], measure, format_metrics, targets)


if __name__ == "__main__":
    sys.exit(main())
