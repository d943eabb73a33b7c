"""Glance against the anchors: run with `make bench` (or `python3 bench/run.py` after a release build).

    python3 bench/run.py [--rounds N] [--formats jpeg,png,pdf,text] [--no-quality] [--no-extras]
                         [--glance PATH] [--without avx2,sha_ni]

Environment: BENCH_SCALE=1 for the full corpus; BENCH_ROUNDS (default 3); GLANCE (default
.build-static/release/glance, the build `make release` makes, relative to the repository root).

For each format the same files go through every tool, `rounds` times; in each round the order of
the tools is rotated, so that background noise falls on all of them alike, and the median wall
time is reported. Then the extras: 10,000 unchanged documents (no-op re-run, list), single big
documents (time and memory), on-save latency, the desktop cache against the desktop's own thumbnailers
(xdg.py), `glance serve` under load against nginx (serve.py;
BENCH_SERVE_SECONDS per wrk run, default 5), on-disk size per thumbnail. Then quality, then the
targets. See bench/README.md for how to read the output.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import colour
import corpus
import grid
import previews
import terminal
import metrics
import formats as new_formats
import jpegmix
import onsave
import quality
import report
import scaleout
import serve
import tools
import office
import archives
import servestore
import video
import xdg

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
WORK_DIR = os.path.join(BENCH_DIR, "work")
OUT_DIR = os.path.join(WORK_DIR, "out")
RESULTS_DIR = os.path.join(BENCH_DIR, "results")
ROOT = None  # the corpus folder (corpus-small or corpus-full), set by main()
REQUIRED = ("vipsthumbnail", "pdftoppm", "pdftocairo", "djpeg", "cjpeg", "pango-view", tools.CONVERT, tools.GM,
            "/usr/bin/identify", "/usr/bin/time")


def log(message):
    print(message, flush=True)


def relative(path):
    """A path as written to results: relative to the repository root."""
    return os.path.relpath(path, REPO_DIR)


# ---------------------------------------------------------------------------------------------
# One format: every tool, several rounds
# ---------------------------------------------------------------------------------------------


def tool_plan(fmt, files, weights, sizes, glance, cores, text_heads):
    """{name: (label, make(outdir) -> (jobs, parallel))} for the tools that handle this format."""
    def glance_jobs(outdir):
        return tools.glance_generate(glance, os.path.join(ROOT, fmt), os.path.join(outdir, "store"), cores,
                                     os.path.join(outdir, "summary.json"))

    plan = {"glance": (f"glance generate --jobs {cores}", glance_jobs)}
    if fmt in ("jpeg", "png", "pdf", "jxl", "psd", "hdr", "rasters", "bitmaps"):
        plan["vips1"] = ("vipsthumbnail, 1 process", lambda out: tools.vips_one_process(files, out, fmt))
        plan["vips2"] = ("vipsthumbnail, 2 processes x VIPS_CONCURRENCY=1",
                         lambda out: tools.vips_two_processes(files, out, fmt, weights))
    if fmt in ("jpeg", "png"):
        plan["imagemagick"] = (f"ImageMagick convert, per file, {cores} at a time",
                               lambda out: tools.imagemagick(files, out, fmt, cores))
        plan["graphicsmagick"] = (f"GraphicsMagick gm convert, per file, {cores} at a time",
                                  lambda out: tools.graphicsmagick(files, out, fmt, cores))
    if fmt == "jpeg":
        plan["floor"] = (f"floor: djpeg -scale 1/2^k, {cores} at a time",
                         lambda out: tools.djpeg_floor(files, sizes, cores))
    if fmt == "png":
        plan["floor"] = ("floor: zlib inflate of IDAT only, 2 processes", lambda out: tools.png_floor(files, weights))
    if fmt == "font":
        plan["gnome"] = (f"gnome-thumbnail-font --size 1024, per file, {cores} at a time",
                         lambda out: tools.gnome_thumbnail_font(files, out, cores))
    if fmt == "djvu":
        plan["ddjvu"] = (f"ddjvu -size=1024x1024, per file, {cores} at a time", lambda out: tools.ddjvu(files, out, cores))
    if fmt == "ps":
        plan["gs"] = (f"gs -r93 -dLastPage=1, per file, {cores} at a time", lambda out: tools.ghostscript(files, out, cores))
    if fmt == "xps":
        plan["xpstopng"] = (f"xpstopng -r 93, per file, {cores} at a time",
                            lambda out: tools.xpstopng(files, out, cores))
    if fmt == "pdf":
        plan["pdftoppm"] = (f"pdftoppm -scale-to 1024, per file, {cores} at a time",
                            lambda out: tools.pdftoppm(files, out, cores))
    if fmt == "text":
        plan["pango"] = (f"pango-view, first 4 KB, per file, {cores} at a time",
                         lambda out: tools.pango_view(text_heads, out, cores))
    return plan


def text_heads(files):
    """The first 4 KB of each text file (cut at a character boundary), for pango-view."""
    folder = tools.fresh_dir(os.path.join(OUT_DIR, "text-heads"))
    heads = []
    for f in files:
        with open(f, "rb") as src:
            head = src.read(4096).decode("utf-8", errors="ignore").encode("utf-8")
        path = os.path.join(folder, os.path.basename(f))
        with open(path, "wb") as dst:
            dst.write(head)
        heads.append(path)
    return heads


def bench_format(fmt, entries, glance, cores, rounds):
    """Times every tool on the format's folder; returns the result dict for the report."""
    files = [os.path.join(ROOT, fmt, e["file"]) for e in entries]
    sizes = {os.path.join(ROOT, fmt, e["file"]): (e["width"], e["height"]) for e in entries if "width" in e}
    weights = {f: (w * h) for f, (w, h) in sizes.items()} or {
        os.path.join(ROOT, fmt, e["file"]): e["bytes"] for e in entries}
    megapixels = sum(w * h for w, h in sizes.values()) / 1e6 if sizes else None
    heads = text_heads(files) if fmt == "text" else []
    plan = tool_plan(fmt, files, weights, sizes, glance, cores, heads)
    tools.warm_page_cache(files)
    stderr_log = os.path.join(OUT_DIR, f"{fmt}-stderr.log")
    if os.path.exists(stderr_log):
        os.remove(stderr_log)
    runs = {name: entry[1] for name, entry in plan.items()}
    seconds, peaks, failures = tools.time_in_turn(runs, rounds, os.path.join(OUT_DIR, fmt), len(files),
                                                  stderr_path=stderr_log, log=log, label=fmt)
    result = {"files": len(files), "input_megapixels": megapixels, "rounds": rounds, "tools": {},
              "glance_processes": glance_process_peaks(fmt, glance, cores)}
    for name in plan:
        median = statistics.median(seconds[name])
        result["tools"][name] = {
            "label": plan[name][0],
            "seconds": seconds[name],
            "median_seconds": median,
            "files_per_s": len(files) / median,
            "mp_per_s": megapixels / median if megapixels else None,
            "peak_rss_kib": peaks[name],
            "failures": failures[name],
        }
    return result


