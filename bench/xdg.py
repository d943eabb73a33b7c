"""Filling the desktop's xx-large thumbnail cache: Glance against the desktop's own thumbnailers.

    python3 bench/xdg.py [--glance PATH] [--rounds N]

(run alone: this measurement only; `make bench` runs it among the extras.)

The corpus's JPEGs, PNGs and PDFs (hard links in one container). Glance: `glance generate
--xdg --xdg-sizes xx-large` with a fresh store and a fresh XDG_CACHE_HOME each round. The desktop:
one thumbnailer process per file, as GNOME's thumbnail factory starts them:
`gdk-pixbuf-thumbnailer -s 1024 IN OUT` for images, `evince-thumbnailer -s 1024 IN OUT` for PDFs,
`cores` at a time (GNOME Files runs one at a time; running as many as Glance has workers is the
anchor's best case). The anchor is not charged for the factory's own work (reading the
thumbnailer's PNG back and saving it with its tEXt chunks into the cache) nor for the bubblewrap
sandbox GNOME wraps around each process: both would only slow it down. Text files are left out:
GNOME ships no text thumbnailer. Median wall time of `rounds` rounds; the tools alternate.
Every output is checked to exist: a tool that failed on a file is reported, not timed as fast.
"""

import argparse
import concurrent.futures
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

FORMATS = ("jpeg", "png", "pdf")
ANCHORS = {"jpeg": "gdk-pixbuf-thumbnailer", "png": "gdk-pixbuf-thumbnailer", "pdf": "evince-thumbnailer"}


def container_of(root, work_dir):
    """A folder of hard links to the corpus's images and PDFs; returns (folder, [(path, format)])."""
    folder = os.path.join(work_dir, "xdg", "container")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    documents = []
    for fmt in FORMATS:
        source = os.path.join(root, fmt)
        for name in sorted(os.listdir(source)):
            target = os.path.join(folder, f"{fmt}-{name}")
            os.link(os.path.join(source, name), target)
            documents.append((target, fmt))
    return folder, documents


def run_glance(glance, folder, documents, cores):
    with tempfile.TemporaryDirectory(prefix="glance-xdg-") as scratch:
        environment = dict(os.environ, XDG_CACHE_HOME=os.path.join(scratch, "cache"))
        start = time.monotonic()
        run = subprocess.run([glance, "generate", folder, "--xdg", "--xdg-sizes", "xx-large", "--store",
                              os.path.join(scratch, "store"), "--jobs", str(cores), "--quiet"],
                             env=environment, capture_output=True, text=True)
        seconds = time.monotonic() - start
        entries = os.listdir(os.path.join(scratch, "cache", "thumbnails", "xx-large"))
        missing = len(documents) - len([e for e in entries if e.endswith(".png")])
        return seconds, missing, run.stderr.strip().splitlines()[:3]


def run_desktop(documents, cores):
    with tempfile.TemporaryDirectory(prefix="desktop-xdg-") as scratch:
        def one(item):
            index, (path, fmt) = item
            out = os.path.join(scratch, f"{index}.png")
            run = subprocess.run([ANCHORS[fmt], "-s", "1024", path, out], capture_output=True)
            return run.returncode == 0 and os.path.exists(out)

        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=cores) as pool:
            made = list(pool.map(one, enumerate(documents)))
        seconds = time.monotonic() - start
        return seconds, made.count(False)


def measure_xdg(glance, root, work_dir, cores, rounds, log):
    """{documents, glance_seconds, desktop_seconds, ratio, ...} or {"problems": [...]}."""
    missing_tools = [tool for tool in set(ANCHORS.values()) if not shutil.which(tool)]
    if missing_tools:
        return {"problems": [f"not measured: {', '.join(sorted(missing_tools))} missing (make bench installs them)"]}
    folder, documents = container_of(root, work_dir)
    glance_times, desktop_times = [], []
    problems = []
    for round_index in range(rounds):
        order = ("glance", "desktop") if round_index % 2 == 0 else ("desktop", "glance")
        for tool in order:
            if tool == "glance":
                seconds, missing, errors = run_glance(glance, folder, documents, cores)
                glance_times.append(seconds)
                if missing:
                    problems.append(f"glance: {missing} documents without an xx-large entry ({errors})")
            else:
                seconds, failed = run_desktop(documents, cores)
                desktop_times.append(seconds)
                if failed:
                    problems.append(f"desktop thumbnailers: {failed} documents without a thumbnail")
        log(f"  xdg round {round_index + 1}: glance {glance_times[-1]:.2f} s, desktop {desktop_times[-1]:.2f} s")
    glance_seconds = statistics.median(glance_times)
    desktop_seconds = statistics.median(desktop_times)
    counts = {fmt: sum(1 for _, f in documents if f == fmt) for fmt in FORMATS}
    return {
        "documents": len(documents), "by_format": counts, "cores": cores, "rounds": rounds,
        "glance_seconds": glance_seconds, "desktop_seconds": desktop_seconds,
        "glance_per_s": len(documents) / glance_seconds, "desktop_per_s": len(documents) / desktop_seconds,
        "ratio": desktop_seconds / glance_seconds, "problems": sorted(set(problems)),
    }


def format_xdg(result):
    if not result:
        return []
    lines = []
    if result.get("documents"):
        by = ", ".join(f"{n} {fmt.upper()}" for fmt, n in result["by_format"].items())
        lines.append(f"Desktop cache, xx-large, {result['documents']} documents ({by}), {result['cores']} at a time, "
                     f"median of {result['rounds']}:")
        lines.append(f"  glance generate --xdg    {result['glance_seconds']:.2f} s, {result['glance_per_s']:.1f}/s")
        lines.append(f"  one thumbnailer a file   {result['desktop_seconds']:.2f} s, {result['desktop_per_s']:.1f}/s "
                     f"(gdk-pixbuf-thumbnailer, evince-thumbnailer)   Glance {result['ratio']:.2f}x")
    for problem in result.get("problems", []):
        lines.append(f"  problem: {problem}")
    return lines


def main():
    import corpus
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--glance", default=".build-static/release/glance")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    bench_dir = os.path.dirname(os.path.abspath(__file__))
    root, _ = corpus.ensure_corpus(print)
    result = measure_xdg(os.path.abspath(args.glance), root, os.path.join(bench_dir, "work"), os.cpu_count(),
                         args.rounds, print)
    print("\n".join(format_xdg(result)))


if __name__ == "__main__":
    sys.exit(main())
