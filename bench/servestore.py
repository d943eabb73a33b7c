"""Thumbnail GETs from a PostgreSQL store: the bytes read from the rows against read from files
beside the database (`?thumbnails=DIR`), in the same run.

    python3 bench/servestore.py [--glance PATH] [--seconds S] [--rounds N]

A throwaway PostgreSQL server (as in bench/scaleout.py) holds two databases of the same container
(the bench corpus's JPEGs, PNGs and PDFs, hard links): one keeps the thumbnails' bytes in its rows,
the other in a folder of files. `glance serve --memory-cache 0` runs on each in turn (no copy kept
in memory: every GET reads the store, which is what differs), and wrk asks for the 1024 thumbnails
in turn, `cores` threads and 16 connections, after a one-second warm-up; rounds alternate the two
stores. Every answer must be a 200 of about the thumbnails' average size, or the run fails.
"""

import json
import os
import shutil
import statistics
import subprocess
import tempfile

import scaleout
import serve
import tools

CONNECTIONS = 16


def measure(glance, root, work_dir, cores, log, seconds=5.0, rounds=3):
    folder = os.path.join(work_dir, "servestore")
    container, count = serve.make_container(root, folder)
    server = scaleout.Postgres(log)
    files = tools.fresh_dir(os.path.join(folder, "thumbnail-files"))
    shutil.rmtree(files)
    stores = {
        "rows": server.address(server.database("serve_rows"), "bench"),
        "files": server.address(server.database("serve_files"), "bench") + f"&thumbnails={files}",
    }
    result = {"documents": count, "connections": CONNECTIONS, "seconds": seconds, "runs": {k: [] for k in stores}}
    threads = max(1, cores)
    try:
        for name, store in stores.items():
            done = subprocess.run([glance, "generate", container, "--store", store, "--jobs", str(cores), "--json",
                                   "--quiet"], capture_output=True, text=True)
            summary = json.loads(done.stdout or "{}")
            if summary.get("rendered") != count:
                raise RuntimeError(f"generate into the {name} store rendered {summary.get('rendered')} of {count}: "
                                   + done.stderr.strip()[-200:])
        with tempfile.TemporaryDirectory(prefix="bench-servestore-") as temp:
            for round_index in range(rounds):
                order = list(stores.items()) if round_index % 2 == 0 else list(reversed(stores.items()))
                for name, store in order:
                    process, url, _ = serve.start_glance(glance, container, store, cores,
                                                         os.path.join(folder, f"serve-{name}.log"),
                                                         extra=("--memory-cache", "0"))
                    try:
                        status, _, body, _ = serve.fetch(url, "/api/items")
                        if status != 200:
                            raise RuntimeError(f"{name}: GET /api/items: status {status}")
                        items = [i for i in json.loads(body) if i.get("thumbnails")]
                        if len(items) != count:
                            raise RuntimeError(f"{name}: {len(items)} of {count} documents have thumbnails")
                        sizes = [i["thumbnails"]["1024x1024"]["bytes"] for i in items
                                 if "1024x1024" in i["thumbnails"]]
                        urls = [serve.thumbnail_url(i["path"]) for i in items]
                        script = os.path.join(temp, f"{name}.lua")
                        with open(script, "w") as f:
                            f.write(serve.wrk_script(urls, headers={"Accept": "image/png,image/jpeg"}))
                        log_path = os.path.join(folder, "wrk.log")
                        serve.run_wrk(url, script, serve.WARMUP_SECONDS, CONNECTIONS, threads, log_path)
                        run = serve.run_wrk(url, script, seconds, CONNECTIONS, threads, log_path)
                        problems = []
                        serve.check_wrk(f"{name} GETs", run, statistics.mean(sizes) if sizes else None, problems)
                        if problems:
                            raise RuntimeError("; ".join(problems))
                        result["runs"][name].append(run)
                    finally:
                        serve.stop(process)
                log(f"  round {round_index + 1}/{rounds}: " + ", ".join(
                    f"{name} {result['runs'][name][-1]['requests_per_s']:.0f}/s" for name in stores))
    finally:
        server.stop()
    for name in stores:
        runs = result["runs"][name]
        result[name] = {"requests_per_s": statistics.median(r["requests_per_s"] for r in runs),
                        "p50_ms": statistics.median(r["p50_ms"] for r in runs),
                        "p99_ms": statistics.median(r["p99_ms"] for r in runs)}
    result["files_over_rows"] = result["files"]["requests_per_s"] / result["rows"]["requests_per_s"]
    return result


def format_lines(found):
    if not found:
        return []
    rows, files = found["rows"], found["files"]
    return [
        f"Thumbnail GETs from PostgreSQL, nothing kept in memory (--memory-cache 0; {found['documents']} documents, "
        f"{found['connections']} connections, median of {len(found['runs']['rows'])} rounds):",
        f"  bytes in the rows  {rows['requests_per_s']:8.0f}/s  p50 {rows['p50_ms']:.2f} ms  p99 {rows['p99_ms']:.2f} ms",
        f"  bytes in files     {files['requests_per_s']:8.0f}/s  p50 {files['p50_ms']:.2f} ms  "
        f"p99 {files['p99_ms']:.2f} ms  ({found['files_over_rows']:.2f}x the rows)",
    ]


def targets(found):
    if not found:
        return []
    ratio = found["files_over_rows"]
    return [("Scale-out: thumbnail GETs from files >= 0.95x from the rows (PostgreSQL, no memory cache)",
             f"{ratio:.2f}x ({found['files']['requests_per_s']:.0f} against {found['rows']['requests_per_s']:.0f}/s)",
             ratio / 0.95, ratio >= 0.95)]


if __name__ == "__main__":
    import argparse
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import corpus
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glance", default=os.path.join(repo, ".build-static/release/glance"))
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    root, _ = corpus.ensure_corpus(lambda m: print(m, flush=True))
    found = measure(args.glance, root, os.path.join(repo, "bench", "work"), os.cpu_count() or 1,
                    lambda m: print(m, flush=True), seconds=args.seconds, rounds=args.rounds)
    print("\n".join(format_lines(found)))
    for name, measured, _, passed in targets(found):
        print(("PASS " if passed else "FAIL ") + name + ": " + measured)
