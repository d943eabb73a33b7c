#!/usr/bin/env python3
"""Office documents: `glance generate` against LibreOffice's own command line on a corpus of 40
documents made here, timed in turn; the median warm document; each renderer's peak memory; and
a batch of photos with an office batch running beside it.

    python3 bench/office.py [--glance PATH] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

The corpus, made once into bench/work/office/ by LibreOffice's --convert-to from flat OpenDocument
files written here (TestAssets/generate.py's writers), about three minutes:
  12 letters of one to three pages (DOCX, ODT, DOC, RTF),
   8 reports with two photos each (DOCX, ODT; the photos are the bench corpus's JPEGs at 1200 px),
  10 sheets of 1,000 to 100,000 rows (XLSX, ODS),
  10 decks of 10 to 100 slides (PPTX, ODP).

The tools, each over every document:
  glance     `glance generate --jobs 2` (all its sizes; its office lane: one LibreOffice renderer);
  per file   `soffice --headless --convert-to png` in a loop, two loops at once (each its own
             profile, as two users' scripts would be): what people script today;
  one call   `soffice --headless --convert-to pdf` of the whole corpus in one process, then
             `pdftoppm -png -singlefile -scale-to 1024` of each PDF's first page.
Targets: Glance >= 5x per file and >= 2x one call; the median warm document (the office
renderer's own time, from the store) <= 0.5 s; photos (the bench corpus's JPEGs, `glance
generate --jobs 2`) with an office batch beside them keep >= 60% of their rate alone.
"""

import base64
import glob
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tools

ROUNDS = 2
CORPUS = Path(tools.BENCH_DIR) / "work" / "office"
STAMP = Path(tools.BENCH_DIR) / "work" / "office-1.made"
SOFFICE = ["soffice", "--headless", "--norestore"]
GENERATOR = Path(tools.BENCH_DIR).parent / "TestAssets"


def generator():
    """TestAssets/generate.py, for its flat OpenDocument writers."""
    sys.path.insert(0, str(GENERATOR))
    import generate
    return generate


PROSE = ("The committee met on Tuesday to review the quarter's figures. Sales rose in every region but "
         "one, where a late shipment moved two large orders into the next month. ")


def paragraphs(count):
    return "".join("<text:p>%s</text:p>" % (PROSE * 4) for _ in range(count))


def picture(path):
    """A draw:frame holding the JPEG at `path` inline (base64), 15 cm wide."""
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    return ('<text:p><draw:frame text:anchor-type="as-char" svg:width="15cm" svg:height="11.25cm"><draw:image>'
            '<office:binary-data>%s</office:binary-data></draw:image></draw:frame></text:p>' % data)


