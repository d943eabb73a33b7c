#!/usr/bin/env python3
"""The formats added after the first four, against vipsthumbnail (which reads them all): for each,
`glance generate` and vipsthumbnail's best (one process with its own threads, or two processes of
one thread each) over a corpus made from the bench corpus, timed in turn.

    python3 bench/formats.py [--glance PATH] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

The corpus, made once into bench/work/formats/ (HEIC and AVIF encoding takes a minute):
  WebP  the corpus's photos (up to 6000x4000) as lossy WebP at quality 80 and its PNGs (photos,
        screenshots with alpha, palettes) as lossless WebP (cwebp);
  HEIC  the photos at up to 12 megapixels (4000x3000), quality 50 (heif-enc, x265), no thumbnail
        image in the file (as heif-enc makes them; a phone's is 320 pixels, too small for 1024);
  AVIF  the same photos as AVIF (heif-enc -A, libaom at speed 9);
  TIFF  the photos as RGB TIFF, LZW in 64-row strips (up to 6000x4000, 72 MB of pixels), two as
        JPEG-compressed 256-pixel tiles, and the PNGs (16-bit, alpha, palette) as deflate TIFF;
  GIF   animations of 8 frames, 800x600, 256 colours, one from each photo (ImageMagick);
  SVG   8 drawings of 2,000 shapes each (paths, gradients, text), 2000x1500, written here.
Each tool writes a JPEG (quality 85) for a lossy source (lossy WebP, HEIC, AVIF, JPEG-compressed
TIFF) and a PNG for the rest, as Glance does. The target is Glance >= 1.5x vipsthumbnail's best
on each; the peak memory of each tool is reported (its largest process: glance or one of its
renderers, watched through /proc; vipsthumbnail, by /usr/bin/time).

WebP and SVG, whose libraries cannot decode at a reduced size, are also timed against their
library's own tool doing no more than decoding, two processes at once (the floor): dwebp to RGB
samples written nowhere, and rsvg-convert drawing each at 1024 pixels wide into a PNG (which
Glance writes too). The target is Glance >= 85% of the floor's rate.
"""

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import tools

ROUNDS = 3
CORPUS = Path(tools.BENCH_DIR) / "work" / "formats"


def photos(corpus):
    return sorted((Path(corpus) / "jpeg").iterdir())


def graphics(corpus):
    return sorted((Path(corpus) / "png").iterdir())


def at_most_12_megapixels(source, scratch):
    """A PNG of the photo at up to 4000x3000 (what a phone's 12-megapixel camera saves)."""
    out = Path(scratch) / (source.stem + ".png")
    subprocess.run([tools.CONVERT, str(source), "-resize", "4000x3000>", str(out)], check=True)
    return out


def make_webp(corpus, target, scratch):
    """Lossy WebP of the photos, lossless of the PNGs; (lossy, lossless) paths."""
    lossy, lossless = [], []
    for source in photos(corpus):
        out = target / (source.stem + ".webp")
        subprocess.run(["cwebp", "-quiet", "-q", "80", "-m", "4", str(source), "-o", str(out)], check=True)
        lossy.append(out)
    for source in graphics(corpus):
        out = target / (source.stem + "-lossless.webp")
        # cwebp reads 8-bit PNGs only: a 16-bit one is left out.
        if subprocess.run(["cwebp", "-quiet", "-lossless", "-m", "1", str(source), "-o", str(out)],
                          capture_output=True).returncode == 0:
            lossless.append(out)
    return lossy, lossless


def make_heif(corpus, target, scratch, avif):
    """The photos at up to 12 megapixels as HEIC (x265) or AVIF (libaom); all lossy."""
    made = []
    for source in photos(corpus):
        png = at_most_12_megapixels(source, scratch)
        out = target / (source.stem + (".avif" if avif else ".heic"))
        options = ["-A", "-p", "speed=9"] if avif else []
        subprocess.run(["heif-enc", "-q", "50", *options, str(png), "-o", str(out)], check=True,
                       stdout=subprocess.DEVNULL)
        made.append(out)
    return made, []


def make_tiff(corpus, target, scratch):
    """The photos as LZW strips (two as JPEG tiles, lossy), the PNGs as deflate TIFF."""
    lossy, lossless = [], []
    for index, source in enumerate(photos(corpus)):
        out = target / (source.stem + ".tiff")
        if index < 2:
            subprocess.run([tools.CONVERT, str(source), "-compress", "jpeg", "-quality", "90",
                            "-define", "tiff:tile-geometry=256x256", str(out)], check=True)
            lossy.append(out)
        else:
            subprocess.run([tools.CONVERT, str(source), "-compress", "lzw", "-define", "tiff:rows-per-strip=64",
                            str(out)], check=True)
            lossless.append(out)
    for source in graphics(corpus):
        out = target / (source.stem + ".tiff")
        subprocess.run([tools.CONVERT, str(source), "-compress", "zip", str(out)], check=True)
        lossless.append(out)
    return lossy, lossless


