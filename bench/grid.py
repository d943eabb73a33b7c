#!/usr/bin/env python3
"""The first screen of the grid in a real browser, over a slow link: bytes and time until every
tile in view has its image, with the store's smaller sizes and without them (1024 only).

    /usr/bin/python3 bench/grid.py [--glance PATH] [--rounds N] [--corpus assets|bench] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

A container of every document of TestAssets/ that a tile can show (photos, EXIF-rotated photos,
colour-managed photos, PDFs, PNGs, texts: about a hundred) is generated twice into fresh stores:
`--sizes none` (each document keeps the 1024 only, as Glance did before) and the default sizes.
Each store is served by `glance serve` on loopback and opened in headless Chromium (Debian's,
driven by Selenium) at 1440x900, device pixel ratio 1 and 2, with the network emulated through
the DevTools protocol (`Network.emulateNetworkConditions`: 20 Mbit/s down, 40 ms latency) and the
browser's cache off. Measured from the navigation's start: the time until every image whose tile
is in the first screen has loaded (the last one's `responseEnd`), and the bytes transferred by
then (the page and every resource, `transferSize`, lazy images the browser fetched early
included). Median of `rounds` page loads; each load's images are checked to have loaded (a tile
whose image fails is a problem, not a fast load).
"""

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "TestAssets"
FOLDERS = ("samples", "jpeg", "orientation", "colour", "pdf", "png", "text")
# The bench corpus's (bench/corpus.py): camera-size photos, PDFs of text and of photos, PNG photos
# and screenshots, texts in Latin and CJK.
CORPUS_FOLDERS = ("jpeg", "pdf", "png", "text")
VIEWPORT = (1440, 900)
LINK = {"latency_ms": 40, "down_bits": 20_000_000, "up_bits": 20_000_000}
VARIANTS = (("1024 only", "none"), ("with sizes", None))

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:
    webdriver = None



def store_size(store):
    """The bytes of a store's files once its write-ahead log is checkpointed into the database.
    `glance generate` can leave its last writes in the log (SQLite checkpoints every 1,000 pages),
    and the database and the log summed as they were counted those pages twice: the same 62
    documents' store with the 1024s alone read 15.1 MB in one run and 20.0 MB in the next."""
    for database in store.glob("*.sqlite"):
        with contextlib.closing(sqlite3.connect(database)) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(f.stat().st_size for f in store.iterdir() if f.is_file())

def make_container(folder, corpus_root=None):
    """folder/container: a copy of every TestAssets document a tile can show (not the corrupt or
    hostile ones), or of every document of the bench corpus at `corpus_root`; returns (path, count)."""
    container = folder / "container"
    shutil.rmtree(container, ignore_errors=True)
    count = 0
    root, folders = (Path(corpus_root), CORPUS_FOLDERS) if corpus_root else (ASSETS, FOLDERS)
    for name in folders:
        for source in sorted((root / name).iterdir()):
            if source.is_file() and not source.name.startswith("."):
                target = container / name / source.name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
                count += 1
    return container, count


def start_serve(glance, container, store, log_path):
    """`glance serve` on a free loopback port; (process, base URL)."""
    out = open(log_path, "w")
    process = subprocess.Popen([glance, "serve", str(container), "--store", str(store), "--port", "0"],
                               stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"serving .* at (http://\S+)", Path(log_path).read_text())
        if found:
            return process, found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"glance serve printed no URL: {Path(log_path).read_text()[-300:]}")


def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--disable-gpu", f"--user-data-dir={profile}", "--disable-dev-shm-usage",
                     "--no-first-run", "--no-default-browser-check", "--hide-scrollbars"]:
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses uid 0; the pages are our own
    options.ignore_local_proxy_environment_variables()
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver",
                      log_output=subprocess.DEVNULL)
    return webdriver.Chrome(service=service, options=options)


FIRST_SCREEN = """
const height = window.innerHeight;
const images = Array.from(document.querySelectorAll('main img'))
  .filter((image) => image.getBoundingClientRect().top < height);
const waiting = images.filter((image) => !(image.complete && image.naturalWidth > 0)).length;
const entries = performance.getEntriesByType('resource');
const byName = new Map(entries.map((entry) => [entry.name, entry]));
let last = 0;
for (const image of images) {
  const entry = byName.get(image.currentSrc);
  if (entry) last = Math.max(last, entry.responseEnd);
}
const navigation = performance.getEntriesByType('navigation')[0];
const bytes = (navigation ? navigation.transferSize : 0)
  + entries.filter((entry) => entry.responseEnd <= last).reduce((sum, entry) => sum + entry.transferSize, 0);
return {count: images.length, waiting, last, bytes,
        sources: images.map((image) => image.currentSrc)};
"""


