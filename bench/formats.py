#!/usr/bin/env python3
"""The formats added after the first four, against vipsthumbnail (which reads them all): for each,
`glance generate` and vipsthumbnail's best (one process with its own threads, or two processes of
one thread each) over a corpus made from the bench corpus, timed in turn.

    python3 bench/formats.py [--glance PATH] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

WebP: the corpus's photos (up to 6000x4000) as lossy WebP at quality 80 and its PNGs (photos,
screenshots with alpha, palettes) as lossless WebP, made by cwebp. Both tools write a JPEG for a
lossy WebP and a PNG for a lossless one. The target is Glance >= 1.5x vipsthumbnail's best; the
peak memory of each is reported.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import tools

ROUNDS = 3


def make_webp(corpus, folder):
    """folder/webp: the corpus's JPEGs as lossy and PNGs as lossless WebP; their paths."""
    target = Path(folder) / "webp"
    target.mkdir(parents=True, exist_ok=True)
    made = []
    for source in sorted((Path(corpus) / "jpeg").iterdir()):
        out = target / (source.stem + ".webp")
        subprocess.run(["cwebp", "-quiet", "-q", "80", "-m", "4", str(source), "-o", str(out)], check=True)
        made.append(str(out))
    for source in sorted((Path(corpus) / "png").iterdir()):
        out = target / (source.stem + "-lossless.webp")
        # cwebp reads 8-bit PNGs; a 16-bit one goes through ImageMagick first.
        if subprocess.run(["cwebp", "-quiet", "-lossless", "-m", "1", str(source), "-o", str(out)],
                          capture_output=True).returncode != 0:
            continue
        made.append(str(out))
    return str(target), made


def measure(glance, corpus, log=print, cores=2):
    work = Path(tempfile.mkdtemp(prefix="glance-formats-bench-"))
    try:
        folder, files = make_webp(corpus, work)
        weights = {path: os.path.getsize(path) for path in files}
        # Each tool writes what it writes for a photo and for a graphic: vipsthumbnail a JPEG
        # (quality 85) for a lossy WebP and a PNG for a lossless one, as Glance does.
        lossy = [path for path in files if not path.endswith("-lossless.webp")]
        lossless = [path for path in files if path.endswith("-lossless.webp")]

        def vips_one(out):
            jobs = [tools.Job(["vipsthumbnail", "-s", "1024", "-o", tools.vips_output(fmt, out)] + group)
                    for fmt, group in (("jpeg", lossy), ("png", lossless)) if group]
            return jobs, 1

        def vips_two(out):
            jobs = []
            for fmt, group in (("jpeg", lossy), ("png", lossless)):
                for half in tools.split_in_two(group, weights) if len(group) > 1 else [group]:
                    if half:
                        jobs.append(tools.Job(["vipsthumbnail", "-s", "1024", "-o", tools.vips_output(fmt, out)]
                                              + half, env={"VIPS_CONCURRENCY": "1"}))
            return jobs, 2

        plan = {
            "glance": lambda out: tools.glance_generate(glance, folder, os.path.join(out, "store"), cores,
                                                        os.path.join(out, "summary.json")),
            "vips1": vips_one,
            "vips2": vips_two,
        }
        tools.warm_page_cache(files)
        seconds, peaks, failures = tools.time_in_turn(plan, ROUNDS, str(work / "out"), len(files), log=log,
                                                      label="webp")
        medians = {name: statistics.median(values) for name, values in seconds.items()}
        best = min(medians["vips1"], medians["vips2"])
        ratio = best / medians["glance"]
        result = {"webp": {"files": len(files), "seconds": medians, "ratio": ratio,
                           "peak_mib": {name: value / 1024 for name, value in peaks.items()},
                           "problems": [f"{name}: {problem}" for name, found in failures.items()
                                        for problem in found]}}
        log(f"  formats: WebP ({len(files)} files): glance {medians['glance']:.2f} s, vipsthumbnail best "
            f"{best:.2f} s: {ratio:.2f}x")
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def format_formats(result):
    """The report's lines."""
    if not result or "webp" not in result:
        return []
    webp = result["webp"]
    return [f"  formats: WebP, {webp['files']} files: glance {webp['seconds']['glance']:.2f} s, vipsthumbnail "
            f"{webp['seconds']['vips1']:.2f} s (1 process) / {webp['seconds']['vips2']:.2f} s (2): "
            f"{webp['ratio']:.2f}x"]


def targets(result):
    """[(target, measured, ratio, passed)]."""
    if not result or "webp" not in result:
        return []
    ratio = result["webp"]["ratio"]
    return [("WebP: glance >= 1.5x vipsthumbnail's best", f"{ratio:.2f}x", 1.5 / ratio if ratio else float("inf"),
             ratio >= 1.5)]


def main():
    return tools.run_alone(__doc__.split("\n")[0], measure, format_formats, targets)


if __name__ == "__main__":
    sys.exit(main())
