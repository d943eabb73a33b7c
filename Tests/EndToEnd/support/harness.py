"""What the Python tests of Glance share: the checkout's folders, a child process with its output
kept in a file, free ports, polling with a deadline, a temporary container filled from TestAssets/
and `glance generate` run on it, the size of a PNG.

A plain module, not a package: each script puts this folder first on its path and imports it,

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
    import harness

Only the Python standard library is used.
"""

import os
import shutil
import signal
import socket
import struct
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ASSETS = ROOT / "TestAssets"

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"IEND\xaeB`\x82"


class TestError(Exception):
    """The test cannot go on (setup failed, a process died): exit 2."""


class CheckFailed(Exception):
    """One check's failure; its message says what was expected and what was found."""


def log(message):
    print(message, flush=True)


def verdict(failures):
    """Logs each failure and the outcome; the suite's exit status: 0 when every check passed, 1 when
    one failed."""
    for failure in failures:
        log(f"FAIL: {failure}")
    log("all checks passed" if not failures else f"{len(failures)} check(s) failed")
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------
# Processes


def tail_of(path, lines=20):
    """The last `lines` lines of the text file at `path` ("" when it cannot be read)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class Process:
    """A child process in its own process group, its output in `log_dir`/`name`.log; stopped by
    its id."""

    def __init__(self, name, argv, log_dir, env=None):
        self.name = name
        self.output_path = Path(log_dir) / f"{name}.log"
        self.output = open(self.output_path, "wb")
        self.popen = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=self.output, stderr=subprocess.STDOUT,
            start_new_session=True, env=env)

    @property
    def pid(self):
        return self.popen.pid

    @property
    def returncode(self):
        return self.popen.returncode

    def alive(self):
        return self.popen.poll() is None

    def text(self):
        try:
            return self.output_path.read_text(errors="replace")
        except OSError:
            return ""

    def tail(self, lines=20):
        return tail_of(self.output_path, lines)

    def stop(self, grace=5.0):
        """SIGTERM to the process group (a graceful stop), SIGKILL if it is still there."""
        if self.alive():
            signal_group(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        # Children (glance-renderer, a browser's helpers) share the group: make sure none is left.
        signal_group(self.popen.pid, signal.SIGKILL)
        try:
            self.popen.wait(grace)
        except subprocess.TimeoutExpired:
            pass
        self.output.close()


def signal_group(pid, number):
    """Sends signal `number` to the process group that `pid` leads; quiet when it is gone."""
    try:
        os.killpg(pid, number)
    except (ProcessLookupError, PermissionError):
        pass


def kill_processes_mentioning(marker):
    """Kills processes whose command line holds `marker` (a temporary folder of the test's own),
    by pid: a process that left its parent's process group must not outlive the test."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in command:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on just now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(what, predicate, timeout, interval=0.1, ignore=()):
    """Polls `predicate` until it returns a true value (returned) or `timeout` seconds pass
    (CheckFailed naming `what`, with the last value or error seen). Exceptions of the classes in
    `ignore` count as a false value (the last one is named by its class and first line); any
    other goes through."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            value = predicate()
            if value:
                return value
            last = repr(value)
        except ignore as error:
            lines = str(error).strip().splitlines()
            last = f"{type(error).__name__}: {lines[0] if lines else ''}"
        if time.monotonic() >= deadline:
            raise CheckFailed(f"{what}: not so after {timeout:g} s (last: {last})")
        time.sleep(interval)


# ---------------------------------------------------------------------------------------------
# Glance and its containers


def find_glance(path):
    """The glance executable at `path`, resolved, once it is known that glance-renderer is beside
    it (TestError otherwise)."""
    glance = Path(path)
    if not glance.is_file() or not (glance.parent / "glance-renderer").is_file():
        raise TestError(f"{glance} (with glance-renderer beside it) not found: build Glance first (swift build)")
    return glance.resolve()


def make_container(container, documents, assets=ASSETS):
    """Creates the folder `container` and copies in `documents` (name in the container, folders
    allowed -> file under `assets`)."""
    container = Path(container)
    container.mkdir(parents=True, exist_ok=True)
    for name, source in documents.items():
        (container / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(assets) / source, container / name)


def generate(glance, container, timeout=120):
    """Runs `glance generate CONTAINER --quiet` and returns its CompletedProcess (text output).
    Exit 1 (some documents failed) is the caller's to judge; 2 and up, or no end within `timeout`
    seconds, is a TestError."""
    try:
        result = subprocess.run([str(glance), "generate", str(container), "--quiet"],
                                capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TestError(f"glance generate did not finish within {timeout} s") from None
    if result.returncode not in (0, 1):
        raise TestError(f"glance generate exited {result.returncode}:\n{result.stderr}")
    return result


# ---------------------------------------------------------------------------------------------
# Files


def png_size(data, complete=False):
    """(width, height) from a PNG's IHDR, or None when `data` is not a PNG (or, with `complete`,
    does not end with the IEND chunk)."""
    if data[:8] != PNG_SIGNATURE or data[12:16] != b"IHDR" or len(data) < 24:
        return None
    if complete and not data.endswith(PNG_END):
        return None
    return struct.unpack(">II", data[16:24])
