#!/usr/bin/env python3
"""Camera raw photos, e-books and comic books: `glance generate` against the tools people script
for them today, timed in turn on a corpus made here.

    python3 bench/archives.py [--glance PATH] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

The corpus, made once into bench/work/archives/ (about a minute), from the bench's photographs
(bench/corpus.py's numpy pictures, encoded by cjpeg at quality 90):
  raw/     8 DNGs of 4000x3000 (a 16-bit RGGB mosaic of the photo, 24 MB each, written by
           TestAssets/generate.py's DNG writer): 4 with a full-size JPEG preview (as Canon and
           Nikon store), 3 with a 1620x1215 one (as Sony stores), 1 with none;
  books/   20 EPUBs with a 1600x2400 cover, and 20 CBZs of 12 pages of 1400x2100.

The tools, each over every file, two at a time (the machine's cores):
  glance       `glance generate --jobs 2` (all its sizes);
  raw anchor   per file, LibRaw's own extractor `simple_dcraw -e` (libraw-bin 0.20 has no
               `dcraw_emu -e`) then `vipsthumbnail -s 1024` of the preview; a file without a
               preview (simple_dcraw -e then writes nothing, and still exits 0) is developed at
               half size by `dcraw_emu -h -w -T` then vipsthumbnail'd;
  book anchor  Python's zipfile writes each book's cover (its OPF's cover) and each comic's first
               page (by name) to disk, then `vipsthumbnail -s 1024` of them (one process per half).
Targets: raw >= 3x its anchor; books and comics >= 1.5x theirs.

Beside the raw anchor, the raw photos with a preview are timed against the decode floor of their
previews alone: `djpeg -scale 1/2^k` of each preview (the DCT reduction Glance uses), two at a
time, the previews extracted beforehand. Glance's time for those files over that floor says how
much of it is the JPEG decode that any tool drawing the preview pays.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

import corpus
import tools

ROUNDS = 3
ROOT = Path(tools.BENCH_DIR) / "work" / "archives"
STAMP = Path(tools.BENCH_DIR) / "work" / "archives-1.made"
GENERATOR = Path(tools.BENCH_DIR).parent / "TestAssets"


def generator():
    """TestAssets/generate.py, for its DNG and EPUB writers."""
    sys.path.insert(0, str(GENERATOR))
    import generate
    return generate


def jpeg_of(pixels, path, tmp):
    ppm = os.path.join(tmp, "picture.ppm")
    corpus.write_pnm(ppm, pixels.astype(np.uint8))
    subprocess.run(["cjpeg", "-quality", "90", "-optimize", "-outfile", path, ppm], check=True)
    with open(path, "rb") as f:
        return f.read()


def mosaic(pixels, white):
    """The picture as an RGGB mosaic of 16-bit little-endian samples (linear, up to `white`)."""
    linear = np.where(pixels <= 10.31475, pixels / 255 / 12.92, ((pixels / 255 + 0.055) / 1.055) ** 2.4)
    levels = np.round(linear * white).astype("<u2")
    cfa = np.empty(levels.shape[:2], dtype="<u2")
    cfa[0::2, 0::2] = levels[0::2, 0::2, 0]
    cfa[0::2, 1::2] = levels[0::2, 1::2, 1]
    cfa[1::2, 0::2] = levels[1::2, 0::2, 1]
    cfa[1::2, 1::2] = levels[1::2, 1::2, 2]
    return cfa.tobytes()


def make_corpus(log):
    if STAMP.exists():
        return
    log("  archives: making the corpus (raw photos, books, comics) once")
    generate = generator()
    shutil.rmtree(ROOT, ignore_errors=True)
    (ROOT / "raw").mkdir(parents=True)
    (ROOT / "books").mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="glance-archives-corpus-") as tmp:
        for n in range(8):
            width, height = 4000, 3000
            pixels = corpus.photo(width, height, 500 + n)
            preview = None
            if n < 4:
                preview = (jpeg_of(pixels, os.path.join(tmp, "p.jpg"), tmp), width, height)
            elif n < 7:
                reduced = np.asarray(
                    corpus.ndimage.zoom(pixels, (1215 / 3000, 1620 / 4000, 1), order=1), dtype=np.float32)
                preview = (jpeg_of(reduced, os.path.join(tmp, "p.jpg"), tmp), 1620, 1215)
            data = generate.dng(width, height, preview=preview, strip=mosaic(pixels, generate.RAW_WHITE))
            (ROOT / "raw" / f"photo-{n:02}.dng").write_bytes(data)
        for n in range(20):
            cover = jpeg_of(corpus.photo(1600, 2400, 600 + n), os.path.join(tmp, "c.jpg"), tmp)
            chapter = generate.xhtml("Chapter One", "<h1>Chapter One</h1><p>" + "Words. " * 400 + "</p>")
            entries = generate.epub_entries(
                f"Book {n}", "Bench Author", [("cover", "images/cover.jpg", "image/jpeg", "cover-image")],
                [("text/ch1.xhtml", chapter), ("images/cover.jpg", cover)], meta_cover="cover")
            with zipfile.ZipFile(ROOT / "books" / f"book-{n:02}.epub", "w") as book:
                for name, data in entries:
                    kind = zipfile.ZIP_STORED if name == "mimetype" or name.endswith(".jpg") else zipfile.ZIP_DEFLATED
                    book.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data, compress_type=kind)
        for n in range(20):
            page = jpeg_of(corpus.photo(1400, 2100, 700 + n), os.path.join(tmp, "page.jpg"), tmp)
            with zipfile.ZipFile(ROOT / "books" / f"comic-{n:02}.cbz", "w") as comic:
                comic.writestr(zipfile.ZipInfo("ComicInfo.xml", (2020, 1, 1, 0, 0, 0)), b"<ComicInfo/>")
                for p in range(12, 0, -1):
                    comic.writestr(zipfile.ZipInfo(f"page{p}.jpg", (2020, 1, 1, 0, 0, 0)), page)
    STAMP.write_text("made\n")


# The book anchor's work for one half of the files: each cover or first page written to `out`.
EXTRACT = r'''
import re, sys, zipfile
out = sys.argv[1]
for path in sys.argv[2:]:
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        if path.endswith(".epub"):
            root = re.search(rb'full-path="([^"]+)"', z.read("META-INF/container.xml")).group(1).decode()
            opf = z.read(root)
            cover_id = re.search(rb'<meta name="cover" content="([^"]+)"', opf).group(1)
            href = re.search(rb'<item id="' + cover_id + rb'" href="([^"]+)"', opf).group(1).decode()
            name = root.rsplit("/", 1)[0] + "/" + href
        else:
            key = lambda n: [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", n)]
            name = sorted((n for n in names if n.lower().endswith((".jpg", ".jpeg", ".png"))), key=key)[0]
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        with open(f"{out}/{stem}.jpg", "wb") as f:
            f.write(z.read(name))
'''


def measure(glance, corpus_root=None, log=print, cores=2):
    needed = ["simple_dcraw", "dcraw_emu", "vipsthumbnail", "cjpeg"]
    missing = [tool for tool in needed if not shutil.which(tool)]
    if missing:
        log(f"  archives: not measured: {', '.join(missing)} missing (make bench installs libraw-bin)")
        return None
    make_corpus(log)
    raw = sorted(str(path) for path in (ROOT / "raw").glob("*.dng"))
    books = sorted(str(path) for path in (ROOT / "books").iterdir())
    weights = {path: os.path.getsize(path) for path in raw + books}

    def raw_anchor(out):
        loop = ('out="$1"; shift; for f; do b="$out/$(basename "$f")"; ln -s "$f" "$b"; '
                'simple_dcraw -e "$b" >/dev/null 2>&1; if [ -f "$b.thumb.jpg" ]; then p="$b.thumb.jpg"; '
                'else dcraw_emu -h -w -T "$b" >/dev/null 2>&1 || exit 1; p="$b.tiff"; fi; '
                'vipsthumbnail -s 1024 -o "%s-thumb.jpg[Q=85]" "$p" || exit 1; rm -f "$b"; done')
        return [tools.Job(["sh", "-c", loop, "sh", out, *half], env={"VIPS_CONCURRENCY": "1"})
                for half in tools.split_in_two(raw, weights)], 2

    def book_anchor(out):
        jobs = []
        for index, half in enumerate(tools.split_in_two(books, weights)):
            folder = os.path.join(out, f"half-{index}")
            os.makedirs(folder)
            shell = ('python3 -c "$EXTRACT" "$@" && vipsthumbnail -s 1024 -o "%s-thumb.jpg[Q=85]" "$1"/*.jpg')
            jobs.append(tools.Job(["bash", "-c", shell, "bash", folder, *half],
                                  env={"EXTRACT": EXTRACT, "VIPS_CONCURRENCY": "1"}))
        return jobs, 2

    def glance_over(folder):
        return lambda out: tools.glance_generate(glance, str(folder), os.path.join(out, "store"), cores,
                                                 os.path.join(out, "summary.json"))

    results = {}
    with tempfile.TemporaryDirectory(prefix="glance-archives-bench-") as work:
        results["preview_floor"] = preview_floor(glance, raw, work, cores, log)
        for name, files, folder, anchor in (("raw", raw, ROOT / "raw", raw_anchor),
                                            ("books", books, ROOT / "books", book_anchor)):
            tools.warm_page_cache(files)
            plan = {"glance": glance_over(folder), "anchor": anchor}
            seconds, peaks, failures = tools.time_in_turn(plan, ROUNDS, os.path.join(work, name), len(files),
                                                          log=log, label=f"archives {name}")
            medians = {tool: statistics.median(values) for tool, values in seconds.items()}
            results[name] = {
                "files": len(files), "seconds": medians, "ratio": medians["anchor"] / medians["glance"],
                "peak_mib": {tool: kib / 1024 for tool, kib in peaks.items()},
                "problems": [f"{tool}: {problem}" for tool, found in failures.items() for problem in found],
            }
    return results


def preview_floor(glance, raw, work, cores, log):
    """Glance over the raw photos that carry a preview, against djpeg's decode of those previews."""
    previews_dir = Path(work) / "previews"
    photos = ROOT / "with-preview"
    shutil.rmtree(photos, ignore_errors=True)
    previews_dir.mkdir()
    photos.mkdir()
    sizes = {}
    for path in raw:
        link = previews_dir / os.path.basename(path)
        link.symlink_to(path)
        subprocess.run(["simple_dcraw", "-e", str(link)], capture_output=True)
        preview = Path(str(link) + ".thumb.jpg")
        if preview.exists():
            # A copy (a hard link where it can): glance never follows a symbolic link.
            try:
                os.link(path, photos / os.path.basename(path))
            except OSError:
                shutil.copyfile(path, photos / os.path.basename(path))
            size = subprocess.run(["identify", "-format", "%w %h", str(preview)], capture_output=True, text=True)
            sizes[str(preview)] = tuple(int(v) for v in size.stdout.split())
    files = sorted(sizes)
    tools.warm_page_cache(files)
    plan = {"glance": lambda out: tools.glance_generate(glance, str(photos), os.path.join(out, "store"), cores,
                                                        os.path.join(out, "summary.json")),
            "djpeg": lambda out: tools.djpeg_floor(files, sizes, cores)}
    seconds, _, failures = tools.time_in_turn(plan, ROUNDS, os.path.join(work, "floor"), len(files), log=log,
                                              label="archives preview floor")
    for problem in [p for found in failures.values() for p in found][:3]:
        log(f"  archives preview floor: {problem}")
    medians = {tool: statistics.median(values) for tool, values in seconds.items()}
    shutil.rmtree(photos, ignore_errors=True)
    return {"files": len(files), "seconds": medians, "share": medians["djpeg"] / medians["glance"],
            "problems": [f"{tool}: {problem}" for tool, found in failures.items() for problem in found]}


