#!/usr/bin/env python3
"""`glance list --preview` in real terminals: xterm (as a VT340, which draws sixel) under Xvfb, and
tmux (symbols: a multiplexer does not pass pictures through).

Makes a container of solid-colour PNGs (red, green, blue, yellow; written here), a photo and a
broken PNG from TestAssets/, and generates its thumbnails. Then:

- xterm: runs `glance list --preview -v` in it (no mode named: Glance asks the terminal), takes a
  screenshot of the screen (ImageMagick's `import`), and checks that Glance chose sixel because the
  terminal said so, and that each solid colour covers a picture's area of the screen (a picture
  box is 20 cells wide; the screenshot is kept in .build/terminal-screenshots/ to look at);
- tmux: runs the same in a detached session, reads the pane back with its colours
  (`capture-pane -e`), and checks that Glance chose symbols because of tmux, that the pane holds
  each colour as 24-bit SGR colour, the names and states, and no picture protocol's sequence.

    python3 Tests/EndToEnd/Terminal/test_terminal.py --glance .build/debug/glance

Exit status: 0 when every check passes, 1 when one fails, 2 when the test could not run.
"""

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import harness  # noqa: E402
from harness import CheckFailed, Process, TestError, log, wait_for  # noqa: E402

COLOURS = {"red": (230, 30, 30), "green": (30, 200, 60), "blue": (40, 60, 220), "yellow": (240, 220, 40)}
SCREENSHOTS = harness.ROOT / ".build" / "terminal-screenshots"


def solid_png(path, colour, size=96):
    """Writes a `size` x `size` PNG of one colour (8-bit RGB)."""
    row = b"\0" + bytes(colour) * size
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    data = harness.PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * size)) + chunk(b"IEND", b"")
    Path(path).write_bytes(data)


def read_ppm(path):
    """(width, height, pixels) of a binary PPM (P6, 8-bit)."""
    data = Path(path).read_bytes()
    fields = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not fields or fields.group(3) != b"255":
        raise TestError(f"{path}: not an 8-bit binary PPM")
    width, height = int(fields.group(1)), int(fields.group(2))
    return width, height, data[fields.end():fields.end() + width * height * 3]


def count_near(pixels, colour, tolerance=40):
    """How many pixels lie within `tolerance` of `colour` in each channel."""
    r, g, b = colour
    count = 0
    for index in range(0, len(pixels), 3):
        if abs(pixels[index] - r) <= tolerance and abs(pixels[index + 1] - g) <= tolerance \
                and abs(pixels[index + 2] - b) <= tolerance:
            count += 1
    return count


def free_display():
    """A display number no X server uses here."""
    for number in range(91, 140):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            return number
    raise TestError("no free X display number between 91 and 139")


def check_xterm(glance, container, work, failures):
    for tool in ("Xvfb", "xterm", "import"):
        if not shutil.which(tool):
            raise TestError(f"{tool} not found: make test-deps installs it")
    display = free_display()
    server = Process("xvfb", ["Xvfb", f":{display}", "-screen", "0", "1024x800x24", "-nolisten", "tcp"], work)
    terminal = None
    try:
        wait_for("Xvfb's socket", lambda: Path(f"/tmp/.X11-unix/X{display}").exists(), 20)
        env = dict(os.environ, DISPLAY=f":{display}")
        env.pop("TMUX", None)
        done = work / "xterm.done"
        script = f"'{glance}' list '{container}' --preview -v 2> '{work}/xterm.verbose'; echo $? > '{done}'; sleep 120"
        terminal = Process("xterm", [
            "xterm", "-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 256", "-geometry", "100x40+0+0",
            "-fa", "DejaVu Sans Mono", "-fs", "10", "-e", "sh", "-c", script], work, env=env)
        wait_for("glance list --preview to end in xterm", lambda: done.exists() and done.read_text().strip(), 60)
        time.sleep(1.0)
        status = done.read_text().strip()
        verbose = (work / "xterm.verbose").read_text(errors="replace")
        log(f"xterm: exit {status}; {verbose.strip()}")
        if status != "0":
            failures.append(f"xterm: glance list --preview exited {status}: {verbose}")
        if "sixel" not in verbose or "device attributes" not in verbose:
            failures.append(f"xterm: expected sixel found from the terminal's answer, got: {verbose.strip()}")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shot = SCREENSHOTS / "xterm-sixel.png"
        ppm = work / "xterm.ppm"
        for target in (shot, ppm):
            subprocess.run(["import", "-display", f":{display}", "-window", "root", "-depth", "8", str(target)],
                           check=True, capture_output=True, timeout=30)
        width, height, pixels = read_ppm(ppm)
        log(f"xterm: screenshot {width}x{height} in {shot.relative_to(harness.ROOT)}")
        # A picture box is 20 cells wide and as high in pixels; at 10-point DejaVu a cell is
        # at least 6 pixels wide, so a square picture covers at least 120x120 pixels.
        for name, colour in COLOURS.items():
            found = count_near(pixels, colour)
            if found < 120 * 120 * 0.8:
                failures.append(f"xterm: {name} covers {found} pixels of the screen, not a picture's area (11,520)")
            else:
                log(f"xterm: {name}: {found} pixels")
    finally:
        if terminal:
            terminal.stop()
        server.stop()


