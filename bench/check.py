"""The bench that fails: Glance's rates against the anchors and against a baseline renderer,
compared with the thresholds kept in bench/thresholds.json. Run with `make bench-check`.

    python3 bench/check.py [--glance PATH] [--baseline-renderer PATH] [--rounds N] [--formats jpeg,png,pdf,text,jxl,psd,djvu,ps,xps,font,hdr,rasters,bitmaps]
                           [--kinds video,office,raw,books] [--no-serve] [--no-memory] [--json FILE]

Each measure is a ratio taken round by round, in one run, the tools' order rotating between
rounds (tools.time_in_turn), and the median of the rounds' ratios is compared with its threshold
(a format's median under its threshold is measured again in as many fresh rounds, and the median
of all of them decides; a family's, once more, and the mean of the two decides):

  format rate / anchor    `glance generate` of the small corpus's folder against the anchor's
                          time on the same files: vipsthumbnail (the faster of one process and two)
                          for JPEG, PNG, PDF, JPEG XL, Photoshop and the long tail's rasters (PCX,
                          SGI, Sun raster and DDS through its ImageMagick loader, FITS through
                          cfitsio) and the simple bitmaps (BMP and Targa through its ImageMagick
                          loader, binary PPM through its own),
                          pango-view over each text's first 4 KB for text, and the format's own
                          library's tool for DjVu (ddjvu), PostScript (gs) and XPS (xpstopng), GNOME's
                          gnome-thumbnail-font for fonts
  format rate / baseline  the same `glance generate` with the baseline's `glance-renderer` beside
                          the same `glance` (a copy in bench/work/check/baseline/): what the
                          renderer's decoding, scaling, sizes and encoding cost against the commit
                          named in the thresholds (not for JPEG XL, which it did not read)
  format sizes            `glance generate` as above (the 1024 and the smaller sizes, 512 and 256)
                          against the same glance with `--sizes none` (the 1024 alone), in the same
                          rounds: the share of the batch's rate the grid's sizes leave (JPEG, PNG,
                          PDF and text)
  thumbnail GETs / floor  `glance serve` against the floor (bench/floor: a bare Hummingbird
                          application of the same version answering the same bytes from memory)
  thumbnail GETs / nginx  and against nginx serving the same bytes, plain and over TLS (`-tls`),
                          wrk in turns; and glance's p99 less the floor's, in milliseconds
  kind rate / its anchor  the families measured by their own extras, once each (they time their
                          tools in turn themselves, on corpora they make in bench/work/): videos
                          against ffmpegthumbnailer and the ffmpeg command line (bench/video.py),
                          office documents against soffice per file and one soffice + pdftoppm
                          (bench/office.py), camera raw against simple_dcraw -e + vipsthumbnail and
                          e-books and comics against zipfile + vipsthumbnail (bench/archives.py)
  renderer memory         a renderer's minor page faults drawing a large interlaced PNG again,
                          and its resident MiB after three seconds idle (bench/memory.py): not
                          ratios but amounts, each held under its own maximum

Exit 1 when a median is under its threshold (each such line starts with `FAIL`), 2 when something
could not be measured (never a silent pass).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import archives
import corpus
import memory
import office
import video
import serve
import tools

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
WORK_DIR = os.path.join(BENCH_DIR, "work", "check")
THRESHOLDS = os.path.join(BENCH_DIR, "thresholds.json")
# The formats the baseline's renderer reads: the others are measured against their anchors only.
BASELINE_FORMATS = ("jpeg", "png", "pdf", "text")
# The formats whose batch is also timed with the 1024 alone (`--sizes none`), for what the smaller
# sizes cost.
SIZES_FORMATS = ("jpeg", "png", "pdf", "text")
GLANCE_RUNS = ("glance", "baseline", "glance-1024")
# The formats libvips does not read, against their own library's tool, per file, a process a core.
LIBRARY_TOOLS = {"djvu": ("ddjvu", tools.ddjvu), "ps": ("gs", tools.ghostscript), "xps": ("xpstopng", tools.xpstopng),
                 "font": ("gnome-thumbnail-font", tools.gnome_thumbnail_font)}


def log(message):
    print(message, flush=True)


def baseline_glance(glance, renderer):
    """A folder holding a copy of `glance` with the baseline's renderer beside it (glance starts
    the `glance-renderer` next to its own executable); its glance's path."""
    folder = tools.fresh_dir(os.path.join(WORK_DIR, "baseline"))
    shutil.copy2(glance, os.path.join(folder, "glance"))
    shutil.copy2(renderer, os.path.join(folder, "glance-renderer"))
    return os.path.join(folder, "glance")


