#!/usr/bin/env python3
"""Runs Glance's libFuzzer targets (built by `make fuzz`) for a while each and reports.

Each fuzzer starts from the seed folders in TestAssets/ named below, keeps the inputs it finds
interesting in .build-fuzz/corpus/NAME/ (so a later run goes on from there), and writes any
input that crashes or upsets AddressSanitizer to .build-fuzz/findings/. Such an input belongs in
TestAssets/ with a test, once the bug is fixed. Exit status 1 if any fuzzer found something.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys

SEEDS = {
    "jpeg": ["jpeg", "orientation", "corrupt", "colour"],
    "png": ["png", "corrupt", "colour"],
    "pdf": ["pdf", "hostile", "corrupt"],
    "text": ["text", "collision", "samples", "compressed"],
    "webp": ["webp", "corrupt"],
    "gif": ["gif", "corrupt"],
    "tiff": ["tiff", "corrupt", "colour"],
    "heif": ["heif", "corrupt", "colour"],
    "svg": ["svg", "hostile", "corrupt"],
    "media": ["media", "hostile", "corrupt"],
    "raw": ["raw", "corrupt"],
    "archive": ["ebook", "comics", "office", "carried"],
    "bitmap": ["bitmaps", "icns", "pam", "qoi", "xpm", "hdr", "exr", "rasters", "paintings"],
    "blend": ["blender"],
    "mobi": ["mobi"],
    "jxl": ["jxl"],
    "psd": ["psd"],
    "djvu": ["djvu"],
    "postscript": ["postscript"],
    "xps": ["xps"],
    "font": ["fonts"],
    "carried": ["carried"],
    "jpeg2000": ["jpeg2000", "icns"],
    # Profiles made by TestAssets/generate.py, and those Debian ships (read in place, when there).
    "icc": ["fuzz/icc", "/usr/share/color/icc", "/usr/share/color/icc/ghostscript"],
    "renderer-reply": ["fuzz/renderer-reply"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=".build-fuzz", help="the fuzz build folder")
    parser.add_argument("--assets", default="TestAssets", help="the seed folders' parent")
    parser.add_argument("--seconds", type=int, default=60, help="seconds per fuzzer")
    parser.add_argument("--only", nargs="*", choices=sorted(SEEDS), help="run only these fuzzers")
    arguments = parser.parse_args()
    build = pathlib.Path(arguments.build)
    findings = build / "findings"
    findings.mkdir(parents=True, exist_ok=True)
    failed = False
    for name in arguments.only or SEEDS:
        corpus = build / "corpus" / name
        corpus.mkdir(parents=True, exist_ok=True)
        seeds = [str(pathlib.Path(arguments.assets) / folder) for folder in SEEDS[name]]
        seeds = [folder for folder in seeds if os.path.isdir(folder)]
        command = [
            str(build / "debug" / f"fuzz-{name}"),
            f"-max_total_time={arguments.seconds}",
            "-timeout=20",
            "-rss_limit_mb=4096",
            "-max_len=65536",
            "-print_final_stats=1",
            f"-artifact_prefix={findings}/{name}-",
            str(corpus),
        ] + seeds
        environment = dict(os.environ)
        # libFuzzer reports a crash with its own stack; the Swift runtime's backtracer would start
        # a process of its own that keeps the output pipe open after the fuzzer has died.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment["LSAN_OPTIONS"] = f"suppressions={pathlib.Path(__file__).parent / 'lsan-suppressions.txt'}"
        result = subprocess.run(command, capture_output=True, text=True, errors="replace", env=environment)
        executions = re.search(r"stat::number_of_executed_units:\s*(\d+)", result.stderr)
        count = int(executions.group(1)) if executions else 0
        written = [line for line in result.stderr.splitlines() if "Test unit written to" in line]
        # An input that took over 10 s (libFuzzer's slow-unit report) is kept for a look but is
        # no failure: under AddressSanitizer a large image's decode is that slow, and the renderers
        # have their own time and CPU limits. A crash, a leak or a sanitizer report is a failure.
        slow = [line for line in written if "slow-unit-" in line]
        found = [line for line in written if "slow-unit-" not in line]
        clean = result.returncode == 0 and not found
        if clean:
            verdict = "clean" + (f" ({len(slow)} slow input(s) kept: {'; '.join(slow)})" if slow else "")
        elif found:
            verdict = "FOUND: " + "; ".join(found)
        else:
            verdict = f"exit {result.returncode}"
        print(f"fuzz-{name}: {count} executions in {arguments.seconds} s, {verdict}", flush=True)
        if not clean:
            failed = True
            sys.stderr.write(result.stderr[-4000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
