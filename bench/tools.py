"""Running the tools: commands for Glance and each anchor, and a timer that records peak memory.

Every command runs under GNU `/usr/bin/time -f %M -o FILE`, which reports the peak resident set
(KiB) from the rusage that wait4 returns for its child. On Linux that number is the peak of the
child *or of any descendant it waited for* (the kernel folds a reaped child's peak into its
parent's): the largest single process of the tree, never a sum. So for `glance generate` it is
the larger of the coordinator and its biggest worker (the coordinator reaps its workers), and
for a batch of per-file commands we report the maximum over the commands.

Why not wait4 from this script directly: a child spawned by a big Python process (numpy and
scipy are loaded) inherits the parent's memory high-water mark at fork/exec, so its ru_maxrss
would never be below this script's own size. /usr/bin/time is small, and it is what it reports
for its child that we read.
"""

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field

CONVERT = "/usr/bin/convert"  # the `convert` first on PATH may be a stand-in script
GM = "/usr/bin/gm"
TIME = "/usr/bin/time"
BENCH_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass
class Job:
    """One command: its arguments, extra environment, and where its stdout goes."""

    argv: list
    env: dict = field(default_factory=dict)
    stdout: str = os.devnull


@dataclass
class Timing:
    """What one batch of jobs cost: wall seconds, the largest peak RSS (KiB), failed commands."""

    seconds: float
    peak_rss_kib: int
    failures: list


def spawn(job, stderr_path):
    """Starts a job with stdout and stderr redirected; returns its pid."""
    env = dict(os.environ)
    env.update(job.env)
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, job.stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, stderr_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644),
    ]
    return os.posix_spawnp(job.argv[0], job.argv, env, file_actions=actions)


def run_jobs(jobs, parallel=1, stderr_path=os.devnull):
    """Runs the jobs, at most `parallel` at a time, and times the whole batch.

    Only our own children exist while this runs, so os.waitpid(-1) reaps exactly the jobs.
    """
    pending = list(enumerate(jobs))
    running = {}
    peak = 0
    failures = []
    with tempfile.TemporaryDirectory(prefix="bench-rss-") as rss_dir:
        start = time.perf_counter()
        while pending or running:
            while pending and len(running) < parallel:
                number, job = pending.pop(0)
                rss_file = os.path.join(rss_dir, str(number))
                timed = Job([TIME, "-f", "%M", "-o", rss_file] + job.argv, job.env, job.stdout)
                running[spawn(timed, stderr_path)] = (job, rss_file)
            pid, status = os.waitpid(-1, 0)
            if pid not in running:
                continue
            job, rss_file = running.pop(pid)
            peak = max(peak, read_peak(rss_file))
            code = os.waitstatus_to_exitcode(status)
            if code != 0:
                failures.append(" ".join(os.path.basename(a) for a in job.argv[:3]) + " ... exit %d" % code)
        seconds = time.perf_counter() - start
    return Timing(seconds, peak, failures)


def read_peak(rss_file):
    """The KiB that /usr/bin/time wrote (its last line; a signal note may come first)."""
    try:
        with open(rss_file) as f:
            return int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return 0


def fresh_dir(path):
    """An empty folder at path (removed first if it was there)."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def split_in_two(files, weights):
    """Two halves of files with about equal total weight (greedy, largest first)."""
    halves, totals = ([], []), [0, 0]
    for f in sorted(files, key=lambda f: -weights.get(f, 0)):
        side = 0 if totals[0] <= totals[1] else 1
        halves[side].append(f)
        totals[side] += weights.get(f, 0)
    return [h for h in halves if h]


# ---------------------------------------------------------------------------------------------
# The tools. Each function returns (jobs, parallel): the commands for a folder's files and how
# many of them run at once. Outputs go to outdir, which the caller empties before each run.
# ---------------------------------------------------------------------------------------------


def warm_page_cache(files):
    """Reads every file once, so that no tool pays for the first read."""
    for path in files:
        with open(path, "rb") as src:
            while src.read(1 << 20):
                pass


CPU_FILE = "task-clock.csv"


def with_cpu_time(job, outdir):
    """`job` run under `perf stat -e task-clock`, which counts the CPU time of the command and of
    every process it starts, written to outdir's CPU_FILE for time_in_turn's `cpu`. A wait's
    resource usage does not serve: after `glance generate` it counted 0.4 s of a 7 s batch, the
    renderers' time not in it."""
    job.argv = ["perf", "stat", "-x,", "-e", "task-clock", "-o", os.path.join(outdir, CPU_FILE), "--"] + job.argv
    return job


def cpu_seconds(outdir):
    """The CPU seconds with_cpu_time's `perf stat` wrote in outdir."""
    with open(os.path.join(outdir, CPU_FILE)) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) > 2 and fields[2] == "task-clock":
                return float(fields[0]) / 1000
    raise RuntimeError(f"no task-clock in {os.path.join(outdir, CPU_FILE)}")