def format_plan(fmt, files, glance, baseline, cores):
    """The tools of one format's rounds: {name: callable(outdir) -> (jobs, parallel)}."""
    container = os.path.dirname(files[0])

    def generate(binary, extra=()):
        def plan(outdir):
            return tools.glance_generate(binary, container, os.path.join(outdir, "store"), cores,
                                         os.path.join(outdir, "summary.json"), extra)
        return plan

    plan = {"glance": generate(glance)}
    if baseline:
        plan["baseline"] = generate(baseline)
    if fmt in SIZES_FORMATS:
        plan["glance-1024"] = generate(glance, ["--sizes", "none"])
    if fmt == "text":
        heads = text_heads(files)
        plan["pango-view"] = lambda outdir: tools.pango_view(heads, outdir, cores)
    elif fmt in LIBRARY_TOOLS:
        name, tool = LIBRARY_TOOLS[fmt]
        plan[name] = lambda outdir: tool(files, outdir, cores)
    else:
        weights = {f: os.path.getsize(f) for f in files}
        plan["vips-1"] = lambda outdir: tools.vips_one_process(files, outdir, fmt)
        plan["vips-2"] = lambda outdir: tools.vips_two_processes(files, outdir, fmt, weights)
    return plan


def text_heads(files):
    """The first 4 KB of each text, for pango-view (as bench/run.py gives it)."""
    folder = tools.fresh_dir(os.path.join(WORK_DIR, "text-heads"))
    heads = []
    for path in files:
        head = os.path.join(folder, os.path.basename(path))
        with open(path, "rb") as source, open(head, "wb") as target:
            target.write(source.read(4096))
        heads.append(head)
    return heads


def measure_format(fmt, root, manifest, glance, baseline, cores, rounds, label=None):
    """One format's per-round ratios: {"anchor": [x, ...], "baseline": [...], "sizes": [...]}
    (rates: above 1 is Glance faster), the rounds' seconds, and what could not be measured."""
    files = sorted(os.path.join(root, fmt, e["file"]) for e in manifest if e["format"] == fmt)
    tools.warm_page_cache(files)
    baseline = baseline if fmt in BASELINE_FORMATS else None
    plan = format_plan(fmt, files, glance, baseline, cores)
    # One round untimed: the first run of each tool pays for loading its libraries.
    tools.time_in_turn(plan, 1, os.path.join(WORK_DIR, "out", fmt), len(files))
    seconds, _, failures = tools.time_in_turn(plan, rounds, os.path.join(WORK_DIR, "out", fmt), len(files),
                                              log=log, label=label or fmt)
    problems = [f"{fmt}: {name}: {'; '.join(found)}" for name, found in failures.items() if found]
    anchors = [name for name in plan if name not in GLANCE_RUNS]
    anchor = [min(seconds[name][r] for name in anchors) for r in range(rounds)]
    ratios = {"anchor": [a / g for a, g in zip(anchor, seconds["glance"])]}
    if baseline:
        ratios["baseline"] = [b / g for b, g in zip(seconds["baseline"], seconds["glance"])]
    if "glance-1024" in plan:
        ratios["sizes"] = [a / g for a, g in zip(seconds["glance-1024"], seconds["glance"])]
    return ratios, seconds, problems