def make_corpus(log):
    if STAMP.exists():
        return sorted(str(p) for p in CORPUS.iterdir())
    if not shutil.which("soffice"):
        raise RuntimeError("LibreOffice is needed (make deps installs it)")
    g = generator()
    log("  office: making the corpus with LibreOffice (a few minutes, once)")
    shutil.rmtree(CORPUS, ignore_errors=True)
    CORPUS.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="glance-office-corpus-") as work:
        sources = {}  # target format -> flat files

        def flat(name, text, formats):
            path = os.path.join(work, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            for fmt in formats:
                sources.setdefault(fmt, []).append(path)

        letter_formats = ["docx"] * 5 + ["odt"] * 4 + ["doc"] * 2 + ["rtf"]
        for n, fmt in enumerate(letter_formats):
            flat("letter-%02d.fodt" % n, g.letter_fodt(paragraphs(4 + 6 * (n % 3))), [fmt])
        photos = sorted(glob.glob(str(Path(tools.BENCH_DIR) / "work" / "corpus-small" / "jpeg" / "*.jpg")))
        if not photos:
            raise RuntimeError("the bench corpus's photos are missing (bench/run.py makes them)")
        small = []
        for n, photo in enumerate(photos[:4]):
            target = os.path.join(work, "photo-%d.jpg" % n)
            subprocess.run(["convert", photo, "-resize", "1200x1200", "-quality", "85", target], check=True)
            small.append(target)
        for n in range(8):
            body = picture(small[n % len(small)]) + paragraphs(3) + picture(small[(n + 1) % len(small)])
            flat("report-%02d.fodt" % n, g.letter_fodt(body + paragraphs(4)), ["docx" if n % 2 else "odt"])
        for n, rows in enumerate([1000, 2000, 5000, 10000, 20000, 50000, 100000, 1000, 10000, 100000]):
            path = os.path.join(work, "sheet-%02d-%d.csv" % (n, rows))
            with open(path, "w") as f:
                f.write("row,region,amount,share\n")
                for i in range(1, rows + 1):
                    f.write("%d,region %d,%d,%.3f\n" % (i, i % 17, (i * 7919) % 10007, (i % 97) / 97))
            sources.setdefault("xlsx" if n < 7 else "ods", []).append(path)
        for n, slides in enumerate([10, 20, 25, 50, 100, 10, 20, 25, 50, 100]):
            flat("deck-%02d.fodp" % n, g.deck_fodp(["Slide %d" % (k + 1) for k in range(slides)]),
                 ["pptx" if n < 5 else "odp"])
        profile = "file://" + os.path.join(work, "profile")
        for fmt, files in sources.items():
            subprocess.run([*SOFFICE, "-env:UserInstallation=" + profile, "--convert-to", fmt, "--outdir",
                            str(CORPUS), *files], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    made = sorted(str(p) for p in CORPUS.iterdir())
    if len(made) != 40:
        raise RuntimeError(f"the corpus has {len(made)} documents, not 40")
    STAMP.write_text("40 documents\n")
    return made


def warm_milliseconds(store):
    """The office renderer's own time for each document, from the sidecar."""
    with sqlite3.connect(os.path.join(store, "thumbnails.sqlite")) as db:
        return [row[0] for row in db.execute("select renderMilliseconds from document where "
                                             "renderMilliseconds is not null")]


def measure(glance, corpus=None, log=print, cores=2):
    if not shutil.which("soffice") or not shutil.which("pdftoppm"):
        log("  office: not measured: LibreOffice and poppler-utils are needed (make bench installs them)")
        return None
    files = make_corpus(log)
    weights = {path: os.path.getsize(path) for path in files}
    halves = tools.split_in_two(files, weights)

    def per_file(out):
        jobs = []
        for n, half in enumerate(halves):
            profile = f"file://{out}/profile-{n}"
            loop = (f'for f; do soffice --headless --norestore "-env:UserInstallation={profile}" '
                    f'--convert-to png --outdir "{out}" "$f" >/dev/null 2>&1 || exit 1; done')
            jobs.append(tools.Job(["sh", "-c", loop, "sh", *half]))
        return jobs, 2

    def one_call(out):
        script = (f'soffice --headless --norestore "-env:UserInstallation=file://{out}/profile" --convert-to pdf '
                  f'--outdir "{out}" "$@" >/dev/null 2>&1 || exit 1; '
                  f'for p in "{out}"/*.pdf; do pdftoppm -png -singlefile -f 1 -l 1 -scale-to 1024 "$p" "${{p%.pdf}}" '
                  f'|| exit 1; done')
        return [tools.Job(["sh", "-c", script, "sh", *files])], 1

    plan = {
        "glance": lambda out: tools.glance_generate(glance, str(CORPUS), os.path.join(out, "store"), cores,
                                                    os.path.join(out, "summary.json")),
        "soffice-per-file": per_file,
        "soffice-one-call": one_call,
    }
    tools.warm_page_cache(files)
    warm = []
    with tempfile.TemporaryDirectory(prefix="glance-office-bench-") as work:
        seconds, peaks, failures = tools.time_in_turn(plan, ROUNDS, work, len(files), log=log, label="office")
        warm = warm_milliseconds(os.path.join(work, "glance", "store"))
    with tempfile.TemporaryDirectory(prefix="glance-office-peak-") as work:
        jobs, _ = tools.glance_generate(glance, str(CORPUS), os.path.join(work, "store"), cores,
                                        os.path.join(work, "summary.json"))
        _, coordinator, renderers = tools.run_watching_tree(jobs[0])
    medians = {tool: statistics.median(values) for tool, values in seconds.items()}
    return {
        "files": len(files), "seconds": medians,
        "versus_per_file": medians["soffice-per-file"] / medians["glance"],
        "versus_one_call": medians["soffice-one-call"] / medians["glance"],
        "warm_median_seconds": statistics.median(warm) / 1000 if warm else None,
        "warm_p90_seconds": sorted(warm)[int(len(warm) * 0.9)] / 1000 if warm else None,
        "peak_mib": {"renderers": sorted((kib / 1024 for kib in renderers.values()), reverse=True),
                     "coordinator": coordinator / 1024},
        "beside": photos_beside(glance, cores, log),
        "problems": [f"{tool}: {problem}" for tool, found in failures.items() for problem in found],
    }


def photos_beside(glance, cores, log):
    """The photos' `glance generate` alone, then with an office batch running beside it (its own
    process and store), in turn: the photos' rate beside it over their rate alone."""
    photos = Path(tools.BENCH_DIR) / "work" / "corpus-small" / "jpeg"
    if not photos.is_dir():
        return None
    ratios = []
    with tempfile.TemporaryDirectory(prefix="glance-office-beside-") as work:
        for _ in range(ROUNDS):
            alone = tools.run_jobs([tools.Job([glance, "generate", str(photos), "--jobs", str(cores), "--quiet",
                                               "--store", tools.fresh_dir(os.path.join(work, "alone"))])])
            office = tools.spawn(tools.Job([glance, "generate", str(CORPUS), "--jobs", str(cores), "--quiet",
                                            "--store", tools.fresh_dir(os.path.join(work, "office"))]), os.devnull)
            # The office batch's LibreOffice started (its first document handed on) before the photos go.
            time.sleep(3)
            beside = tools.run_jobs([tools.Job([glance, "generate", str(photos), "--jobs", str(cores), "--quiet",
                                                "--store", tools.fresh_dir(os.path.join(work, "beside"))])])
            os.kill(office, 9)
            os.waitpid(office, 0)
            if alone.failures or beside.failures:
                log(f"  office: photos beside: {(alone.failures + beside.failures)[:1]}")
                return None
            ratios.append(alone.seconds / beside.seconds)
    return statistics.median(ratios)


def format_lines(result):
    if not result:
        return []
    seconds, peak = result["seconds"], result["peak_mib"]
    lines = [f"  office: {result['files']} documents (letters, reports with photos, sheets of 1k-100k rows, decks of "
             f"10-100 slides): glance {seconds['glance']:.2f} s, soffice --convert-to png per file "
             f"{seconds['soffice-per-file']:.2f} s ({result['versus_per_file']:.2f}x), one soffice --convert-to pdf "
             f"+ pdftoppm {seconds['soffice-one-call']:.2f} s ({result['versus_one_call']:.2f}x)"]
    if result["warm_median_seconds"] is not None:
        lines.append(f"    a warm document: median {result['warm_median_seconds']:.3f} s, "
                     f"90th percentile {result['warm_p90_seconds']:.3f} s (the office renderer's own time)")
    lines.append("    peak memory: renderers " + ", ".join(f"{mib:.0f}" for mib in peak["renderers"][:4])
                 + f" MiB (the largest is LibreOffice's); coordinator {peak['coordinator']:.0f} MiB")
    if result["beside"] is not None:
        lines.append(f"    photos with an office batch beside them: {result['beside']:.2f} of their rate alone")
    lines += [f"    problem: {problem}" for problem in result["problems"][:3]]
    return lines


def targets(result):
    if not result:
        return []
    clean = not result["problems"]
    found = [("office: glance >= 5x soffice --convert-to png per file", f"{result['versus_per_file']:.2f}x",
              5 / result["versus_per_file"], result["versus_per_file"] >= 5 and clean),
             ("office: glance >= 2x one soffice --convert-to pdf + pdftoppm", f"{result['versus_one_call']:.2f}x",
              2 / result["versus_one_call"], result["versus_one_call"] >= 2 and clean)]
    warm = result["warm_median_seconds"]
    if warm is not None:
        found.append(("office: median warm document <= 0.5 s", f"{warm:.3f} s", warm / 0.5, warm <= 0.5))
    if result["beside"] is not None:
        found.append(("office: photos beside an office batch keep >= 60% of their rate",
                      f"{result['beside']:.2f}", 0.6 / result["beside"], result["beside"] >= 0.6))
    return found


def main():
    return tools.run_alone(__doc__.split("\n")[0], measure, format_lines, targets)


if __name__ == "__main__":
    sys.exit(main())