def check_tmux(glance, container, work, failures):
    if not shutil.which("tmux"):
        raise TestError("tmux not found: make test-deps installs it")
    socket = work / "tmux.socket"
    done = work / "tmux.done"
    script = f"'{glance}' list '{container}' --preview -v 2> '{work}/tmux.verbose'; echo $? > '{done}'; sleep 120"
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("TMUX", None)
    subprocess.run(["tmux", "-S", str(socket), "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "60", script],
                   check=True, env=env, timeout=30)
    try:
        wait_for("glance list --preview to end in tmux", lambda: done.exists() and done.read_text().strip(), 60)
        status = done.read_text().strip()
        verbose = (work / "tmux.verbose").read_text(errors="replace")
        log(f"tmux: exit {status}; {verbose.strip()}")
        if status != "0" or "tmux" not in verbose or "symbols" not in verbose:
            failures.append(f"tmux: expected symbols because of tmux (exit 0), got exit {status}: {verbose.strip()}")
        pane = subprocess.run(["tmux", "-S", str(socket), "capture-pane", "-e", "-p", "-S", "-", "-E", "-"],
                              check=True, capture_output=True, timeout=30).stdout.decode(errors="replace")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS / "tmux-symbols.txt").write_text(pane)
        colours = [tuple(int(v) for v in match) for match in re.findall(r"[34]8;2;(\d+);(\d+);(\d+)", pane)]
        for name, colour in COLOURS.items():
            near = [c for c in colours if all(abs(a - b) <= 30 for a, b in zip(c, colour))]
            if len(near) < 10:
                failures.append(f"tmux: {name} appears {len(near)} times as 24-bit colour in the pane")
        text = re.sub(r"\x1b\[[0-9;]*m", "", pane)
        for word in ["red.png", "yellow.png", "broken.png", "fresh", "failed"]:
            if word not in text:
                failures.append(f"tmux: the pane does not show {word!r}")
        for sequence, protocol in [("\x1bP", "sixel"), ("\x1b_G", "kitty"), ("\x1b]1337", "iTerm2")]:
            if sequence in pane:
                failures.append(f"tmux: the pane holds a {protocol} sequence")
        log(f"tmux: {len(colours)} colour sequences, {len(text.splitlines())} lines")
        # With allow-passthrough on and kitty outside (its variable inherited), kitty's pictures
        # are wrapped for tmux to pass out.
        subprocess.run(["tmux", "-S", str(socket), "set-option", "-g", "allow-passthrough", "on"], check=True,
                       timeout=30)
        through = work / "tmux-through.done"
        # util-linux's script gives glance a terminal of its own whose output it records: what
        # tmux would hand on is in the file.
        inner = f"KITTY_WINDOW_ID=1 '{glance}' list '{container}' --preview -v 2> '{work}/tmux-through.verbose'"
        script = (f"script -q -e -c \"{inner}\" '{work}/tmux-through.out' > /dev/null; echo $? > '{through}'; "
                  f"sleep 120")
        subprocess.run(["tmux", "-S", str(socket), "new-window", "-d", script], check=True, timeout=30)
        wait_for("glance list --preview to end in tmux with passthrough",
                 lambda: through.exists() and through.read_text().strip(), 60)
        verbose = (work / "tmux-through.verbose").read_text(errors="replace").strip()
        output = (work / "tmux-through.out").read_bytes()
        log(f"tmux with allow-passthrough: {verbose}")
        if "kitty pictures passed through tmux" not in verbose:
            failures.append(f"tmux with allow-passthrough and kitty outside: expected kitty passed through, got: {verbose}")
        wrapped = output.count(b"\x1bPtmux;\x1b\x1b_G")
        if wrapped != len(COLOURS) + 1:
            failures.append(f"tmux with allow-passthrough: {wrapped} wrapped kitty pictures, expected {len(COLOURS) + 1}")
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], capture_output=True, timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--glance", required=True, help="the glance executable (glance-renderer beside it)")
    arguments = parser.parse_args()
    try:
        glance = harness.find_glance(arguments.glance)
    except TestError as error:
        log(f"error: {error}")
        return 2
    work = Path(tempfile.mkdtemp(prefix="glance-terminal-"))
    failures = []
    try:
        container = work / "container"
        harness.make_container(container, {"photo.jpg": "jpeg/photo-baseline.jpg", "broken.png": "corrupt/bad-crc.png"})
        for name, colour in COLOURS.items():
            solid_png(container / f"{name}.png", colour)
        harness.generate(glance, container)
        check_xterm(glance, container, work, failures)
        check_tmux(glance, container, work, failures)
    except TestError as error:
        log(f"error: {error}")
        return 2
    except CheckFailed as error:
        failures.append(str(error))
    finally:
        harness.kill_processes_mentioning(str(work))
        shutil.rmtree(work, ignore_errors=True)
    return harness.verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
