#!/usr/bin/env python3
"""Checks docs/architecture.md against the code: for every module in its table, the Glance
modules and C shims the module's sources import (`import`, `internal import`, `@testable` and
the like) must be the ones the table's "depends on" column names, no more and no fewer. Run by
`make lint`; exits 1 naming each difference.

In the column a Glance module is named without its prefix (`Core` is GlanceCore, `Accounts`
GlanceAccounts), a C shim by its name (`CJPEG`); packages from elsewhere (GRDB, Hummingbird, …)
are not checked.

It also holds the rule that the commands other than `serve` need no web server: the files of
`glance user`, `share`, `watch` and `worker` import neither GlanceServer nor Hummingbird.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:class|struct|enum|func|protocol|typealias|var|let)\s+)?(\w+)", re.M)


def target_folders():
    """Every target's folder: Sources/LAYER/TARGET."""
    return sorted(folder for layer in (ROOT / "Sources").iterdir() if layer.is_dir()
                  for folder in layer.iterdir() if folder.is_dir())


def modules():
    """Every Swift module of Sources/ and its folder."""
    return {folder.name: folder for folder in target_folders() if any(folder.rglob("*.swift"))}


def internal_names():
    return {folder.name for folder in target_folders()}


def imported(folder, internal):
    names = set()
    for source in folder.rglob("*.swift"):
        names.update(name for name in IMPORT.findall(source.read_text()) if name in internal)
    names.discard(folder.name)
    return names


def documented(internal):
    """The table's rows: module -> the internal modules its "depends on" column names."""
    table = {}
    for line in (ROOT / "docs" / "architecture.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) < 4 or not cells[1].startswith("`"):
            continue
        names = re.findall(r"`([^`]+)`", cells[1])
        edges = set()
        for word in re.findall(r"[A-Za-z][A-Za-z0-9-]*", cells[2]):
            if word in internal:
                edges.add(word)
            elif "Glance" + word in internal:
                edges.add("Glance" + word)
        for name in names:
            table[name] = edges
    return table


# The commands' files that must not import the web server (`serve` is the only one that does).
NO_SERVER = ["UserCommand.swift", "ShareCommand.swift", "WatchCommand.swift", "WorkerCommand.swift"]


def server_free_commands():
    """The differences from the NO_SERVER rule."""
    failures = []
    for name in NO_SERVER:
        source = ROOT / "Sources" / "CLI" / "glance" / name
        if not source.exists():
            failures.append(f"Sources/CLI/glance/{name}: missing (the rule of check_architecture.py names it)")
            continue
        for module in sorted(set(IMPORT.findall(source.read_text())) & {"GlanceServer", "Hummingbird"}):
            failures.append(f"Sources/CLI/glance/{name} imports {module}: only glance serve has the web server")
    return failures


def main():
    internal = internal_names()
    table = documented(internal)
    failures = []
    for name, folder in modules().items():
        if name not in table:
            failures.append(f"{name}: not in docs/architecture.md's table of modules")
            continue
        actual = imported(folder, internal)
        for missing in sorted(actual - table[name]):
            failures.append(f"{name} imports {missing}, which docs/architecture.md does not show")
        for extra in sorted(table[name] - actual):
            failures.append(f"docs/architecture.md shows {name} depending on {extra}, which it does not import")
    failures += server_free_commands()
    for failure in failures:
        print(f"check_architecture: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