def time_in_turn(plan, rounds, out_root, count, stderr_path=os.devnull, log=None, label="", cpu=None):
    """Runs every tool of plan ({name: callable(outdir) -> (jobs, parallel)}) once a round, the
    order rotating between rounds so that background load hits all alike. Glance's runs are also
    checked to have rendered `count` documents. Returns (seconds, peaks, failures) by name: every
    round's time, the largest peak RSS, and the first round's problems. With a `cpu` dict, each
    round's CPU seconds of the tools whose jobs ran under with_cpu_time are added to it by name."""
    names = list(plan)
    seconds = {name: [] for name in names}
    peaks = {name: 0 for name in names}
    failures = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            outdir = fresh_dir(os.path.join(out_root, name))
            jobs, parallel = plan[name](outdir)
            timing = run_jobs(jobs, parallel, stderr_path=stderr_path)
            seconds[name].append(timing.seconds)
            if cpu is not None and os.path.exists(os.path.join(outdir, CPU_FILE)):
                cpu.setdefault(name, []).append(cpu_seconds(outdir))
            peaks[name] = max(peaks[name], timing.peak_rss_kib)
            problems = timing.failures + (check_glance_run(outdir, count) if name.startswith("glance") else [])
            if problems and not failures[name]:
                failures[name] = problems
        if log:
            log(f"  {label} round {r + 1}/{rounds}: " + ", ".join(f"{n} {seconds[n][-1]:.2f}s" for n in names))
    return seconds, peaks, failures


def check_glance_run(outdir, count):
    """Problems with a glance generate run, from its JSON summary."""
    try:
        with open(os.path.join(outdir, "summary.json")) as f:
            summary = json.load(f)
    except (OSError, ValueError) as error:
        return [f"no JSON summary ({error})"]
    problems = []
    if summary.get("rendered") != count:
        problems.append(f"rendered {summary.get('rendered')} of {count}")
    # Every document of the corpus is sound: a renderer replaced means renderers die between
    # documents on this machine, and each document pays a renderer's start.
    started = summary.get("renderersStarted", summary.get("workersStarted"))
    if isinstance(started, int) and started > os.cpu_count():
        problems.append(f"{started} renderers started for --jobs {os.cpu_count()}: renderers were replaced")
    for failure in summary.get("failures", [])[:3]:
        problems.append(f"{failure.get('path')}: {failure.get('error')}")
    return problems


def glance_generate(glance, container, store, cores, summary_path, extra=()):
    """One `glance generate` over the container with a fresh store (and `extra` options); the JSON
    summary to a file."""
    argv = [glance, "generate", container, "--jobs", str(cores), "--json", "--quiet", "--store", store] + list(extra)
    return [Job(argv, stdout=summary_path)], 1


def vips_output(fmt, outdir):
    """vipsthumbnail's -o: JPEG at quality 85 for photos (JPEG and lossy JPEG XL sources, like
    Glance's), PNG otherwise."""
    return os.path.join(outdir, "%s.jpg[Q=85]" if fmt in ("jpeg", "jxl") else "%s.png")


def vips_one_process(files, outdir, fmt):
    """vipsthumbnail -s 1024 over the whole folder in one process (its default threading)."""
    return [Job(["vipsthumbnail", "-s", "1024", "-o", vips_output(fmt, outdir)] + files)], 1


def vips_two_processes(files, outdir, fmt, weights):
    """Two vipsthumbnail processes at once, each over half the files, VIPS_CONCURRENCY=1."""
    jobs = [Job(["vipsthumbnail", "-s", "1024", "-o", vips_output(fmt, outdir)] + half,
                env={"VIPS_CONCURRENCY": "1"}) for half in split_in_two(files, weights)]
    return jobs, 2


def thumbnail_extension(fmt):
    return ".jpg" if fmt in ("jpeg", "jxl") else ".png"


def ddjvu(files, outdir, parallel):
    """DjVuLibre's ddjvu, per file: page 1 decoded to fit 1024x1024, as PPM."""
    return [Job(["ddjvu", "-format=ppm", "-page=1", "-size=1024x1024", f, os.path.join(outdir, stem(f) + ".ppm")])
            for f in files], parallel


def gnome_thumbnail_font(files, outdir, parallel):
    """GNOME's font thumbnailer (gnome-font-viewer), per file: a 1024-pixel thumbnail, as PNG."""
    return [Job(["gnome-thumbnail-font", "--size", "1024", f, os.path.join(outdir, stem(f) + ".png")])
            for f in files], parallel


def ghostscript(files, outdir, parallel):
    """Ghostscript, per file: page 1 of a US Letter page at 93 dpi (1024 pixels high), as PPM."""
    return [Job(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=ppmraw", "-r93", "-dLastPage=1",
                 "-dTextAlphaBits=4", "-dGraphicsAlphaBits=4", "-sOutputFile=" + os.path.join(outdir, stem(f) + ".ppm"),
                 f]) for f in files], parallel