def measure_format_confirmed(fmt, root, manifest, glance, baseline, cores, rounds, rules):
    """The medians of one format's ratios, {"anchor": x, ...}, and what could not be measured. A
    median under its threshold is measured again in as many fresh rounds, and the median of all
    the rounds is the verdict: a shared machine's busy minute can pull seven rounds under (CI on
    2026-12-07: PNG 1.229 against 1.25, typical 1.49, with every other rate 0.82-0.87 of its
    typical in the same run and no renderer change), while a real loss of 20% keeps the median
    of fourteen rounds under its threshold just as it kept seven's."""
    ratios, _, problems = measure_format(fmt, root, manifest, glance, baseline, cores, rounds)
    under = [kind for kind, values in ratios.items()
             if not meets(statistics.median(values), rules.get(f"{fmt}/{kind}"))]
    if under and not problems:
        log(f"  {fmt}: {', '.join(under)} under the threshold after {rounds} rounds: {rounds} more rounds")
        more, _, found = measure_format(fmt, root, manifest, glance, baseline, cores, rounds, f"{fmt} again")
        problems += found
        for kind, values in more.items():
            ratios[kind] = ratios.get(kind, []) + values
    return {kind: statistics.median(values) for kind, values in ratios.items()}, problems


def measure_serve(glance, floor, root, cores, rounds, seconds):
    """Thumbnail GETs per second: glance serve against the floor (a bare Hummingbird application
    answering the same bytes from memory) and nginx, plain and over TLS, wrk in turns; the medians
    of the rounds' ratios, and of glance's p99 less the floor's, in milliseconds."""
    folder = os.path.join(WORK_DIR, "serve")
    container, count = serve.make_container(root, folder)
    store = tools.fresh_dir(os.path.join(folder, "store"))
    static = tools.fresh_dir(os.path.join(folder, "static"))
    generated = subprocess.run([glance, "generate", container, "--store", store, "--jobs", str(cores), "--json",
                                "--quiet"], capture_output=True, text=True)
    if json.loads(generated.stdout or "{}").get("rendered") != count:
        raise RuntimeError(f"generate for the serve check failed (exit {generated.returncode})")
    measured = {}
    with tempfile.TemporaryDirectory(prefix="bench-check-") as temp:
        tls = serve.make_certificate(temp)
        for over_tls in (False, True):
            servers = []
            try:
                extra = ["--tls-cert", tls[0], "--tls-key", tls[1]] if over_tls else []
                name = "glance-tls" if over_tls else "glance"
                glance_server, glance_url, _ = serve.start_glance(
                    glance, container, store, cores, os.path.join(folder, name + ".log"), extra=extra)
                servers.append(glance_server)
                urls = export_thumbnails(glance, glance_url, container, store, static, tls[0] if over_tls else None)
                floor_server, floor_url = serve.start_floor(
                    floor, static, os.path.join(folder, name + "-floor.log"), tls=tls if over_tls else None)
                servers.append(floor_server)
                nginx_server, nginx_url = serve.start_nginx(temp, static, cores, tls=tls if over_tls else None)
                servers.append(nginx_server)
                script = os.path.join(temp, "get.lua")
                with open(script, "w") as f:
                    f.write(serve.wrk_script(urls))
                rates, p99 = wrk_in_turns(
                    [("glance", glance_url), ("floor", floor_url), ("nginx", nginx_url)], script, rounds, seconds,
                    cores, os.path.join(folder, "wrk.log"), "over TLS" if over_tls else "plain")
            finally:
                for server in servers:
                    serve.stop(server)
            suffix = "-tls" if over_tls else ""
            for other in ("floor", "nginx"):
                measured[other + suffix] = statistics.median(g / o for g, o in zip(rates["glance"], rates[other]))
            measured["p99-ms-over-floor" + suffix] = statistics.median(
                g - o for g, o in zip(p99["glance"], p99["floor"]))
    return measured


