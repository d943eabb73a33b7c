#!/usr/bin/env python3
"""Checks the README and the pages of docs/ against the tree and the program.

- Every relative link ([text](path), ![picture](path)) leads to a file of the tree.
- Every `--option` named in code spans is an option of glance (of some command of it, as its
  --help says), or one of the other programs' options the pages quote (FOREIGN below).

Run by `make docs` with the debug build: python3 docs/check_docs.py --glance .build/debug/glance
Prints one line a problem, and exits 1 when there is one.
"""

import argparse
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Options of other programs that the pages quote, each with the program.
FOREIGN = {
    "--size": "bubblewrap",
    "--ro-bind": "bubblewrap",
    "--bind": "bubblewrap",
    "--dev": "bubblewrap",
    "--proc": "bubblewrap",
    "--tmpfs": "bubblewrap",
    "--unshare-all": "bubblewrap",
    "--die-with-parent": "bubblewrap",
    "--new-session": "bubblewrap",
    "--seccomp": "bubblewrap",
    "--clearenv": "bubblewrap",
    "--setenv": "bubblewrap",
    "--chdir": "bubblewrap",
    "--symlink": "bubblewrap",
    "--ro-bind-try": "bubblewrap",
    "--dev-bind": "bubblewrap",
    "--encoding": "createdb",
    "--template": "createdb",
    "--owner": "createdb",
    "--export-dynamic-symbol": "the linker",
    "--build-tests": "swift build",
    "--skip-build": "swift test",
    "--strict": "swift format",
    "--in-place": "swift format",
    "--recursive": "swift format",
    "--no-install-recommends": "apt-get",
    "--now": "systemctl",
    "--path": "systemd-escape",
    "--net": "unshare",
    "--uts": "unshare",
    "--without": "bench/run.py",
}

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`]+)`")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def pages():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def broken_links(page):
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                yield f"{page.relative_to(ROOT)}:{number}: a link to {target}, which is not in the tree"


def subcommands(help_text):
    """The subcommands a --help lists under SUBCOMMANDS."""
    names, listing = [], False
    for line in help_text.splitlines():
        if line.startswith("SUBCOMMANDS:"):
            listing = True
            continue
        if listing:
            match = re.match(r"^  ([a-z][a-z0-9-]*)\s", line)
            if match:
                names.append(match.group(1))
            elif line and not line.startswith(" "):
                listing = False
    return names


def known_options(glance):
    """Every option of glance and of its commands, from their --help, and of glance-renderer
    (beside it), and ArgumentParser's own."""
    options, pending = {"--generate-completion-script", "--version"}, [[]]
    renderer = pathlib.Path(glance).with_name("glance-renderer")
    if renderer.exists():
        text = subprocess.run([renderer, "--help"], capture_output=True, text=True, check=False)
        options.update(OPTION.findall(text.stdout + text.stderr))
    while pending:
        command = pending.pop()
        text = subprocess.run(
            [glance, *command, "--help"], capture_output=True, text=True, check=False
        ).stdout
        options.update(OPTION.findall(text))
        pending.extend(command + [name] for name in subcommands(text) if name != "help")
    return options


def unknown_options(page, options):
    text = page.read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        for span in CODE.findall(line):
            for option in OPTION.findall(span):
                if option not in options and option not in FOREIGN:
                    yield f"{page.relative_to(ROOT)}:{number}: {option} is no option of glance's"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glance", required=True, help="the glance executable whose options count")
    arguments = parser.parse_args()
    options = known_options(arguments.glance)
    if len(options) < 20:
        print(f"check_docs: {arguments.glance} --help gave {len(options)} options: is it glance?")
        return 1
    problems = []
    for page in pages():
        problems += list(broken_links(page))
        problems += list(unknown_options(page, options))
    for problem in problems:
        print(problem)
    print(f"check_docs: {len(pages())} pages, {len(options)} options of glance, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
