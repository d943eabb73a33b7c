"""Glance against another build of itself, whole: what the smaller sizes cost a batch, and whether
the 1024 alone is as fast as an older build that made nothing else.

    python3 bench/against.py --other PATH [--glance PATH] [--rounds N] [--copies N] [--formats jpeg,png,pdf,text]
                             [--cpu]

`--other` is the `glance` of the other build (its renderer beside it, as that build installed
it): issue 69 asks for commit 4c94050, the last that made the 1024 alone. Build it from its tree:

    mkdir -p .build-baseline/4c94050-full/src
    git archive 4c94050 | tar -x -C .build-baseline/4c94050-full/src
    cd .build-baseline/4c94050-full/src && swift build -c release --scratch-path ../build \\
        --static-swift-stdlib --disable-local-rpath -Xlinker -l_FoundationCollections \\
        -Xlinker -l_FoundationCShims --product glance && (same, --product glance-worker)

Each format's folder of the small bench corpus (bench/corpus.py) is hard-linked `copies` times
into one container (a run of the small folder alone is a few tenths of a second, which a
process's start and a store's setting up would weigh on), then three batches are timed in turns,
`rounds` times, each into a fresh store: this glance with every size, this glance with
`--sizes none`, and the other build. Printed, each the median of the rounds' ratios (a rate
ratio: above 1 is this glance faster):

  1024 alone / other     this glance with --sizes none against the other build
  every size / other     this glance as it runs by default against the other build
  every size / 1024      what the 512 and 256 leave of the batch's rate

With `--cpu` each batch runs under `perf stat -e task-clock` (Debian's linux-perf), and the same
three ratios are printed again for the batches' CPU seconds (a ratio of CPU seconds: above 1 is
this glance cheaper), renderers included. On a shared machine they move less than the rates
do. They show what a change costs; the rates, what a batch takes.
"""

import argparse
import json
import os
import shutil
import statistics
import sys

import corpus
import tools

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
WORK_DIR = os.path.join(BENCH_DIR, "work", "against")


def container_of(root, manifest, fmt, copies):
    """A folder holding `copies` hard-linked copies of the corpus's `fmt` files; (path, count)."""
    files = sorted(os.path.join(root, fmt, e["file"]) for e in manifest if e["format"] == fmt)
    if not files:
        raise RuntimeError(f"no {fmt} files in {root}")
    folder = os.path.join(WORK_DIR, "documents", fmt)
    shutil.rmtree(folder, ignore_errors=True)
    for copy in range(copies):
        target = os.path.join(folder, f"copy-{copy:02d}")
        os.makedirs(target)
        for source in files:
            os.link(source, os.path.join(target, os.path.basename(source)))
    return folder, files, copies * len(files)


def measure(fmt, root, manifest, glance, other, rounds, copies, cores, cpu):
    container, files, count = container_of(root, manifest, fmt, copies)

    def generate(binary, extra=()):
        def plan(outdir):
            jobs, parallel = tools.glance_generate(binary, container, os.path.join(outdir, "store"), cores,
                                                   os.path.join(outdir, "summary.json"), extra)
            return ([tools.with_cpu_time(job, outdir) for job in jobs] if cpu else jobs), parallel
        return plan

    # Every name starts with "glance", so that each run is checked to have rendered them all.
    plan = {"glance": generate(glance), "glance-1024": generate(glance, ["--sizes", "none"]),
            "glance-other": generate(other)}
    tools.warm_page_cache(files)
    out = os.path.join(WORK_DIR, "out", fmt)
    tools.time_in_turn(plan, 1, out, count)
    spent = {}
    seconds, _, failures = tools.time_in_turn(plan, rounds, out, count, log=print, label=fmt, cpu=spent)
    problems = [f"{fmt}: {name}: {'; '.join(found)}" for name, found in failures.items() if found]

    def ratio(measured, slower, faster):
        return statistics.median(s / f for s, f in zip(measured[slower], measured[faster]))

    def ratios(measured, suffix=""):
        return {"1024 alone / other" + suffix: ratio(measured, "glance-other", "glance-1024"),
                "every size / other" + suffix: ratio(measured, "glance-other", "glance"),
                "every size / 1024" + suffix: ratio(measured, "glance-1024", "glance")}

    result = {"documents": count, **ratios(seconds)}
    if cpu:
        result.update(ratios(spent, ", CPU"))
    return result, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glance", default=".build-static/release/glance")
    parser.add_argument("--other", required=True, help="the other build's glance (its renderer beside it)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--formats", default="jpeg,png,pdf,text")
    parser.add_argument("--json", help="write the ratios here")
    parser.add_argument("--cpu", action="store_true",
                        help="also the ratios of the batches' CPU seconds (perf stat, renderers included)")
    args = parser.parse_args()
    if args.cpu and not shutil.which("perf"):
        sys.exit("against: --cpu needs perf (Debian's linux-perf)")
    glance, other = os.path.abspath(args.glance), os.path.abspath(args.other)
    for binary in (glance, other):
        if not os.access(binary, os.X_OK):
            sys.exit(f"against: no glance at {binary}")
    os.chdir(os.path.dirname(BENCH_DIR))
    root, manifest = corpus.ensure_corpus(print)
    cores = os.cpu_count() or 1
    results, problems = {}, []
    for fmt in [f for f in args.formats.split(",") if f]:
        results[fmt], found = measure(fmt, root, manifest, glance, other, args.rounds, args.copies, cores, args.cpu)
        problems += found
    print(f"This glance against {os.path.relpath(other)}, {args.rounds} rounds, {cores} cores "
          "(medians of the rounds' ratios of rates; those marked CPU, of CPU seconds):")
    for fmt, result in results.items():
        print(f"  {fmt:<5} {result['documents']:>4} documents: "
              + ", ".join(f"{name} {value:.3f}" for name, value in result.items() if name != "documents"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "problems": problems}, f, indent=2)
    for problem in problems:
        print("  problem: " + problem)
    sys.exit(2 if problems else 0)


if __name__ == "__main__":
    main()