def load_once(driver, url, ratio):
    """One cold load of the grid at device pixel ratio `ratio`: the first screen's numbers."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": LINK["latency_ms"],
        "downloadThroughput": LINK["down_bits"] / 8, "uploadThroughput": LINK["up_bits"] / 8})
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": ratio, "mobile": False})
    driver.get("about:blank")
    driver.get(url)
    deadline = time.monotonic() + 120
    while True:
        state = driver.execute_script(FIRST_SCREEN)
        if state["count"] > 0 and state["waiting"] == 0 and state["last"] > 0:
            return state
        if time.monotonic() > deadline:
            raise RuntimeError(f"the first screen did not load in 120 s: {state['waiting']} of {state['count']}")
        time.sleep(0.1)


def measure(glance, work_dir, rounds, log, corpus_root=None):
    """Every variant at ratio 1 and 2, on TestAssets or the bench corpus at `corpus_root`; the
    result dict (problems listed, never raised)."""
    result = {"problems": [], "runs": {}}
    if webdriver is None:
        result["problems"].append("not measured: needs Selenium (Debian: python3-selenium) under this python3")
        return result
    folder = Path(work_dir) / "grid"
    folder.mkdir(parents=True, exist_ok=True)
    container, count = make_container(folder, corpus_root)
    result.update(documents=count, viewport=list(VIEWPORT), link=LINK,
                  source="the bench corpus" if corpus_root else "TestAssets/")
    profile = Path(tempfile.mkdtemp(prefix="bench-grid-"))
    driver = None
    try:
        driver = browser(profile)
        for label, sizes in VARIANTS:
            store = folder / f"store-{sizes or 'default'}"
            shutil.rmtree(store, ignore_errors=True)
            argv = [glance, "generate", str(container), "--store", str(store), "--quiet"]
            if sizes:
                argv += ["--sizes", sizes]
            generated = subprocess.run(argv, capture_output=True, text=True)
            if generated.returncode not in (0, 1):
                result["problems"].append(f"{label}: generate exited {generated.returncode}")
                continue
            store_bytes = store_size(store)
            process, url = start_serve(glance, container, store, folder / f"serve-{sizes or 'default'}.log")
            try:
                for ratio in (1, 2):
                    loads = [load_once(driver, url, ratio) for _ in range(rounds)]
                    run = {"seconds": statistics.median(l["last"] for l in loads) / 1000,
                           "bytes": statistics.median(l["bytes"] for l in loads),
                           "images": loads[0]["count"],
                           "sizes_loaded": sorted({(re.search(r"size=(\d+)", s) or [None, "1024"])[1]
                                                   for l in loads for s in l["sources"]}),
                           "store_bytes": store_bytes}
                    result["runs"][f"{label} @{ratio}x"] = run
                    log(f"  grid: {label}, ratio {ratio}: {run['images']} tiles in view, "
                        f"{run['bytes'] / 1e6:.2f} MB, {run['seconds']:.2f} s (sizes loaded: "
                        f"{', '.join(run['sizes_loaded'])})")
            finally:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)
    except Exception as error:  # a browser that would not start, a page that would not load
        result["problems"].append(f"not measured: {type(error).__name__}: {str(error).splitlines()[0][:200]}")
    finally:
        if driver:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return result


def format_grid(result):
    """Report lines."""
    if not result:
        return []
    lines = []
    if result.get("runs"):
        link = result["link"]
        lines.append(f"The grid's first screen in headless Chromium at {result['viewport'][0]}x{result['viewport'][1]}, "
                     f"{link['down_bits'] / 1e6:g} Mbit/s and {link['latency_ms']} ms emulated, cache off, "
                     f"{result['documents']} documents of {result.get('source', 'TestAssets/')}:")
        for name, run in result["runs"].items():
            lines.append(f"  {name:<18} {run['images']:>3} tiles  {run['bytes'] / 1e6:6.2f} MB  {run['seconds']:5.2f} s  "
                         f"store {run['store_bytes'] / 1e6:.1f} MB  sizes loaded {', '.join(run['sizes_loaded'])}")
    for problem in result.get("problems", []):
        lines.append(f"  PROBLEM: {problem}")
    return lines


def targets(result):
    """[(target, measured, ratio, passed)] of the grid's first screen."""
    out = []
    runs = (result or {}).get("runs", {})
    one, two = runs.get("with sizes @1x"), runs.get("with sizes @2x")
    if one:
        out.append(("Grid first screen at ratio 1: <= 0.5 MB", f"{one['bytes'] / 1e6:.2f} MB",
                    one["bytes"] / 0.5e6, one["bytes"] <= 0.5e6))
        out.append(("Grid first screen at ratio 1: <= 0.6 s", f"{one['seconds']:.2f} s",
                    one["seconds"] / 0.6, one["seconds"] <= 0.6))
    if two:
        out.append(("Grid first screen at ratio 2: <= 1 MB", f"{two['bytes'] / 1e6:.2f} MB",
                    two["bytes"] / 1e6, two["bytes"] <= 1e6))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--glance", default=os.environ.get("GLANCE", ".build-static/release/glance"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write the result here as JSON")
    parser.add_argument("--corpus", choices=("assets", "bench"), default="assets",
                        help="the documents: TestAssets/ (small files), or the bench corpus (camera-size "
                             "photos, PDFs, screenshots, texts; made by bench/corpus.py when missing)")
    args = parser.parse_args()
    glance = str((ROOT / args.glance).resolve()) if not os.path.isabs(args.glance) else args.glance

    def log(message):
        print(message, flush=True)

    corpus_root = None
    if args.corpus == "bench":
        import corpus
        corpus_root, _ = corpus.ensure_corpus(log)
    result = measure(glance, ROOT / "bench" / "work", args.rounds, log, corpus_root)
    if args.json:
        Path(args.json).write_text(json.dumps(result))
    print("\n".join([""] + format_grid(result) + [""] +
                     [f"  {'PASS' if ok else 'FAIL'} {ratio:6.3f}  {name}: {measured}"
                      for name, measured, ratio, ok in targets(result)]))
    sys.exit(1 if result["problems"] else 0)


if __name__ == "__main__":
    main()
