"""A renderer's memory between documents, as `make bench-check` measures it: the memory targets
that a unit test must not judge (a shared machine's timing moves them), measured here on a
`glance watch` of a folder of its own.

- reuse faults: the minor page faults a renderer takes drawing a large interlaced PNG (decoded
  whole: 144 MB) a second time, right after the first. A renderer that keeps the memory the
  first document freed takes a few hundred; one that maps and zeroes it again takes 36,000.
- idle RSS: the renderer's resident memory in MiB once it has been idle for three seconds
  after that document: what it keeps between documents.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
ASSET = os.path.join(REPO_DIR, "TestAssets", "png", "interlaced-6000-rgba.png")


def wait_for(what, predicate, timeout):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise RuntimeError(f"{what}: not within {timeout:g} s")
        time.sleep(0.05)


def descendants(pid):
    """Every process below `pid`, from /proc's children lists."""
    found, pending = [], [pid]
    while pending:
        parent = pending.pop()
        try:
            for task in os.listdir(f"/proc/{parent}/task"):
                with open(f"/proc/{parent}/task/{task}/children") as handle:
                    children = [int(word) for word in handle.read().split()]
                found += children
                pending += children
        except OSError:
            continue
    return found


def renderer_of(watch):
    """The glance-renderer process below the watch (inside bubblewrap, when it is used)."""
    for pid in descendants(watch.pid):
        try:
            with open(f"/proc/{pid}/comm") as handle:
                if handle.read().strip() == "glance-renderer":
                    return pid
        except OSError:
            continue
    return None


def minor_faults(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return int(fields[7])


def resident_mib(pid):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def fresh(glance, folder, name):
    listed = subprocess.run([glance, "list", folder, "--json"], capture_output=True, text=True, check=False)
    try:
        rows = json.loads(listed.stdout)
    except json.JSONDecodeError:
        return False
    return any(row.get("path") == name and row.get("state") == "fresh" for row in rows)


def measure(glance, log):
    """{"reuse_faults": N, "idle_rss_mib": M} for one renderer of `glance watch --jobs 1`."""
    folder = tempfile.mkdtemp(prefix="glance-bench-memory-")
    said = os.path.join(tempfile.gettempdir(), os.path.basename(folder) + ".log")
    with open(said, "w") as errors:
        watch = subprocess.Popen([glance, "watch", folder, "--jobs", "1", "--no-catch-up"],
                                 stdout=subprocess.DEVNULL, stderr=errors)
    try:
        wait_for("the watch watching", lambda: " watching " in open(said).read(), 60)
        shutil.copy(ASSET, os.path.join(folder, "first.png"))
        wait_for("first.png drawn", lambda: fresh(glance, folder, "first.png"), 120)
        renderer = wait_for("the renderer", lambda: renderer_of(watch), 10)
        before = minor_faults(renderer)
        shutil.copy(ASSET, os.path.join(folder, "second.png"))
        wait_for("second.png drawn", lambda: fresh(glance, folder, "second.png"), 120)
        if renderer_of(watch) != renderer:
            raise RuntimeError("the second document went to another renderer")
        faults = minor_faults(renderer) - before
        time.sleep(3)
        resident = resident_mib(renderer)
        log(f"  renderer memory: {faults} minor faults for the second interlaced PNG, "
            f"{resident:.0f} MiB resident after 3 s idle")
        return {"reuse_faults": float(faults), "idle_rss_mib": resident}
    finally:
        watch.send_signal(signal.SIGTERM)
        try:
            watch.wait(timeout=30)
        except subprocess.TimeoutExpired:
            watch.kill()
        shutil.rmtree(folder, ignore_errors=True)
        os.unlink(said)