SMALL_FOLDER_FILES = 18


def measure_small_folder(glance, entries, cores, rounds):
    """`glance generate` over a folder of the text corpus's first 18 files, a fresh store each
    time: the start-up a user meets on a small folder (the process, the sandbox's trial, the
    store, the workers and their fonts) counts, not only the rendering."""
    chosen = sorted(entries, key=lambda e: e["file"])[:SMALL_FOLDER_FILES]
    folder = tools.fresh_dir(os.path.join(WORK_DIR, "small-folder", "documents"))
    for e in chosen:
        shutil.copy(os.path.join(ROOT, "text", e["file"]), folder)
    store = os.path.join(WORK_DIR, "small-folder", "store")
    argv = [glance, "generate", folder, "--store", store, "--jobs", str(cores), "--quiet"]
    seconds = []
    # Two untimed runs first: on a machine that reclaims idle page cache (DAMON), the first start
    # of the 180 MB glance binary after the text corpus read parts of it from disk again. Then
    # runs of a tenth of a second, so many of them: a median of 21.
    for run in range(2 + max(21, 7 * rounds)):
        shutil.rmtree(store, ignore_errors=True)
        timing = tools.run_jobs([tools.Job(argv)])
        if timing.failures:
            raise RuntimeError("small folder: " + "; ".join(timing.failures))
        if run >= 2:
            seconds.append(timing.seconds)
    median = statistics.median(seconds)
    log(f"  text, {len(chosen)} small files in a folder of their own: median {median * 1000:.0f} ms")
    return {"files": len(chosen), "bytes": sum(e["bytes"] for e in chosen), "seconds": seconds,
            "median_seconds": median, "documents_per_s": len(chosen) / median}