def export_thumbnails(glance, glance_url, container, store, static, cafile):
    """Writes every thumbnail glance serves below `static` (for nginx and the floor); returns their URLs."""
    status, _, body, _ = serve.fetch(glance_url, "/api/items", cafile=cafile)
    if status != 200:
        raise RuntimeError(f"GET /api/items: status {status}")
    urls = []
    for item in json.loads(body):
        status, headers, _, _ = serve.fetch(glance_url, serve.thumbnail_url(item["path"]), method="HEAD",
                                            cafile=cafile)
        digest, _ = serve.digest_of(item, headers.get("etag"))
        if status != 200 or not digest:
            raise RuntimeError(f"HEAD {item['path']}: status {status}")
        exported = os.path.join(static, "thumbnails", item["path"])
        if not os.path.exists(exported):
            os.makedirs(os.path.dirname(exported), exist_ok=True)
            subprocess.run([glance, "export", container, item["path"], "--store", store, "-o", exported],
                           check=True, stdout=subprocess.DEVNULL)
        urls.append(serve.thumbnail_url(item["path"], digest))
    return urls


def wrk_in_turns(servers, script, rounds, seconds, cores, wrk_log, label):
    """Requests per second and p99 of each of `servers` ((name, URL)), one round untimed to warm
    them up then `rounds`, the order turning each round."""
    rates = {name: [] for name, _ in servers}
    p99 = {name: [] for name, _ in servers}
    for r in range(rounds + 1):
        for name, url in servers[r % len(servers):] + servers[:r % len(servers)]:
            run = serve.run_wrk(url, script, seconds, serve.CONNECTIONS, max(1, cores), wrk_log)
            errors = {k: v for k, v in run["errors"].items() if v}
            if errors:
                raise RuntimeError(f"{name} {label}: wrk errors {errors}")
            if r > 0:  # the first round warms them up
                rates[name].append(run["requests_per_s"])
                p99[name].append(run["p99_ms"])
        if r > 0:
            log(f"  serve {label} round {r}/{rounds}: "
                + ", ".join(f"{name} {rates[name][-1]:.0f}/s (p99 {p99[name][-1]:.1f} ms)" for name, _ in servers))
    return rates, p99


# The measures each family's extra gives: {measure: the extra's key}.
KIND_MEASURES = {
    "video": {"video/ffmpegthumbnailer": "versus_thumbnailer", "video/ffmpeg": "versus_ffmpeg"},
    "office": {"office/soffice-png": "versus_per_file", "office/soffice-pdf": "versus_one_call"},
    "raw": {"raw/anchor": "ratio"},
    "books": {"books/anchor": "ratio"},
}


def measure_kinds(kinds, glance, root, cores):
    """The families' ratios from their own extras: ({key: ratio}, [problems])."""
    found = {}
    if "video" in kinds:
        found["video"] = video.measure(glance, root, log, cores)
    if "office" in kinds:
        found["office"] = office.measure(glance, root, log, cores)
    if "raw" in kinds or "books" in kinds:
        # One extra for both: camera raw and e-books and comics.
        both = archives.measure(glance, root, log, cores) or {}
        found.update({kind: both.get(kind) for kind in ("raw", "books")})
    measured, problems = {}, []
    for kind in [k for k in KIND_MEASURES if k in kinds]:
        part = found.get(kind)
        if not part or part.get("problems"):
            problems.append(f"{kind}: {(part or {}).get('problems') or 'not measured'}")
            continue
        for measure, key in KIND_MEASURES[kind].items():
            measured[measure] = part[key]
    return measured, problems


def meets(value, rule):
    """Whether a measure meets its threshold's rule (a measure with no rule always does)."""
    if rule is None:
        return True
    return value >= rule["min"] if "min" in rule else value <= rule["max"]


