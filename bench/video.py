#!/usr/bin/env python3
"""Videos: `glance generate` against ffmpegthumbnailer and against the ffmpeg command line, on a
corpus of clips made here, timed in turn; the renderers' peak memory; and the time to one
thumbnail of a two-hour file against that of a ten-second one.

    python3 bench/video.py [--glance PATH] [--json OUT]

(run alone: this measurement only; `make bench` runs it among the extras.)

The corpus, made once into bench/work/video/ (AV1 and 2160p encoding take a few minutes): ffmpeg's
testsrc2 pattern with noise over it (so that frames cost what a camera's do to decode) at 25 fps,
at the bit rates phones record at (1080p: H.264 16 Mbit/s, HEVC and VP9 8, AV1 6; 2160p: H.264 45,
HEVC 30),
  1080p: H.264 (x264 veryfast, a key frame every 2 s), HEVC (x265 ultrafast, 8-bit), VP9 (libvpx
         realtime), AV1 (libaom, cpu-used 8), 10 s each; H.264 of 60 s, and of 10 min with a key
         frame every 10 s (a long GOP);
  2160p: H.264 and 10-bit HEVC, 10 s each.
And for the long-file measure, a 10-second 1080p H.264 clip at 300 kbit/s and the same clip
looped to two hours (`-stream_loop`, copied, 270 MB).

The tools, each over every clip, two at a time (the machine's cores): `glance generate --jobs 2`
(all its sizes); `ffmpegthumbnailer -s 1024 -t 10%` (its default seek, 10% in), writing a JPEG;
`ffmpeg -ss T -i F -frames:v 1 -vf scale=...` at 10% of each clip's duration, writing a JPEG.
Targets: Glance >= 2x ffmpegthumbnailer and >= 1.5x the ffmpeg command line; the two-hour file's
thumbnail within 2x the ten-second one's time.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import tools

ROUNDS = 3
CORPUS = Path(tools.BENCH_DIR) / "work" / "video"
LONG = Path(tools.BENCH_DIR) / "work" / "video-long"

FFMPEG = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]


def pattern(size, seconds):
    """testsrc2 with noise over it: a camera's frame costs more to decode than a flat pattern's."""
    return ["-f", "lavfi", "-i", f"testsrc2=size={size}:rate=25:duration={seconds},noise=alls=12:allf=t"]


def rate(bits):
    """A camera's bit rate, held: the noise would take any rate it is given."""
    return ["-b:v", bits, "-maxrate", bits, "-bufsize", bits]


# At the bit rates phones record at: 1080p H.264 16 Mbit/s, HEVC 8; 2160p H.264 45, HEVC 30.
CLIPS = {
    "h264-1080p-10s.mp4": pattern("1920x1080", 10) + ["-c:v", "libx264", "-preset", "veryfast", "-g", "50",
                                                      "-pix_fmt", "yuv420p", *rate("16M")],
    "hevc-1080p-10s.mp4": pattern("1920x1080", 10) + ["-c:v", "libx265", "-preset", "ultrafast", "-g", "50",
                                                      "-x265-params", "log-level=error", "-tag:v", "hvc1",
                                                      *rate("8M")],
    "vp9-1080p-10s.webm": pattern("1920x1080", 10) + ["-c:v", "libvpx-vp9", "-deadline", "realtime",
                                                      "-cpu-used", "8", "-g", "50", *rate("8M")],
    "av1-1080p-10s.mp4": pattern("1920x1080", 10) + ["-c:v", "libaom-av1", "-cpu-used", "8", "-usage", "realtime",
                                                     "-g", "50", *rate("6M")],
    "h264-1080p-60s.mp4": pattern("1920x1080", 60) + ["-c:v", "libx264", "-preset", "ultrafast", "-g", "50",
                                                      "-pix_fmt", "yuv420p", *rate("16M")],
    "h264-2160p-10s.mp4": pattern("3840x2160", 10) + ["-c:v", "libx264", "-preset", "ultrafast", "-g", "50",
                                                      "-pix_fmt", "yuv420p", *rate("45M")],
    "hevc10-2160p-10s.mkv": pattern("3840x2160", 10) + ["-c:v", "libx265", "-preset", "ultrafast", "-g", "50",
                                                        "-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error",
                                                        *rate("30M")],
}


