"""On-save latency: how soon a saved document is fresh while a large catch-up runs, and what a
`glance hook` round trip costs with a watcher running and without one.

Save-to-fresh: `glance watch` starts on a container of 10,000 documents that it has never seen,
so its catch-up pass renders all of them in the background lane; meanwhile 200 documents (the
corpus's JPEGs, PDFs and texts, 1-5 MB photos among them) are saved into the container at 20 per
second, each the way an application saves (a hidden temporary file renamed over the name). The
latency of each is what the watcher logs: from the save's last file event to the record being
fresh. Hook: a small text document is rewritten and `glance hook` run on it, 50 times, timed from
outside, first with the watcher answering on its socket and then with no watcher.
"""

import json
import os
import shutil
import signal
import statistics
import subprocess
import time


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


def save_atomically(source, target):
    folder = os.path.dirname(target)
    temporary = os.path.join(folder, "." + os.path.basename(target) + ".saving")
    shutil.copyfile(source, temporary)
    os.rename(temporary, target)


def measure_onsave(glance, root, manifest, many_docs, work_dir, log, saves=200, rate=20.0, hooks=50):
    container = os.path.join(work_dir, "onsave", "container")
    shutil.rmtree(os.path.join(work_dir, "onsave"), ignore_errors=True)
    log("  on-save: copying 10,000 documents into a container the watcher has not seen ...")
    shutil.copytree(many_docs, os.path.join(container, "bulk"))
    saved_dir = os.path.join(container, "saved")
    os.makedirs(saved_dir)
    sources = [os.path.join(root, e["format"], e["file"]) for e in manifest if e["format"] in ("jpeg", "pdf", "text")]
    sources = [s for s in sources if os.path.getsize(s) <= 6_000_000]
    log_path = os.path.join(work_dir, "onsave", "watch.log")
    with open(log_path, "w") as log_file:
        watch = subprocess.Popen([glance, "watch", container, "--log-format", "json"], stdout=subprocess.DEVNULL,
                                 stderr=log_file)
    socket = os.path.join(container, ".thumbnails", "hook.sock")
    for _ in range(400):
        if os.path.exists(socket):
            break
        time.sleep(0.025)
    names = {}
    start = time.monotonic()
    for index in range(saves):
        source = sources[index % len(sources)]
        name = f"save-{index:03d}{os.path.splitext(source)[1]}"
        names[name] = source
        due = start + index / rate
        time.sleep(max(0.0, due - time.monotonic()))
        save_atomically(source, os.path.join(saved_dir, name))
    # Wait for every save to be logged (or 60 s).
    latencies, catch_up_done_at, outcomes = {}, None, {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        latencies.clear()
        with open(log_path) as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("message") == "catch-up done" and catch_up_done_at is None:
                    catch_up_done_at = entry.get("time")
                path = entry.get("path", "")
                if entry.get("change") == "saved" and path.startswith("saved/"):
                    latencies[path] = float(entry.get("latencyMs", "nan"))
                    outcomes[path] = entry.get("outcome", "")
        if len(latencies) >= saves:
            break
        time.sleep(0.25)
    values = list(latencies.values())
    result = {
        "saves": saves, "saved_per_second": rate, "logged": len(values),
        "fresh": sum(1 for o in outcomes.values() if o.startswith("fresh")),
        "p50_ms": percentile(values, 0.50), "p95_ms": percentile(values, 0.95), "p99_ms": percentile(values, 0.99),
        "max_ms": max(values) if values else float("nan"),
    }
    log(f"  on-save: {len(values)} of {saves} saves logged; p50 {result['p50_ms']:.0f} ms, "
        f"p95 {result['p95_ms']:.0f} ms, p99 {result['p99_ms']:.0f} ms")

    # Hook round trips with the watcher answering, once its catch-up is over (the saves above
    # measured on-save work under batch load; this measures the hook path itself).
    deadline = time.monotonic() + 120
    while catch_up_done_at is None and time.monotonic() < deadline:
        with open(log_path) as f:
            if any('"catch-up done"' in line for line in f):
                break
        time.sleep(0.25)
    note = os.path.join(container, "note.txt")
    with_watcher = []
    for index in range(hooks):
        with open(note, "w") as f:
            f.write(f"note number {index}\n")
        began = time.monotonic()
        subprocess.run([glance, "hook", container, "note.txt"], check=True, stdout=subprocess.DEVNULL)
        with_watcher.append((time.monotonic() - began) * 1000)
    watch.send_signal(signal.SIGTERM)
    try:
        watch.wait(timeout=10)
    except subprocess.TimeoutExpired:
        watch.kill()
    without_watcher = []
    for index in range(hooks):
        with open(note, "w") as f:
            f.write(f"note number {index} again\n")
        began = time.monotonic()
        subprocess.run([glance, "hook", container, "note.txt"], check=True, stdout=subprocess.DEVNULL)
        without_watcher.append((time.monotonic() - began) * 1000)
    result.update(
        hook_with_watcher_p50_ms=percentile(with_watcher, 0.5), hook_with_watcher_p95_ms=percentile(with_watcher, 0.95),
        hook_without_watcher_p50_ms=percentile(without_watcher, 0.5),
        hook_without_watcher_p95_ms=percentile(without_watcher, 0.95), watch_exit=watch.returncode)
    log(f"  hook round trip: with a watcher p95 {result['hook_with_watcher_p95_ms']:.0f} ms, "
        f"without p95 {result['hook_without_watcher_p95_ms']:.0f} ms")
    shutil.rmtree(os.path.join(work_dir, "onsave"), ignore_errors=True)
    return result
