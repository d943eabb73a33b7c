"""A second JPEG set, unlike the corpus's: small and mid-sized photos, half of them progressive,
in 4:2:0, 4:4:4 and 4:2:2 at qualities from 75 to 92.

The corpus's JPEGs are large (1600x1200 to 6000x4000), 4:2:0 at quality 90, and one in four
progressive. A speed measured on one mix can come from that mix alone (a fast path for large
4:2:0 files, say), so `make bench` also times Glance and vipsthumbnail on this one.

    python3 bench/jpegmix.py           # make (or reuse) bench/work/jpeg-mix/photos/

Made once, from fixed seeds (corpus.photo); regenerated when this file or corpus.py changes.
"""

import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import corpus
import tools

FOLDER = os.path.join(corpus.WORK_DIR, "jpeg-mix")
SIZES = ((640, 480), (1024, 768), (1600, 1200), (2048, 1536), (3264, 2448), (4032, 3024))
# (progressive, cjpeg -sample, quality): every size is made in each of these.
VARIANTS = ((False, "2x2", 85), (True, "2x2", 85), (False, "1x1", 92), (True, "1x1", 75),
            (False, "2x1", 75), (True, "2x1", 92))
SAMPLING_NAMES = {"2x2": "420", "1x1": "444", "2x1": "422"}


def plan():
    """(name, width, height, progressive, sample, quality) for every file of the set."""
    files = []
    for s, (width, height) in enumerate(SIZES):
        for v, (progressive, sample, quality) in enumerate(VARIANTS):
            kind = "prog" if progressive else "base"
            name = f"mix-{s}{v}-{width}x{height}-{SAMPLING_NAMES[sample]}-q{quality}-{kind}.jpg"
            files.append((name, width, height, progressive, sample, quality))
    return files


def build(folder, log):
    """Makes every file of the set in folder; returns the manifest."""
    photos = os.path.join(folder, "photos")
    os.makedirs(photos)
    tmp = tempfile.mkdtemp(dir=corpus.WORK_DIR)
    manifest = []
    try:
        for i, (name, width, height, progressive, sample, quality) in enumerate(plan()):
            log(f"  jpeg-mix {name}")
            ppm = os.path.join(tmp, "photo.ppm")
            corpus.write_pnm(ppm, corpus.photo(width, height, 6000 + i).astype("uint8"))
            args = ["cjpeg", "-quality", str(quality), "-sample", sample, "-optimize"]
            if progressive:
                args.append("-progressive")
            subprocess.run(args + ["-outfile", os.path.join(photos, name), ppm], check=True)
            os.remove(ppm)
            manifest.append({"file": name, "width": width, "height": height})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return manifest


def generator_key():
    """Changes when this file or the corpus generator (whose photo() it uses) changes."""
    digest = hashlib.sha256()
    for path in (os.path.abspath(__file__), os.path.abspath(corpus.__file__)):
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:16] + "-jpeg-mix"


def ensure(log=print):
    """The folder of photos (a container of JPEGs only) and the manifest, made if missing or stale."""
    os.makedirs(corpus.WORK_DIR, exist_ok=True)
    manifest = corpus.cached_folder(FOLDER, generator_key(), lambda folder: build(folder, log), log)
    return os.path.join(FOLDER, "photos"), manifest


def measure(glance, cores, rounds, outdir, log):
    """Glance against vipsthumbnail (one process, and two of one thread each) on the set, the
    three taking turns; medians of max(3, rounds) rounds."""
    folder, manifest = ensure(log)
    files = [os.path.join(folder, e["file"]) for e in manifest]
    weights = {os.path.join(folder, e["file"]): e["width"] * e["height"] for e in manifest}
    tools.warm_page_cache(files)
    plans = {
        "glance": lambda out: tools.glance_generate(glance, folder, os.path.join(out, "store"), cores,
                                                    os.path.join(out, "summary.json")),
        "vips1": lambda out: tools.vips_one_process(files, out, "jpeg"),
        "vips2": lambda out: tools.vips_two_processes(files, out, "jpeg", weights),
    }
    seconds, _, failures = tools.time_in_turn(plans, max(3, rounds), outdir, len(files))
    for name, problems in failures.items():
        if problems:
            raise RuntimeError(f"jpeg mix, {name}: " + "; ".join(problems[:2]))
    rates = {name: len(files) / statistics.median(seconds[name]) for name in plans}
    best = max(("vips1", "vips2"), key=lambda n: rates[n])
    result = {"files": len(files), "megapixels": sum(weights.values()) / 1e6, "seconds": seconds,
              "files_per_s": rates, "best_vips": best, "ratio": rates["glance"] / rates[best]}
    log(f"  jpeg mix ({len(files)} files): Glance {rates['glance']:.2f} files/s, vipsthumbnail "
        f"{rates[best]:.2f} ({best}): {result['ratio']:.2f}x")
    return result


if __name__ == "__main__":
    folder, manifest = ensure()
    print(f"{os.path.relpath(folder)}: {len(manifest)} JPEGs")
    sys.exit(0)
