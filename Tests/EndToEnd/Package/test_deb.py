#!/usr/bin/env python3
"""The Debian package: built by dist/build-deb.sh, checked by lintian, installed on this machine,
used, and removed.

    python3 Tests/EndToEnd/Package/test_deb.py --deb PATH

Checks: lintian reports no error; `dpkg -i` installs it (its Depends: are met here, since the
build machine has the libraries); the installed glance answers --version and makes a thumbnail of
a sample; `systemd-analyze verify` accepts the installed units (an instance of the watch
template); every option `glance serve --help` names is in the glance-serve(1) page, and so for
every command, and glance-renderer(1) against its --help; the completions are where bash, zsh and fish look; `dpkg --purge` removes every
file it installed. Runs as root (CI does; a test machine is what it installs on).

Exit status: 0 when every check passes, 1 when one fails, 2 when the test could not run.
"""

import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import harness  # noqa: E402
from harness import log  # noqa: E402

COMMANDS = ["thumbnail", "generate", "list", "show", "export", "gc", "hook", "watch", "serve", "worker", "queue",
            "user", "share", "status"]


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, **kwargs)


def options_in(text):
    """The long options a help text or page names."""
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", text))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deb", required=True, help="the .deb to check")
    arguments = parser.parse_args()
    deb = Path(arguments.deb).resolve()
    if os.geteuid() != 0:
        log("error: the package test installs the package: run it as root")
        return 2
    for tool in ("lintian", "dpkg", "systemd-analyze", "man"):
        if not shutil.which(tool):
            log(f"error: {tool} not found: make test-deps installs it")
            return 2
    if run(["dpkg-query", "-W", "-f=${Status}", "glance"]).stdout.endswith("installed"):
        log("error: a glance package is installed already; this test installs and removes its own")
        return 2
    failures = []
    lint = run(["lintian", "--allow-root", str(deb)])
    errors = [line for line in lint.stdout.splitlines() if line.startswith("E:")]
    warnings = [line for line in lint.stdout.splitlines() if line.startswith("W:")]
    log(f"lintian: {len(errors)} errors, {len(warnings)} warnings")
    failures += [f"lintian: {line}" for line in errors]
    contents = run(["dpkg-deb", "--contents", str(deb)]).stdout
    files = [line.split()[-1].lstrip(".") for line in contents.splitlines() if not line.startswith("d")]
    installed = run(["dpkg", "-i", str(deb)])
    if installed.returncode != 0:
        log(f"error: dpkg -i failed:\n{installed.stdout}{installed.stderr}")
        run(["dpkg", "--purge", "glance"])
        return 2
    work = Path(tempfile.mkdtemp(prefix="glance-deb-"))
    try:
        version = run(["/usr/bin/glance", "--version"])
        log(f"installed: {version.stdout.strip()}")
        if version.returncode != 0 or not version.stdout.startswith("glance "):
            failures.append(f"glance --version: {version.returncode} {version.stdout}{version.stderr}")
        shutil.copyfile(harness.ASSETS / "samples" / "photo.jpg", work / "photo.jpg")
        thumbnail = run(["/usr/bin/glance", "thumbnail", str(work / "photo.jpg"), "-o", str(work / "photo.png")])
        size = harness.png_size((work / "photo.png").read_bytes()) if (work / "photo.png").exists() else None
        said = thumbnail.stdout.split()[-1] if thumbnail.stdout.split() else ""
        if thumbnail.returncode != 0 or size is None or said != f"{size[0]}x{size[1]}" or max(size) > 1024:
            failures.append(f"glance thumbnail: exit {thumbnail.returncode}, {size}: {thumbnail.stderr.strip()}")
        else:
            log(f"thumbnail: {size[0]}x{size[1]}")
        if not run(["getent", "passwd", "glance"]).stdout:
            failures.append("postinst made no system user glance")
        units = ["/lib/systemd/system/glance-serve.service", "/lib/systemd/system/glance-worker.service",
                 "glance-watch@srv-documents.service"]
        verify = run(["systemd-analyze", "verify", *units])
        if verify.returncode != 0 or verify.stderr.strip():
            failures.append(f"systemd-analyze verify: {verify.returncode}: {verify.stderr.strip()}")
        else:
            log("units: systemd-analyze verify is content")
        for command in COMMANDS:
            page = run(["man", "-P", "cat", f"glance-{command}"], env=dict(os.environ, MANWIDTH="200"))
            helped = run(["/usr/bin/glance", command, "--help"]).stdout
            missing = sorted(options_in(helped) - options_in(page.stdout) - {"--help"})
            if page.returncode != 0:
                failures.append(f"man glance-{command}: {page.stderr.strip()}")
            elif missing:
                failures.append(f"glance-{command}(1) lacks {', '.join(missing)} that --help names")
        log(f"man pages: glance-{{{','.join(COMMANDS)}}}(1) checked against --help")
        # The renderer's page is written by hand (dist/glance-renderer.1): its options against its --help,
        # the debug triggers aside (a release build has none).
        page = run(["man", "-P", "cat", "glance-renderer"], env=dict(os.environ, MANWIDTH="200"))
        helped = run(["/usr/bin/glance-renderer", "--help"]).stdout
        missing = sorted(option for option in options_in(helped) - options_in(page.stdout) - {"--help"}
                         if not option.startswith("--debug-"))
        if page.returncode != 0:
            failures.append(f"man glance-renderer: {page.stderr.strip()}")
        elif missing:
            failures.append(f"glance-renderer(1) lacks {', '.join(missing)} that --help names")
        for path in ["/usr/share/bash-completion/completions/glance", "/usr/share/zsh/vendor-completions/_glance",
                     "/usr/share/fish/vendor_completions.d/glance.fish"]:
            if "serve" not in Path(path).read_text(errors="replace"):
                failures.append(f"{path} does not complete the commands")
        bash = run(["bash", "-c", "source /usr/share/bash-completion/completions/glance && complete -p glance"])
        if bash.returncode != 0:
            failures.append(f"bash cannot load the completion: {bash.stderr.strip()}")
    finally:
        purged = run(["dpkg", "--purge", "glance"])
        shutil.rmtree(work, ignore_errors=True)
    if purged.returncode != 0:
        failures.append(f"dpkg --purge: {purged.stdout}{purged.stderr}")
    left = [path for path in files if Path(path).exists()]
    if left:
        failures.append(f"left after purge: {left[:5]}")
    else:
        log(f"purged: the {len(files)} files are gone")
    return harness.verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