def glance_process_peaks(fmt, glance, cores):
    """One more, untimed, glance run on the folder, watching each process's own peak (VmHWM)."""
    outdir = tools.fresh_dir(os.path.join(OUT_DIR, fmt, "glance-watched"))
    jobs, _ = tools.glance_generate(glance, os.path.join(ROOT, fmt), os.path.join(outdir, "store"), cores,
                                    os.path.join(outdir, "summary.json"))
    code, coordinator, workers = tools.run_watching_tree(jobs[0])
    return {"exit": code, "coordinator_peak_kib": coordinator, "worker_peak_kib": max(workers.values(), default=0),
            "workers": len(workers)}


# ---------------------------------------------------------------------------------------------
# Quality and size on disk, from the last round's outputs
# ---------------------------------------------------------------------------------------------


def disk_bytes(folder):
    """Bytes the files under folder take on disk (allocated blocks, like du)."""
    total = 0
    for dirpath, _, names in os.walk(folder):
        for n in names:
            total += os.lstat(os.path.join(dirpath, n)).st_blocks * 512
    return total


def glance_listing(glance, container, store):
    out = subprocess.run([glance, "list", container, "--store", store, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def export_glance_thumbnails(glance, fmt, entries, outdir):
    """Writes every stored thumbnail of the last glance run to outdir/export; returns {source: file}."""
    container, store = os.path.join(ROOT, fmt), os.path.join(outdir, "store")
    export_dir = tools.fresh_dir(os.path.join(outdir, "export"))
    formats = {row["path"]: row["thumbnails"]["1024x1024"]["format"]
               for row in glance_listing(glance, container, store) if row.get("thumbnails")}
    exported = {}
    for e in entries:
        if e["file"] not in formats:
            continue
        source = os.path.join(container, e["file"])
        target = os.path.join(export_dir, tools.stem(e["file"]) + (".jpg" if formats[e["file"]] == "jpeg" else ".png"))
        subprocess.run([glance, "export", container, source, "--store", store, "-o", target], check=True,
                       stdout=subprocess.DEVNULL)
        exported[source] = target
    return exported


def tool_thumbnails(fmt, name, entries):
    """{source: thumbnail file} for a tool's last output folder (by file stem)."""
    outdir = os.path.join(OUT_DIR, fmt, name)
    by_stem = {tools.stem(n): os.path.join(outdir, n) for n in os.listdir(outdir)}
    found = {}
    for e in entries:
        thumb = by_stem.get(tools.stem(e["file"]))
        if thumb:
            found[os.path.join(ROOT, fmt, e["file"])] = thumb
    return found


def measure_quality(fmt, entries, result, glance, references):
    """Adds average PSNR/SSIM to each tool that made thumbnails, and the on-disk sizes."""
    thumbnails = {"glance": export_glance_thumbnails(glance, fmt, entries, os.path.join(OUT_DIR, fmt, "glance"))}
    for name in ("vips1", "imagemagick", "graphicsmagick", "pdftoppm"):
        if name in result["tools"]:
            thumbnails[name] = tool_thumbnails(fmt, name, entries)
    for name, mapping in thumbnails.items():
        pairs = [(thumb, source) for source, thumb in mapping.items()]
        result["tools"][name]["quality"] = quality.average_scores(pairs, fmt, references)
        log(f"  {fmt} quality {name}: " + json.dumps(result["tools"][name]["quality"]))


def measure_resampling_only(fmt, entries, result, glance, references):
    """Quality of PNG output from JPEG sources (untimed): the resampler without the JPEG encoder.

    Glance stores JPEG (quality 85) for opaque photos and vipsthumbnail is run with Q=85 too, so
    the table's JPEG scores include the encoder's loss; these rows show the resampling alone.
    """
    files = [os.path.join(ROOT, fmt, e["file"]) for e in entries]
    glance_dir = tools.fresh_dir(os.path.join(OUT_DIR, fmt, "resample-glance"))
    vips_dir = tools.fresh_dir(os.path.join(OUT_DIR, fmt, "resample-vips"))
    glance_pairs = []
    for f in files:
        out = os.path.join(glance_dir, tools.stem(f) + ".png")
        subprocess.run([glance, "thumbnail", f, "-o", out], check=True, stdout=subprocess.DEVNULL)
        glance_pairs.append((out, f))
    subprocess.run(["vipsthumbnail", "-s", "1024", "-o", os.path.join(vips_dir, "%s.png")] + files, check=True)
    vips_pairs = [(os.path.join(vips_dir, tools.stem(f) + ".png"), f) for f in files]
    result["resampling_only"] = {
        "glance": {"label": "glance thumbnail -o X.png (untimed)",
                   "quality": quality.average_scores(glance_pairs, fmt, references)},
        "vips": {"label": "vipsthumbnail -o %s.png (untimed)",
                 "quality": quality.average_scores(vips_pairs, fmt, references)},
    }
    for name, row in result["resampling_only"].items():
        log(f"  {fmt} quality, PNG output, {name}: " + json.dumps(row["quality"]))


def measure_sidecar(fmt, result, glance):
    """Store folder size / thumbnails vs vipsthumbnail's output files / thumbnails."""
    glance_store = os.path.join(OUT_DIR, fmt, "glance", "store")
    count = result["files"]
    listing = glance_listing(glance, os.path.join(ROOT, fmt), glance_store)
    encoded = sum(t["bytes"] for row in listing for t in (row.get("thumbnails") or {}).values())
    sidecar = {"glance_bytes_per_thumbnail": disk_bytes(glance_store) / count,
               "glance_encoded_bytes_per_thumbnail": encoded / count}
    vips_dir = os.path.join(OUT_DIR, fmt, "vips1")
    if os.path.isdir(vips_dir) and os.listdir(vips_dir):
        sidecar["vips_bytes_per_thumbnail"] = disk_bytes(vips_dir) / len(os.listdir(vips_dir))
    result["sidecar"] = sidecar


# ---------------------------------------------------------------------------------------------
# Extras: 10,000 documents, single big documents
# ---------------------------------------------------------------------------------------------


def glance_summary(glance, container, store, cores):
    """Runs one generate, returns (Timing, summary dict)."""
    summary_path = os.path.join(WORK_DIR, "many", "summary.json")
    jobs, _ = tools.glance_generate(glance, container, store, cores, summary_path)
    timing = tools.run_jobs(jobs)
    with open(summary_path) as f:
        return timing, json.load(f)


def measure_many(glance, cores, rounds):
    """Generate once over 10,000 tiny PNGs (cached store), then time no-op re-runs and list."""
    docs = corpus.ensure_many()
    store = os.path.join(WORK_DIR, "many", "store")
    log("  10,000 documents: warm-up generate (the store is kept: renders only what is not fresh) ...")
    first, summary = glance_summary(glance, docs, store, cores)
    many = {"documents": corpus.MANY_COUNT, "warmup_rendered": summary.get("rendered"),
            "warmup_seconds": first.seconds}
    noop, rendered, noop_peak = [], 0, 0
    for _ in range(rounds):
        timing, summary = glance_summary(glance, docs, store, cores)
        noop.append(timing.seconds)
        noop_peak = max(noop_peak, timing.peak_rss_kib)
        rendered = max(rendered, summary.get("rendered", 0) + summary.get("failed", 0))
    listing, list_peak = [], 0
    for _ in range(rounds):
        timing = tools.run_jobs([tools.Job([glance, "list", docs, "--store", store, "--json"])])
        listing.append(timing.seconds)
        list_peak = max(list_peak, timing.peak_rss_kib)
    many.update(noop_seconds=statistics.median(noop), noop_all=noop, noop_rendered=rendered,
                noop_peak_rss_kib=noop_peak, list_seconds=statistics.median(listing), list_all=listing,
                list_peak_rss_kib=list_peak)
    return many


def time_thumbnail(glance, source, output):
    """One `glance thumbnail` under /usr/bin/time: (seconds, peak RSS KiB)."""
    time_file = output + ".time"
    subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", time_file, glance, "thumbnail", source, "-o", output],
                   check=True, stdout=subprocess.DEVNULL)
    with open(time_file) as f:
        elapsed, peak = f.read().split()[-2:]
    return float(elapsed), int(peak)


def worker_peak(glance, source, folder):
    """Peak RSS (KiB) of the worker, and of the coordinator, of `generate --jobs 1` over a container
    holding only source (a hard link), from each process's VmHWM."""
    container = tools.fresh_dir(os.path.join(folder, "container"))
    target = os.path.join(container, os.path.basename(source))
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
    summary_path = os.path.join(folder, "summary.json")
    jobs, _ = tools.glance_generate(glance, container, tools.fresh_dir(os.path.join(folder, "store")), 1,
                                    summary_path)
    _, coordinator, workers = tools.run_watching_tree(jobs[0])
    with open(summary_path) as f:
        summary = json.load(f)
    if summary.get("rendered") != 1:
        raise RuntimeError(f"{relative(source)}: generate rendered {summary.get('rendered')} of 1")
    return max(workers.values(), default=0), coordinator


def measure_singles(glance, manifest, rounds):
    """Time and memory of single big documents, plus a tiny PNG as the baseline."""
    def first(fmt, **match):
        for e in manifest:
            if e["format"] == fmt and all(e.get(k) == v for k, v in match.items()):
                return os.path.join(ROOT, fmt, e["file"])
        return None

    extras = os.path.join(WORK_DIR, "extras")
    cases = [
        ("jpeg-6000x4000", "6000x4000 JPEG", first("jpeg", width=6000, height=4000), ".jpg"),
        ("png-4000x3000", "4000x3000 PNG (photo)", first("png", kind="photo", width=4000, height=3000), ".png"),
        ("png-interlaced", "4000x3000 PNG (Adam7)", first("png", kind="interlaced"), ".png"),
        ("png-rows-1000", "4000x1000 PNG (photo)", os.path.join(extras, "rows-1000.png"), ".png"),
        ("png-rows-4000", "4000x4000 PNG (photo)", os.path.join(extras, "rows-4000.png"), ".png"),
        ("baseline", "16x12 PNG (baseline)", os.path.join(WORK_DIR, "many", "docs", "d000", "tiny-00000.png"), ".png"),
    ]
    singles = []
    for key, label, source, ext in cases:
        if not source or not os.path.exists(source):
            continue
        folder = tools.fresh_dir(os.path.join(OUT_DIR, "single", key))
        runs = [time_thumbnail(glance, source, os.path.join(folder, "thumbnail" + ext)) for _ in range(rounds)]
        peaks = [worker_peak(glance, source, folder) for _ in range(rounds)]
        singles.append({"key": key, "label": label, "file": relative(source),
                        "thumbnail_seconds": statistics.median(r[0] for r in runs),
                        "thumbnail_peak_rss_kib": max(r[1] for r in runs),
                        "worker_peak_rss_kib": max(p[0] for p in peaks),
                        "coordinator_peak_rss_kib": max(p[1] for p in peaks)})
    return singles


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


def tool_versions(glance):
    def first_line(argv):
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
            return (done.stdout or done.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return "?"

    return {"glance": first_line([glance, "--version"]), "vips": first_line(["vips", "--version"]),
            "imagemagick": first_line([tools.CONVERT, "-version"]), "graphicsmagick": first_line([tools.GM, "version"]),
            "pdftoppm": first_line(["pdftoppm", "-v"]), "djpeg": first_line(["djpeg", "-version"]),
            "pango-view": first_line(["pango-view", "--version"]), "wrk": first_line(["wrk", "-v"]),
            "nginx": first_line(["nginx", "-v"])}


# The CPU features Glance's own code chooses between at run time (the scaler's AVX2 and FMA
# passes, SHA-256 on the SHA extensions or else libcrypto), and AVX-512, which libjpeg-turbo,
# zlib and vips may use: a run on another machine shows which paths it took.
CPU_FLAGS = ("sse4_1", "avx2", "fma", "avx512f", "sha_ni")


def machine_facts():
    """The processor, the features above it has, and the kernel: what differs between machines."""
    model, flags = "?", set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and model == "?":
                    model = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return {"cpu": model, "cpu_flags": [f for f in CPU_FLAGS if f in flags],
            "cpu_flags_missing": [f for f in CPU_FLAGS if flags and f not in flags],
            "kernel": os.uname().release}


def describe_machine(facts):
    missing = ", ".join(facts["cpu_flags_missing"]) or "none"
    line = (f"Machine: {facts['cpu']}; has {' '.join(facts['cpu_flags']) or '?'}; lacks {missing}; "
            f"kernel {facts['kernel']}")
    if facts.get("emulated_without"):
        line += (f"; run as if without {' '.join(facts['emulated_without'])} "
                 f"({' '.join(k + '=' + v for k, v in facts['simd_environment'].items())})")
    return line


# What --without turns off, and how: Glance's own code through GLANCE_SIMD_DISABLE, libjpeg-turbo
# (in every tool) through JSIMD_FORCESSE2, libcrypto (Glance's digest where it lacks the SHA
# extensions) through OPENSSL_ia32cap's mask of CPUID leaf 7's EBX bits. vips's own vector code
# (highway) has no such switch and keeps AVX2: a run without avx2 is, if anything, unfair to Glance.
WITHOUT = {"avx2": {"jsimd": True, "openssl_leaf7_bits": 1 << 5},
           "sha_ni": {"jsimd": False, "openssl_leaf7_bits": 1 << 29}}


def emulate_without(names):
    """Sets the environment every tool inherits so that this machine runs as one without `names`."""
    unknown = [n for n in names if n not in WITHOUT]
    if unknown:
        sys.exit(f"bench: --without knows {', '.join(WITHOUT)}, not {', '.join(unknown)}")
    variables = {"GLANCE_SIMD_DISABLE": ",".join(names)}
    if any(WITHOUT[n]["jsimd"] for n in names):
        variables["JSIMD_FORCESSE2"] = "1"
    bits = sum(WITHOUT[n]["openssl_leaf7_bits"] for n in names)
    variables["OPENSSL_ia32cap"] = f":~0x{bits:x}"
    os.environ.update(variables)
    return variables



def measure_grid(glance):
    """bench/grid.py under Debian's python3 (Selenium is installed for it only); its result."""
    python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        done = subprocess.run([python, os.path.join(BENCH_DIR, "grid.py"), "--glance", glance, "--json", out.name],
                              capture_output=True, text=True)
        for line in done.stdout.splitlines():
            if line.startswith("  grid:"):
                log(line)
        try:
            with open(out.name) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {"problems": [f"not measured: grid.py exited {done.returncode}: {done.stderr.strip()[-200:]}"]}

def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "3")))
    parser.add_argument("--formats", default=",".join(corpus.FORMATS))
    parser.add_argument("--no-quality", action="store_true", help="skip PSNR/SSIM")
    parser.add_argument("--no-extras", action="store_true",
                        help="skip the 10,000-document, single-file, on-save and serve runs")
    parser.add_argument("--glance", default=os.environ.get("GLANCE", ".build-static/release/glance"),
                        help="the glance executable, relative to the repository root or absolute")
    parser.add_argument("--without", default="",
                        help="run as a machine without these CPU extensions: avx2, sha_ni (comma-separated)")
    args = parser.parse_args()
    without = [n for n in args.without.split(",") if n]
    simd_environment = emulate_without(without) if without else {}
    glance = os.path.abspath(os.path.join(REPO_DIR, args.glance))
    missing = [t for t in (glance,) + REQUIRED if not shutil.which(t)]
    if missing:
        sys.exit("bench: missing " + ", ".join(missing) + " (run `make bench`, which installs and builds them)")
    formats = [f for f in args.formats.split(",") if f]
    cores = os.cpu_count()
    load_before = os.getloadavg()
    started = time.time()

    ROOT, manifest = corpus.ensure_corpus(log)
    os.makedirs(OUT_DIR, exist_ok=True)
    references = quality.References(os.path.join(WORK_DIR, "refs", os.path.basename(ROOT) + "-"
                                                  + corpus.generator_hash(corpus.scale_is_full())))
    machine = machine_facts()
    if without:
        machine["emulated_without"] = without
        machine["simd_environment"] = simd_environment
    log(f"Corpus {relative(ROOT)}; {cores} cores; load {load_before[0]:.2f} {load_before[1]:.2f} "
        f"{load_before[2]:.2f}; {args.rounds} rounds")
    log(describe_machine(machine))
    results = {}
    for fmt in formats:
        entries = [e for e in manifest if e["format"] == fmt]
        log(f"{fmt}: {len(entries)} files")
        results[fmt] = bench_format(fmt, entries, glance, cores, args.rounds)
        try:
            measure_sidecar(fmt, results[fmt], glance)
            if fmt == "text":
                results[fmt]["small_folder"] = measure_small_folder(glance, entries, cores, args.rounds)
            if not args.no_quality and fmt != "text":
                measure_quality(fmt, entries, results[fmt], glance, references)
                if fmt == "jpeg":
                    measure_resampling_only(fmt, entries, results[fmt], glance, references)
            if fmt == "jpeg":
                results[fmt]["mix"] = jpegmix.measure(glance, cores, args.rounds,
                                                      os.path.join(OUT_DIR, "jpeg-mix"), log)
        except (subprocess.CalledProcessError, OSError, ValueError, RuntimeError) as error:
            log(f"  {fmt}: size/quality not measured: {error}")
    extras = {}
    if not args.no_quality:
        log("colour: tagged sources against ImageMagick's conversion to sRGB")
        try:
            extras["colour"] = colour.measure_colour(glance, os.path.join(REPO_DIR, "TestAssets"), log)
        except (subprocess.CalledProcessError, OSError, ValueError) as error:
            log(f"  colour not measured: {error}")
    if not args.no_extras:
        extras["many"] = measure_many(glance, cores, args.rounds)
        extras["single"] = measure_singles(glance, manifest, args.rounds)
        log("on-save: saves during a 10,000-document catch-up, and hook round trips")
        extras["onsave"] = onsave.measure_onsave(glance, ROOT, manifest, corpus.ensure_many(), WORK_DIR, log)
        log("serve: glance serve and nginx under wrk, and the pages of 10,000 documents")
        extras["serve"] = serve.measure_serve(glance, ROOT, corpus.ensure_many(),
                                              os.path.join(WORK_DIR, "many", "store"), WORK_DIR, cores, log)
        log("grid: the first screen of the grid in headless Chromium over an emulated 20 Mbit/s link")
        extras["grid"] = measure_grid(glance)
        log("previews: pages drawn larger on demand, cold and warm, and a storm of them during a batch")
        try:
            extras["previews"] = previews.measure(glance, ROOT, log)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  previews not measured: {error}")
        log("metrics: thumbnail GETs and a catch-up with metrics and without")
        try:
            extras["metrics"] = metrics.measure(glance, ROOT, log)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  metrics not measured: {error}")
        log("formats: WebP, HEIC, AVIF, TIFF, GIF and SVG against vipsthumbnail")
        try:
            extras["formats"] = new_formats.measure(glance, ROOT, log, cores)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  formats not measured: {error}")
        log("video: clips of 1080p and 2160p against ffmpegthumbnailer and ffmpeg -ss")
        try:
            extras["video"] = video.measure(glance, ROOT, log, cores)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  video not measured: {error}")
        log("office: 40 documents against soffice --convert-to png per file and one --convert-to pdf")
        try:
            extras["office"] = office.measure(glance, ROOT, log, cores)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  office not measured: {error}")
        log("archives: raw photos against simple_dcraw -e + vipsthumbnail, books and comics against zipfile + vipsthumbnail")
        try:
            extras["archives"] = archives.measure(glance, ROOT, log, cores)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  archives not measured: {error}")
        log("terminal: glance list --preview, a page of 120 documents in each protocol")
        try:
            extras["terminal"] = terminal.measure(glance, ROOT, log)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  terminal not measured: {error}")
        log("xdg: filling the desktop's xx-large cache, glance against one thumbnailer process a file")
        extras["xdg"] = xdg.measure_xdg(glance, ROOT, WORK_DIR, cores, args.rounds, log)
        log("scale-out serving: thumbnail GETs from PostgreSQL with the bytes in the rows and in files")
        try:
            extras["servestore"] = servestore.measure(glance, ROOT, WORK_DIR, cores, log)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  scale-out serving not measured: {error}")
        log("scale-out: the PostgreSQL job queue with 1, 2, 4 and 8 worker hosts in CPU cgroups, and a 10,000-document list")
        try:
            extras["scaleout"] = scaleout.measure_scaleout(glance, ROOT, corpus.ensure_many(), WORK_DIR,
                                                           args.rounds, log)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            log(f"  scale-out not measured: {error}")
    load_after = os.getloadavg()

    lines = [""]
    for fmt in formats:
        lines += report.format_table(fmt, results[fmt]) + [""]
    lines += report.format_extras(extras) + [""]
    targets = report.evaluate_targets(results, extras)
    lines += report.format_targets(targets)
    lines.append(f"Load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min); {cores} cores; "
                 f"{time.time() - started:.0f} s in all")
    lines.append(describe_machine(machine))
    payload = {
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "scale": "full" if corpus.scale_is_full() else "small",
        "corpus": relative(ROOT),
        "rounds": args.rounds,
        "cores": cores,
        "machine": machine,
        "loadavg_before": list(load_before),
        "loadavg_after": list(load_after),
        "glance": relative(glance),
        "versions": tool_versions(glance),
        "formats": results,
        "extras": extras,
        "targets": [{"target": t[0], "measured": t[1], "ratio": t[2], "pass": t[3]} for t in targets],
    }
    path = report.write_json(RESULTS_DIR, payload)
    lines.append(f"Results: {relative(path)}")
    log("\n".join(lines))


if __name__ == "__main__":
    main()