def make_gif(corpus, target, scratch):
    """An 800x600 animation of 8 frames (the photo panned) from each photo."""
    made = []
    for source in photos(corpus):
        small = Path(scratch) / (source.stem + "-small.png")
        subprocess.run([tools.CONVERT, str(source), "-resize", "1000x750!", str(small)], check=True)
        frames = []
        for frame in range(8):
            frames += ["(", str(small), "-crop", f"800x600+{frame * 25}+{frame * 18}", "+repage", ")"]
        out = target / (source.stem + ".gif")
        subprocess.run([tools.CONVERT, "-delay", "10", *frames, "-colors", "256", "-loop", "0", str(out)],
                       check=True)
        made.append(out)
    return [], made


def drawing(seed):
    """An SVG of 2,000 shapes: paths, circles and rectangles in gradients, with some text."""
    rng = random.Random(seed)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="1500" viewBox="0 0 2000 1500">',
             "<defs>"]
    for index in range(8):
        colours = ["#%06x" % rng.randrange(1 << 24) for _ in range(2)]
        parts.append(f'<linearGradient id="g{index}"><stop offset="0" stop-color="{colours[0]}"/>'
                     f'<stop offset="1" stop-color="{colours[1]}"/></linearGradient>')
    parts.append('</defs><rect width="2000" height="1500" fill="#f4f1ea"/>')
    for _ in range(2000):
        kind = rng.randrange(3)
        fill = f'url(#g{rng.randrange(8)})' if rng.random() < 0.3 else "#%06x" % rng.randrange(1 << 24)
        x, y = rng.uniform(0, 2000), rng.uniform(0, 1500)
        if kind == 0:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rng.uniform(4, 60):.1f}" fill="{fill}" '
                         f'fill-opacity="{rng.uniform(0.3, 1):.2f}"/>')
        elif kind == 1:
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{rng.uniform(5, 120):.1f}" '
                         f'height="{rng.uniform(5, 120):.1f}" fill="{fill}" transform="rotate({rng.randrange(90)} '
                         f'{x:.0f} {y:.0f})"/>')
        else:
            points = " ".join(f"{rng.uniform(0, 2000):.1f},{rng.uniform(0, 1500):.1f}" for _ in range(4))
            parts.append(f'<path d="M{points.replace(" ", " C", 1)}" fill="none" stroke="{fill}" '
                         f'stroke-width="{rng.uniform(1, 8):.1f}"/>')
    for line in range(12):
        parts.append(f'<text x="60" y="{100 + line * 110}" font-family="sans-serif" font-size="64" '
                     f'fill="#202020">Drawing {seed}, line {line + 1}: glance at vector art</text>')
    parts.append("</svg>\n")
    return "".join(parts)


def make_svg(corpus, target, scratch):
    made = []
    for seed in range(8):
        out = target / f"drawing-{seed}.svg"
        out.write_text(drawing(seed))
        made.append(out)
    return [], made


MAKERS = {
    "webp": ("WebP", make_webp),
    "heic": ("HEIC", lambda corpus, target, scratch: make_heif(corpus, target, scratch, avif=False)),
    "avif": ("AVIF", lambda corpus, target, scratch: make_heif(corpus, target, scratch, avif=True)),
    "tiff": ("TIFF", make_tiff),
    "gif": ("GIF", make_gif),
    "svg": ("SVG", make_svg),
}


def corpus_of(name, corpus):
    """bench/work/formats/NAME/{lossy,lossless}/: made once (NAME.made says it was), the paths of
    each kind."""
    folder = CORPUS / name
    stamp = CORPUS / f"{name}.made"  # outside the folder that glance generate reads
    if not stamp.exists():
        shutil.rmtree(folder, ignore_errors=True)
        for kind in ("lossy", "lossless"):
            (folder / kind).mkdir(parents=True)
        with tempfile.TemporaryDirectory(prefix="glance-formats-") as scratch:
            lossy, lossless = MAKERS[name][1](corpus, folder, scratch)
            for kind, files in (("lossy", lossy), ("lossless", lossless)):
                for path in files:
                    path.rename(folder / kind / path.name)
        stamp.write_text("")
    return {kind: sorted(str(path) for path in (folder / kind).iterdir()) for kind in ("lossy", "lossless")}


# The floors (see above): the tool, and a shell loop that runs it over the files it is given.
FLOORS = {
    "webp": ("dwebp", 'for f; do dwebp -quiet -ppm "$f" >/dev/null 2>&1 || exit 1; done'),
    "svg": ("rsvg-convert", 'for f; do rsvg-convert -w 1024 -f png "$f" >/dev/null || exit 1; done'),
}
FLOOR_TARGET = 0.85