def make_corpus(log):
    """bench/work/video/ and bench/work/video-long/, made once (a `.made` stamp beside each)."""
    stamp = CORPUS.parent / "video-2.made"  # 2: at phones' bit rates
    if not stamp.exists():
        shutil.rmtree(CORPUS, ignore_errors=True)
        CORPUS.mkdir(parents=True)
        for name, arguments in CLIPS.items():
            log(f"  video: making {name}")
            subprocess.run([*FFMPEG, *arguments, str(CORPUS / name)], check=True)
        # Ten minutes: the 60-second clip's pattern at a key frame every 10 s, looped ten times.
        with tempfile.TemporaryDirectory(prefix="glance-video-") as scratch:
            minute = Path(scratch) / "minute.mp4"
            subprocess.run([*FFMPEG, *pattern("1920x1080", 60), "-c:v", "libx264", "-preset", "ultrafast", "-g",
                            "250", "-pix_fmt", "yuv420p", *rate("16M"), str(minute)], check=True)
            subprocess.run([*FFMPEG, "-stream_loop", "9", "-i", str(minute), "-c", "copy",
                            str(CORPUS / "h264-1080p-10min-gop10s.mp4")], check=True)
        stamp.write_text("")
    long_stamp = CORPUS.parent / "video-long.made"
    if not long_stamp.exists():
        shutil.rmtree(LONG, ignore_errors=True)
        LONG.mkdir(parents=True)
        log("  video: making the ten-second and two-hour clips")
        short = LONG / "ten-seconds.mp4"
        subprocess.run([*FFMPEG, *pattern("1920x1080", 10), "-c:v", "libx264", "-preset", "veryfast", "-b:v",
                        "300k", "-g", "50", "-pix_fmt", "yuv420p", str(short)], check=True)
        subprocess.run([*FFMPEG, "-stream_loop", "719", "-i", str(short), "-c", "copy", str(LONG / "two-hours.mp4")],
                       check=True)
        long_stamp.write_text("")
    return sorted(str(path) for path in CORPUS.iterdir())


def duration(path):
    output = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                            check=True, capture_output=True, text=True).stdout
    return float(output.strip())


def measure(glance, corpus=None, log=print, cores=2):
    if not shutil.which("ffmpegthumbnailer") or not shutil.which("ffmpeg"):
        log("  video: not measured: ffmpegthumbnailer and ffmpeg are needed (make bench installs them)")
        return None
    files = make_corpus(log)
    weights = {path: os.path.getsize(path) for path in files}
    durations = {path: duration(path) for path in files}
    halves = tools.split_in_two(files, weights)

    def per_file(make):
        """Each half of the files in a shell loop of its own: two processes at a time."""
        def jobs(out):
            return [tools.Job(["sh", "-c", make(out), "sh", *half]) for half in halves], 2
        return jobs

    def thumbnailer(out):
        return f'for f; do ffmpegthumbnailer -s 1024 -t 10% -i "$f" -o "{out}/$(basename "$f").jpg" || exit 1; done'

    def command_line(out):
        # The seek is each file's 10%: the shell reads it from a table written once.
        return (f'for f; do t=$(grep -F "$f " "{table}" | cut -d" " -f2); '
                f'ffmpeg -hide_banner -loglevel error -y -ss "$t" -i "$f" -frames:v 1 '
                f'-vf "scale=1024:1024:force_original_aspect_ratio=decrease" "{out}/$(basename "$f").jpg" '
                f'|| exit 1; done')

    plan = {
        "glance": lambda out: tools.glance_generate(glance, str(CORPUS), os.path.join(out, "store"), cores,
                                                    os.path.join(out, "summary.json")),
        "ffmpegthumbnailer": per_file(thumbnailer),
        "ffmpeg": per_file(command_line),
    }
    tools.warm_page_cache(files)
    with tempfile.TemporaryDirectory(prefix="glance-video-bench-") as work:
        table = os.path.join(work, "seeks.txt")
        with open(table, "w") as f:
            for path in files:
                f.write(f"{path} {0.1 * durations[path]:.3f}\n")
        seconds, peaks, failures = tools.time_in_turn(plan, ROUNDS, work, len(files), log=log, label="video")
    with tempfile.TemporaryDirectory(prefix="glance-video-peak-") as work:
        jobs, _ = tools.glance_generate(glance, str(CORPUS), os.path.join(work, "store"), cores,
                                        os.path.join(work, "summary.json"))
        _, coordinator, renderers = tools.run_watching_tree(jobs[0])
    medians = {tool: statistics.median(values) for tool, values in seconds.items()}
    long_times = measure_long(glance)
    result = {
        "files": len(files), "seconds": medians,
        "versus_thumbnailer": medians["ffmpegthumbnailer"] / medians["glance"],
        "versus_ffmpeg": medians["ffmpeg"] / medians["glance"],
        "peak_mib": {"renderer": max(renderers.values(), default=0) / 1024, "coordinator": coordinator / 1024,
                     "ffmpegthumbnailer": peaks["ffmpegthumbnailer"] / 1024, "ffmpeg": peaks["ffmpeg"] / 1024},
        "long": long_times,
        "problems": [f"{tool}: {problem}" for tool, found in failures.items() for problem in found],
    }
    return result