def format_lines(result):
    if not result:
        return []
    lines = []
    raw, books = result["raw"], result["books"]
    lines.append(f"  raw: {raw['files']} DNGs of 12 MP (4 full-size previews, 3 of 1620 px, 1 none): glance "
                 f"{raw['seconds']['glance']:.2f} s, simple_dcraw -e (or dcraw_emu -h) + vipsthumbnail "
                 f"{raw['seconds']['anchor']:.2f} s ({raw['ratio']:.2f}x)")
    floor = result.get("preview_floor")
    if floor:
        lines.append(f"    the {floor['files']} with a preview: glance {floor['seconds']['glance']:.2f} s, djpeg's decode "
                     f"of their previews alone {floor['seconds']['djpeg']:.2f} s: glance runs at "
                     f"{floor['share']:.0%} of the decode floor")
    lines.append(f"  books: {books['files']} EPUBs and CBZs: glance {books['seconds']['glance']:.2f} s, zipfile + "
                 f"vipsthumbnail {books['seconds']['anchor']:.2f} s ({books['ratio']:.2f}x)")
    for part in (raw, books):
        lines += [f"    problem: {problem}" for problem in part["problems"][:3]]
    return lines


def targets(result):
    if not result:
        return []
    raw, books = result["raw"], result["books"]
    return [("raw: glance >= 3x simple_dcraw -e + vipsthumbnail", f"{raw['ratio']:.2f}x", 3 / raw["ratio"],
             raw["ratio"] >= 3 and not raw["problems"]),
            ("books and comics: glance >= 1.5x zipfile + vipsthumbnail", f"{books['ratio']:.2f}x",
             1.5 / books["ratio"], books["ratio"] >= 1.5 and not books["problems"])]


def main():
    return tools.run_alone(__doc__.split("\n")[0], measure, format_lines, targets)


if __name__ == "__main__":
    sys.exit(main())