def compare(measured, thresholds):
    """The lines of the verdict, and whether every measure met its threshold."""
    lines, passed = [], True
    for key, value in sorted(measured.items()):
        rule = thresholds.get(key)
        if rule is None:
            lines.append(f"     {key}: {value:.3f} (no threshold)")
            continue
        ok = meets(value, rule)
        bound = f">= {rule['min']}" if "min" in rule else f"<= {rule['max']}"
        passed &= ok
        lines.append(f"{'ok  ' if ok else 'FAIL'} {key}: {value:.3f} (threshold {bound}; typical {rule['typical']})")
    return lines, passed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glance", default=os.environ.get("GLANCE", ".build-static/release/glance"))
    parser.add_argument("--baseline-renderer", default=os.environ.get("BASELINE_RENDERER"),
                        help="the glance-renderer of the commit the thresholds name")
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_CHECK_ROUNDS", "7")))
    parser.add_argument("--formats", default="jpeg,png,pdf,text,jxl,psd,djvu,ps,xps,font,hdr,rasters,bitmaps")
    parser.add_argument("--kinds", default="video,office,raw,books",
                        help="the families measured by their own extras (video, office, raw, books)")
    parser.add_argument("--no-serve", action="store_true")
    parser.add_argument("--floor", default=os.environ.get("BENCH_FLOOR", ".build/release/bench-floor"),
                        help="the bare Hummingbird application serving is compared with (bench/floor)")
    parser.add_argument("--serve-seconds", type=float, default=3)
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--json", help="write the measures here")
    args = parser.parse_args()
    os.chdir(REPO_DIR)
    with open(THRESHOLDS) as f:
        thresholds = json.load(f)
    glance = os.path.abspath(args.glance)
    if not os.access(glance, os.X_OK):
        sys.exit(f"bench-check: no glance at {args.glance} (make release builds it)")
    baseline = None
    if args.baseline_renderer:
        baseline = baseline_glance(glance, os.path.abspath(args.baseline_renderer))
    elif any(key.endswith("/baseline") for key in thresholds["measures"]):
        sys.exit("bench-check: the thresholds compare with a baseline renderer: give --baseline-renderer "
                 f"(make bench-check builds commit {thresholds['baseline']['commit']}'s)")
    cores = os.cpu_count() or 1
    root, manifest = corpus.ensure_corpus(log)
    measured, problems = {}, []
    for fmt in [f for f in args.formats.split(",") if f]:
        ratios, found = measure_format_confirmed(fmt, root, manifest, glance, baseline, cores, args.rounds,
                                                 thresholds["measures"])
        problems += found
        for kind, value in ratios.items():
            measured[f"{fmt}/{kind}"] = value
    kinds = [k for k in args.kinds.split(",") if k]
    if kinds:
        try:
            found, trouble = measure_kinds(kinds, glance, root, cores)
            # A family's measure under its threshold is measured once more (its own rounds
            # again), and the mean of the two medians decides, as the formats' are confirmed.
            under = sorted({key.split("/")[0] for key, value in found.items()
                            if not meets(value, thresholds["measures"].get(key))})
            if under and not trouble:
                log(f"  {', '.join(under)}: under the threshold: measured again")
                again, trouble = measure_kinds(under, glance, root, cores)
                for key, value in again.items():
                    found[key] = (found[key] + value) / 2 if key in found else value
            measured.update(found)
            problems += trouble
        except (RuntimeError, OSError, subprocess.SubprocessError) as error:
            problems.append(f"{','.join(kinds)}: {error}")
    if not args.no_serve:
        try:
            ratios = measure_serve(glance, os.path.abspath(args.floor), root, cores, max(5, args.rounds // 2),
                                   args.serve_seconds)
            for key, value in ratios.items():
                measured["serve/" + key] = value
        except (RuntimeError, OSError, subprocess.SubprocessError) as error:
            problems.append(f"serve: {error}")
    if not args.no_memory:
        try:
            found = memory.measure(glance, log)
            measured["renderer/reuse-faults"] = found["reuse_faults"]
            measured["renderer/idle-rss-mib"] = found["idle_rss_mib"]
        except (RuntimeError, OSError, subprocess.SubprocessError) as error:
            problems.append(f"renderer memory: {error}")
    lines, passed = compare(measured, thresholds["measures"])
    log(f"bench-check against {thresholds['baseline']['commit'][:12]}'s renderer and the anchors, "
        f"{args.rounds} rounds, {cores} cores:")
    for line in lines:
        log("  " + line)
    asked = [f for f in args.formats.split(",") if f] + kinds + ([] if args.no_serve else ["serve"])
    asked += [] if args.no_memory else ["renderer"]
    for key in thresholds["measures"]:
        if key not in measured and key.split("/")[0] in asked:
            problems.append(f"{key}: not measured")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"measured": measured, "problems": problems}, f, indent=2)
    if problems:
        for problem in problems:
            log("  not measured: " + problem)
        sys.exit(2)
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