def measure_format(glance, name, files, cores, log):
    """glance generate against vipsthumbnail over one format's corpus."""
    everything = files["lossy"] + files["lossless"]
    folder = os.path.commonpath(everything)
    weights = {path: os.path.getsize(path) for path in everything}
    groups = [("jpeg", files["lossy"]), ("png", files["lossless"])]

    def vips_one(out):
        jobs = [tools.Job(["vipsthumbnail", "-s", "1024", "-o", tools.vips_output(fmt, out)] + group)
                for fmt, group in groups if group]
        return jobs, 1

    def vips_two(out):
        jobs = []
        for fmt, group in groups:
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
    if name in FLOORS and shutil.which(FLOORS[name][0]):
        script = FLOORS[name][1]

        def floor(out):
            halves = tools.split_in_two(everything, weights) if len(everything) > 1 else [everything]
            return [tools.Job(["sh", "-c", script, "sh", *half]) for half in halves if half], 2

        plan["floor"] = floor
    tools.warm_page_cache(everything)
    with tempfile.TemporaryDirectory(prefix="glance-formats-bench-") as work:
        seconds, peaks, failures = tools.time_in_turn(plan, ROUNDS, work, len(everything), log=log, label=name)
    # The renderers' peaks: /usr/bin/time sees glance's own process only (a renderer under
    # bubblewrap is reaped inside its namespace), so one more run is watched process by process.
    with tempfile.TemporaryDirectory(prefix="glance-formats-peak-") as work:
        jobs, _ = tools.glance_generate(glance, folder, os.path.join(work, "store"), cores,
                                        os.path.join(work, "summary.json"))
        _, coordinator, renderers = tools.run_watching_tree(jobs[0])
    peaks["glance"] = max([coordinator, *renderers.values()])
    medians = {tool: statistics.median(values) for tool, values in seconds.items()}
    best = min(medians["vips1"], medians["vips2"])
    ratio = best / medians["glance"]
    floor_share = medians["floor"] / medians["glance"] if "floor" in medians else None
    log(f"  formats: {MAKERS[name][0]} ({len(everything)} files): glance {medians['glance']:.2f} s, "
        f"vipsthumbnail best {best:.2f} s: {ratio:.2f}x"
        + (f"; {100 * floor_share:.0f}% of the floor's rate ({medians['floor']:.2f} s)" if floor_share else ""))
    return {"files": len(everything), "seconds": medians, "ratio": ratio, "floor_share": floor_share,
            "peak_mib": {tool: value / 1024 for tool, value in peaks.items()},
            "problems": [f"{tool}: {problem}" for tool, found in failures.items() for problem in found]}


def measure(glance, corpus, log=print, cores=2):
    result = {}
    for name in MAKERS:
        try:
            result[name] = measure_format(glance, name, corpus_of(name, corpus), cores, log)
        except (OSError, subprocess.CalledProcessError) as error:
            log(f"  formats: {MAKERS[name][0]} not measured: {error}")
    return result


def format_formats(result):
    """The report's lines."""
    lines = []
    for name, (label, _) in MAKERS.items():
        entry = (result or {}).get(name)
        if not entry:
            continue
        seconds, peak = entry["seconds"], entry["peak_mib"]
        lines.append(f"  formats: {label}, {entry['files']} files: glance {seconds['glance']:.2f} s, vipsthumbnail "
                     f"{seconds['vips1']:.2f} s (1 process) / {seconds['vips2']:.2f} s (2): {entry['ratio']:.2f}x; "
                     f"peak {peak['glance']:.0f} MiB against {max(peak['vips1'], peak['vips2']):.0f} MiB")
        if entry.get("floor_share"):
            lines.append(f"    at {100 * entry['floor_share']:.0f}% of the floor's rate ({FLOORS[name][0]}: "
                         f"{seconds['floor']:.2f} s)")
        lines += [f"    problem: {problem}" for problem in entry["problems"][:3]]
    return lines


def targets(result):
    """[(target, measured, ratio, passed)]."""
    found = []
    for name, (label, _) in MAKERS.items():
        entry = (result or {}).get(name)
        if not entry:
            continue
        ratio = entry["ratio"]
        found.append((f"{label}: glance >= 1.5x vipsthumbnail's best", f"{ratio:.2f}x",
                      1.5 / ratio if ratio else float("inf"), ratio >= 1.5 and not entry["problems"]))
        share = entry.get("floor_share")
        if share:
            found.append((f"{label}: glance >= {100 * FLOOR_TARGET:.0f}% of the floor's rate ({FLOORS[name][0]})",
                          f"{100 * share:.0f}%", FLOOR_TARGET / share, share >= FLOOR_TARGET))
    return found


def main():
    return tools.run_alone(__doc__.split("\n")[0], measure, format_formats, targets)


if __name__ == "__main__":
    sys.exit(main())