def measure_long(glance, rounds=5):
    """`glance thumbnail` of the ten-second clip and of the two-hour one, in turn: median seconds."""
    times = {"ten-seconds": [], "two-hours": []}
    with tempfile.TemporaryDirectory(prefix="glance-video-long-") as work:
        for _ in range(rounds):
            for name in times:
                job = tools.Job([glance, "thumbnail", str(LONG / f"{name}.mp4"), "-o", os.path.join(work, "t.jpg")])
                timing = tools.run_jobs([job])
                if timing.failures:
                    return {"problem": f"{name}: {timing.failures[0]}"}
                times[name].append(timing.seconds)
    return {name: statistics.median(values) for name, values in times.items()}


def format_lines(result):
    if not result:
        return []
    seconds, peak, long = result["seconds"], result["peak_mib"], result["long"]
    lines = [f"  video: {result['files']} clips (1080p and 2160p; H.264, HEVC, VP9, AV1; 10 s to 10 min): "
             f"glance {seconds['glance']:.2f} s, ffmpegthumbnailer {seconds['ffmpegthumbnailer']:.2f} s "
             f"({result['versus_thumbnailer']:.2f}x), ffmpeg -ss {seconds['ffmpeg']:.2f} s "
             f"({result['versus_ffmpeg']:.2f}x)",
             f"    peak memory: a renderer {peak['renderer']:.0f} MiB (coordinator {peak['coordinator']:.0f}); "
             f"ffmpegthumbnailer {peak['ffmpegthumbnailer']:.0f} MiB, ffmpeg {peak['ffmpeg']:.0f} MiB"]
    if "problem" in long:
        lines.append(f"    two-hour file: {long['problem']}")
    else:
        lines.append(f"    one thumbnail: a two-hour file {long['two-hours']:.3f} s, a ten-second one "
                     f"{long['ten-seconds']:.3f} s ({long['two-hours'] / long['ten-seconds']:.2f}x)")
    lines += [f"    problem: {problem}" for problem in result["problems"][:3]]
    return lines


def targets(result):
    if not result:
        return []
    clean = not result["problems"]
    found = [("video: glance >= 2x ffmpegthumbnailer", f"{result['versus_thumbnailer']:.2f}x",
              2 / result["versus_thumbnailer"], result["versus_thumbnailer"] >= 2 and clean),
             ("video: glance >= 1.5x ffmpeg -ss T -frames:v 1", f"{result['versus_ffmpeg']:.2f}x",
              1.5 / result["versus_ffmpeg"], result["versus_ffmpeg"] >= 1.5 and clean)]
    long = result["long"]
    if "problem" not in long:
        ratio = long["two-hours"] / long["ten-seconds"]
        found.append(("video: a two-hour file's thumbnail within 2x a ten-second one's", f"{ratio:.2f}x",
                      ratio / 2, ratio <= 2))
    return found


def main():
    return tools.run_alone(__doc__.split("\n")[0], measure, format_lines, targets)


if __name__ == "__main__":
    sys.exit(main())