def xpstopng(files, outdir, parallel):
    """libgxps's xpstopng, per file: page 1 of a US Letter page at 93 dpi (1024 pixels high), as PNG."""
    return [Job(["xpstopng", "-f", "1", "-l", "1", "-r", "93", f, os.path.join(outdir, stem(f))])
            for f in files], parallel


def imagemagick(files, outdir, fmt, parallel):
    """ImageMagick 6, per file: convert -define jpeg:size=1024x1024 IN -thumbnail 1024x1024 OUT."""
    ext = thumbnail_extension(fmt)
    return [Job([CONVERT, "-define", "jpeg:size=1024x1024", f, "-thumbnail", "1024x1024",
                 os.path.join(outdir, stem(f) + ext)]) for f in files], parallel


def graphicsmagick(files, outdir, fmt, parallel):
    """GraphicsMagick, per file: gm convert -size 1024x1024 IN -thumbnail 1024x1024 OUT."""
    ext = thumbnail_extension(fmt)
    return [Job([GM, "convert", "-size", "1024x1024", f, "-thumbnail", "1024x1024",
                 os.path.join(outdir, stem(f) + ext)]) for f in files], parallel


def pdftoppm(files, outdir, parallel):
    """pdftoppm, per file: page 1, longest side 1024, PNG."""
    return [Job(["pdftoppm", "-f", "1", "-l", "1", "-singlefile", "-scale-to", "1024", "-png", f,
                 os.path.join(outdir, stem(f))]) for f in files], parallel


def pango_view(heads, outdir, parallel):
    """pango-view, per file, over the first 4 KB (prepared beforehand), wrapped at A4 width."""
    return [Job(["pango-view", "--no-display", "-q", "--pixels", "--font=DejaVu Sans 10", "--width=650",
                 "--margin=37", "--output=" + os.path.join(outdir, stem(h) + ".png"), h])
            for h in heads], parallel


def djpeg_scale(width, height):
    """The largest power-of-two DCT reduction (1/1..1/8) keeping the longest side >= 1024."""
    longest, k = max(width, height), 0
    while k < 3 and longest / 2 ** (k + 1) >= 1024:
        k += 1
    return 2 ** k


def djpeg_floor(files, sizes, parallel):
    """The JPEG floor: djpeg -scale 1/2^k decode of each file to /dev/null."""
    return [Job(["djpeg", "-scale", "1/%d" % djpeg_scale(*sizes[f]), "-outfile", os.devnull, f])
            for f in files], parallel


def png_floor(files, weights):
    """The PNG floor: zlib inflate of every IDAT stream (no unfiltering), two processes."""
    script = os.path.join(BENCH_DIR, "inflate.py")
    return [Job(["python3", script] + half) for half in split_in_two(files, weights)], 2


# ---------------------------------------------------------------------------------------------
# Per-process peaks of a process tree (untimed runs only: the polling costs a little CPU)
# ---------------------------------------------------------------------------------------------


def process_tree(root_pid):
    """The pids of root_pid and all its descendants, from /proc/*/stat."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(name))
    tree, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def high_water_mark(pid):
    """VmHWM of a process in KiB: its own peak resident set since exec (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_watching_tree(job, interval=0.02):
    """Runs one job, polling the VmHWM of every process in its tree until it exits.

    VmHWM only grows, so the last sample of each process is its peak, short of what it gained in
    its final `interval` (Glance's workers sit idle before they exit, so that is nothing).
    Returns (exit code, root's peak KiB, {pid: peak KiB} of the descendants).
    """
    root = spawn(job, os.devnull)
    peaks = {}
    while True:
        for pid in process_tree(root):
            peaks[pid] = max(peaks.get(pid, 0), high_water_mark(pid))
        done, status = os.waitpid(root, os.WNOHANG)
        if done:
            break
        time.sleep(interval)
    root_peak = peaks.pop(root, 0)
    return os.waitstatus_to_exitcode(status), root_peak, peaks


def run_alone(description, measure, format_lines, targets):
    """The command line of an extra run by itself (`python3 bench/NAME.py`): --glance, --corpus,
    --json; prints the report's lines and each target's PASS or FAIL. Returns the exit status."""
    import argparse
    import json
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--glance", default=os.environ.get("GLANCE", ".build-static/release/glance"))
    parser.add_argument("--corpus", default=os.path.join(root, "bench", "work", "corpus-small"))
    parser.add_argument("--json", help="write the result here as JSON")
    args = parser.parse_args()
    glance = args.glance if os.path.isabs(args.glance) else os.path.abspath(os.path.join(root, args.glance))
    result = measure(glance, args.corpus)
    for line in format_lines(result):
        print(line)
    for target, measured, _, passed in targets(result):
        print(f"  {'PASS' if passed else 'FAIL'}  {target}: {measured}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0
