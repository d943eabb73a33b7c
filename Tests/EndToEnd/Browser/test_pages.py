#!/usr/bin/env python3
"""The grid and preview pages of `glance serve` in a real browser.

Headless Chromium, driven through chromedriver by Selenium (Debian's `python3-selenium`). The
test fills a temporary container from TestAssets/, runs `glance generate` on it, serves it with
`glance serve --watch`, then checks the grid, the preview and its keys, that a hostile file name
stays text, that a new document appears without a reload, that stepping through the previews
never stalls with the browser's back/forward cache on, and saves screenshots at phone and desktop
widths.

    python3 Tests/EndToEnd/Browser/test_pages.py --glance .build/debug/glance

Exit status: 0 when every check passes, 1 when one fails (each failure is named), 2 when the test
could not run (no chromium, chromedriver or Selenium, glance would not start, overall timeout).
Needs the Debian packages `chromium`, `chromium-driver` and `python3-selenium` (`make test-deps`
installs them). When the `python3` that runs it cannot import Selenium (a python3 of its own
ahead of Debian's on the PATH), the test runs itself again under Debian's /usr/bin/python3.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import harness  # noqa: E402
from harness import ASSETS, ROOT, CheckFailed, Process, TestError, log  # noqa: E402

DEBIAN_PYTHON = "/usr/bin/python3"
try:
    from selenium import webdriver
    from selenium.common.exceptions import (
        NoAlertPresentException, UnexpectedAlertPresentException, UnknownMethodException, WebDriverException)
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.remote.remote_connection import RemoteConnection
except ImportError:
    # Debian's python3-selenium is installed for Debian's python3 only.
    if (__name__ == "__main__" and os.access(DEBIAN_PYTHON, os.X_OK)
            and os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON)):
        print(f"test_pages: {sys.executable} cannot import Selenium; running under {DEBIAN_PYTHON}",
              file=sys.stderr, flush=True)
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, str(Path(__file__).resolve()), *sys.argv[1:]])
    print("test_pages: cannot run: needs Selenium (Debian: apt-get install python3-selenium)", file=sys.stderr)
    sys.exit(2)

# The container: name in the container -> file in TestAssets/.
DOCUMENTS = {
    "photo.jpg": "samples/photo.jpg",
    "exif-rotated.jpg": "samples/exif-rotated.jpg",
    "report.pdf": "samples/report.pdf",
    "rotated.pdf": "samples/rotated.pdf",
    "screenshot.png": "samples/screenshot.png",
    "japanese.txt": "samples/japanese.txt",
    "notes.txt": "samples/README.txt",
    "truncated-header.jpg": "corrupt/truncated-header.jpg",
    "clip.webm": "media/vp9.webm",
    "budget.xlsx": "office/budget.xlsx",
    "comic.cbr": "comics/natural.cbr",
}
FAILED_DOCUMENT = "truncated-header.jpg"
FAILED_REASON = "truncated jpeg data"  # TestAssets/assets.tsv, compared without case
HOSTILE_NAME = "<img src=x onerror=alert(1)>.txt"
HOSTILE_TEXT = "A text file whose name is an HTML element.\n"
LIVE_NAME = "added-while-watching.png"
LIVE_SOURCE = "png/rgba8.png"
PREVIEW_SHOT = "photo.jpg"  # the document the preview screenshots show
LONG_PDF = "long.pdf"  # a PDF of LONG_PDF_PAGES pages this test writes, each saying its number
LONG_PDF_PAGES = 12
# A PDF longer than a preview's HTML holds (PreviewPage.inlinePageCount, 20): the page's script
# adds the rest in batches (pagesPerBatch, 50). Pages 61 to 70 are landscape.
LONGER_PDF = "longer.pdf"
LONGER_PDF_PAGES = 130
LONGER_PDF_LANDSCAPE = range(61, 71)
INLINE_PAGES = 20
CJK_TEXT = "japanese.txt"
VIDEO = "clip.webm"  # VP9 in WebM: a clip every browser plays
WORKBOOK = "budget.xlsx"  # three sheets, drawn by an office renderer (LibreOffice)
WORKBOOK_SHEETS = ["Budget", "Q2 figures", "Notes"]
STRIP_FRAMES = 8  # MediaDetails.stripLength
COMIC = "comic.cbr"  # a RAR comic book of three pages: page2 (red), page3 (green), page10 (blue)
COMIC_PAGE_COLOURS = ["red", "green", "blue"]
SIGN_IN_PASSWORD = "a passphrase for the browser test"

SIZES = {"desktop": (1440, 900), "phone": (390, 844)}

KEY_LEFT, KEY_RIGHT, KEY_ESCAPE = Keys.ARROW_LEFT, Keys.ARROW_RIGHT, Keys.ESCAPE

# How long one request to chromedriver may take (starting a session included) before it fails.
COMMAND_SECONDS = 60


def wait_for(what, predicate, timeout, interval=0.1):
    """harness.wait_for, a WebDriver error (no such element, a page still loading) counting as
    not so yet."""
    return harness.wait_for(what, predicate, timeout, interval, ignore=(WebDriverException,))


def describe(error):
    """A WebDriver error in one line: its kind and the first line of its message."""
    lines = (error.msg or "").strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


# ---------------------------------------------------------------------------------------------
# The test



def jpeg_size(data):
    """(width, height) from a JPEG's start-of-frame segment."""
    index = 2
    while index + 9 < len(data):
        if data[index] != 0xFF:
            index += 1
            continue
        marker = data[index + 1]
        length = int.from_bytes(data[index + 2:index + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[index + 7:index + 9], "big"), int.from_bytes(data[index + 5:index + 7], "big")
        index += 2 + length
    raise TestError("no JPEG frame header")


def numbered_pdf(count, landscape=()):
    """A PDF of `count` A4 pages, page N saying "Page N" in large type, those in `landscape` turned
    sideways (no library: the file is written out object by object)."""
    objects = []

    def add(body):
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    pages_id = len(objects) + 2 * count + 1
    kids = []
    for number in range(1, count + 1):
        text = b"BT /F1 96 Tf 120 500 Td (Page %d) Tj ET" % number
        content = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text))
        box = b"0 0 842 595" if number in landscape else b"0 0 595 842"
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [%s] /Contents %d 0 R "
                        b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, box, content, font)))
    assert add(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), count)) == pages_id
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for index, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (index, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    return bytes(out)

class PageTest:
    def __init__(self, args):
        self.args = args
        self.glance = Path(args.glance).resolve()
        self.results = []  # (name, error or None)
        self.processes = []
        self.services = []  # (name, chromedriver's Service), one a browser session
        self.temp = Path(tempfile.mkdtemp(prefix="glance-browser-"))
        self.container = self.temp / "container"
        self.profiles = self.temp / "chromium-profiles"
        self.browser_version = None
        self.shots = Path(args.screenshots)
        self.driver = None
        self.base = None
        self.order = []  # data-path of the grid's items, in order
        self.hrefs = {}  # data-path -> absolute preview URL, as the grid links it
        self.log_notes = []

    # -- set-up ------------------------------------------------------------------------------

    def make_container(self):
        harness.make_container(self.container, DOCUMENTS)
        (self.container / HOSTILE_NAME).write_text(HOSTILE_TEXT)
        (self.container / LONG_PDF).write_bytes(numbered_pdf(LONG_PDF_PAGES))
        (self.container / LONGER_PDF).write_bytes(numbered_pdf(LONGER_PDF_PAGES, LONGER_PDF_LANDSCAPE))
        self.documents = sorted(list(DOCUMENTS) + [HOSTILE_NAME, LONG_PDF, LONGER_PDF])
        # Exit 1: some documents failed, as the corrupt JPEG must (2 and up is a TestError).
        result = harness.generate(self.glance, self.container)
        others = [line for line in result.stderr.splitlines() if line and FAILED_DOCUMENT not in line]
        if others:
            raise TestError("glance generate reported unexpected failures:\n" + "\n".join(others))

    def start_glance(self, extra=(), name="glance-serve"):
        """Starts `glance serve` on the container with `extra` options; its URL."""
        process = Process(name, [
            str(self.glance), "serve", str(self.container), "--port", "0", "--log-level", "warning",
            *extra], self.temp)
        self.processes.append(process)

        def serving():
            if not process.alive():
                raise TestError(f"glance serve exited {process.returncode}:\n{process.tail()}")
            for line in process.text().splitlines():
                if line.startswith("serving ") and " at http://" in line:
                    return line.rsplit(" at ", 1)[1].strip()
            return None

        try:
            url = wait_for("glance serve prints its URL", serving, 30)
        except CheckFailed as error:
            raise TestError(f"{error}\n{process.tail()}") from None
        url = url if url.endswith("/") else url + "/"
        log(f"{name} at {url}")
        return url

    def find_browser(self):
        if self.args.chromium:
            self.chromium = shutil.which(self.args.chromium)
        else:
            self.chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        self.chromedriver = shutil.which(self.args.chromedriver or "chromedriver")
        if not self.chromium or not self.chromedriver:
            raise TestError("needs chromium and chromedriver (Debian: apt-get install chromium chromium-driver)")

    def open_session(self, name, back_forward_cache, page_load_seconds=30):
        """A new browser (its own profile) driven by a new chromedriver, its output in
        chromedriver-NAME.log."""
        width, height = SIZES["desktop"]
        options = webdriver.ChromeOptions()
        options.binary_location = self.chromium
        for argument in [
            "--headless=new",
            "--disable-gpu",
            f"--user-data-dir={self.profiles / name}",
            f"--window-size={width},{height}",
            # Containers often give /dev/shm only 64 MB, too little for Chromium's shared memory.
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
        ]:
            options.add_argument(argument)
        if not back_forward_cache:
            options.add_argument("--disable-features=BackForwardCache")
        if os.geteuid() == 0:
            # Chromium refuses to start as root with its sandbox on (the sandbox drops privileges
            # in ways that do not work for uid 0), and CI runs as root. The pages it loads come
            # from the glance this test just started on loopback.
            options.add_argument("--no-sandbox")
        options.page_load_strategy = "normal"
        # An alert() would stay open and the next command would fail with "unexpected alert
        # open": that is how a script run by a hostile name would show.
        options.unhandled_prompt_behavior = "dismiss and notify"
        options.timeouts = {"pageLoad": int(page_load_seconds * 1000), "script": 30000, "implicit": 0}
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # Requests to chromedriver never go through a proxy: everything here is loopback.
        options.ignore_local_proxy_environment_variables()
        # chromedriver in a process group of its own (the browser it starts joins it), so that
        # close() can make sure nothing of it is left.
        service = Service(executable_path=self.chromedriver,
                          log_file=open(self.temp / f"chromedriver-{name}.log", "wb"),
                          popen_kw={"start_new_session": True})
        self.services.append((name, service))
        driver = webdriver.Chrome(service=service, options=options)
        if not self.browser_version:
            self.browser_version = driver.capabilities.get("browserVersion")
            log(f"browser: {driver.capabilities.get('browserName')} {self.browser_version}")
        return driver

    # -- WebDriver -----------------------------------------------------------------------------

    def press(self, key):
        """One key down and up through the Actions API, to the focused element; then the actions
        are released."""
        actions = ActionChains(self.driver)
        actions.key_down(key).key_up(key).perform()
        actions.reset_actions()

    def alert_text(self):
        """The text of an open alert, or None when there is none."""
        try:
            return self.driver.switch_to.alert.text
        except NoAlertPresentException:
            return None

    def browser_log(self):
        """The console's entries since the last call (chromedriver's `goog:loggingPrefs`), or
        None when this chromedriver does not give them."""
        try:
            return self.driver.get_log("browser")
        except WebDriverException as error:
            if isinstance(error, UnknownMethodException) or any(
                    kind in (error.msg or "") for kind in ("unknown command", "unsupported operation")):
                return None
            raise

    # -- helpers -----------------------------------------------------------------------------

    def page_complete(self):
        return self.driver.execute_script("return document.readyState") == "complete"

    def load(self, url):
        self.driver.get(url)
        wait_for(f"{url} loads", self.page_complete, 30)

    def wait_for_images(self, what, timeout=20):
        """Scrolls the page's lazy images into view and waits until every one has loaded. The
        page replaces an image that fails with a 'No thumbnail' note, so notes are failures."""
        script = """
            const images = Array.from(document.querySelectorAll('main img'));
            window.scrollTo(0, document.documentElement.scrollHeight);
            for (const image of images) if (!image.complete) image.scrollIntoView({block: 'nearest'});
            const waiting = images.filter((image) => !(image.complete && image.naturalWidth > 0));
            return {count: images.length, waiting: waiting.map((image) => image.getAttribute('src'))};
        """
        state = {}

        def loaded():
            state.update(self.driver.execute_script(script))
            return not state["waiting"]

        try:
            wait_for(what, loaded, timeout, interval=0.2)
        except CheckFailed:
            raise CheckFailed(f"{what}: {len(state['waiting'])} of {state['count']} images not loaded "
                              f"after {timeout} s: {state['waiting']}") from None
        finally:
            self.driver.execute_script("window.scrollTo(0, 0)")
        return state["count"]

    def grid_items(self):
        return self.driver.execute_script("""
            return Array.from(document.querySelectorAll('li.item')).map((item) => ({
              path: item.dataset.path,
              href: item.querySelector('a.open') && item.querySelector('a.open').href,
              images: item.querySelectorAll('img').length,
            }));
        """)

    def check_browser_log(self, where):
        entries = self.browser_log()
        if entries is None:
            self.log_notes.append("chromedriver gave no browser log")
            return
        errors = []
        for entry in entries:
            message = entry.get("message", "")
            if entry.get("level") != "SEVERE":
                continue
            # Browsers ask for /favicon.ico on their own; glance has none (not the pages' doing).
            if "/favicon.ico" in message:
                self.log_notes.append(f"ignored: {message}")
                continue
            errors.append(message)
        if errors:
            raise CheckFailed(f"errors in the browser's console ({where}):\n  " + "\n  ".join(errors))

    def check(self, name, function):
        started = time.monotonic()
        try:
            function()
        except CheckFailed as error:
            self.results.append((name, str(error)))
            log(f"FAIL {name}: {error}")
            return False
        except WebDriverException as error:
            if isinstance(error, UnexpectedAlertPresentException):
                message = f"an alert opened, so a page ran a script: {describe(error)}"
            else:
                message = f"WebDriver: {describe(error)}"
            self.results.append((name, message))
            log(f"FAIL {name}: {message}")
            return False
        log(f"ok   {name} ({time.monotonic() - started:.1f} s)")
        self.results.append((name, None))
        return True

    # -- the checks --------------------------------------------------------------------------

    def check_grid(self):
        self.load(self.base)
        items = self.grid_items()
        paths = [item["path"] for item in items]
        if sorted(paths) != self.documents:
            raise CheckFailed(f"li.item data-paths {paths}, expected the {len(self.documents)} documents "
                              f"{self.documents}")
        self.order = paths
        self.hrefs = {item["path"]: item["href"] for item in items}
        images = self.wait_for_images("grid images load")
        if images != len(self.documents) - 1:
            raise CheckFailed(f"{images} images in the grid, expected {len(self.documents) - 1} "
                              "(one per document but the failed one)")
        failed = self.driver.execute_script("""
            const item = Array.from(document.querySelectorAll('li.item'))
              .find((item) => item.dataset.path === arguments[0]);
            if (!item) return null;
            const note = item.querySelector('.no-thumbnail');
            return {note: note && note.textContent.trim(), images: item.querySelectorAll('img').length};
        """, FAILED_DOCUMENT)
        if failed is None:
            raise CheckFailed(f"no li.item with data-path {FAILED_DOCUMENT!r}")
        if failed["images"]:
            raise CheckFailed(f"the failed document's tile has {failed['images']} img element(s)")
        if not failed["note"] or FAILED_REASON not in failed["note"].lower():
            raise CheckFailed(f"the failed document's .no-thumbnail says {failed['note']!r}, "
                              f"expected its reason ({FAILED_REASON!r})")
        notes = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('li.item .no-thumbnail')).length")
        if notes != 1:
            raise CheckFailed(f"{notes} tiles show .no-thumbnail, expected only the failed document's")

    def hostile_name_checks(self, where, name_selector):
        found = self.driver.execute_script("""
            const [name, selector] = arguments;
            let element = null;
            if (selector === 'grid') {
              const item = Array.from(document.querySelectorAll('li.item'))
                .find((item) => item.dataset.path === name);
              element = item && item.querySelector('.name');
            } else {
              element = document.querySelector(selector);
            }
            return {
              text: element && element.textContent,
              children: element ? element.childElementCount : null,
              xImages: Array.from(document.images).filter((image) =>
                image.getAttribute('src') === 'x' || image.src.endsWith('/x')).length,
              handlers: document.querySelectorAll('[onerror]').length,
            };
        """, HOSTILE_NAME, name_selector)
        if found["text"] is None:
            raise CheckFailed(f"{where}: no element shows the name {HOSTILE_NAME!r}")
        if found["text"] != HOSTILE_NAME:
            raise CheckFailed(f"{where}: the name shows as {found['text']!r}, expected {HOSTILE_NAME!r}")
        if found["children"]:
            raise CheckFailed(f"{where}: the name's element has {found['children']} element children")
        if found["xImages"] or found["handlers"]:
            raise CheckFailed(f"{where}: the name became markup ({found['xImages']} img src=x, "
                              f"{found['handlers']} onerror attributes)")
        alert = self.alert_text()
        if alert is not None:
            raise CheckFailed(f"{where}: an alert is open ({alert!r}): a script ran")

    def check_hostile_name(self):
        self.load(self.base)
        self.hostile_name_checks("grid", "grid")
        self.load(self.hrefs[HOSTILE_NAME])
        self.hostile_name_checks("preview", ".bar h1")
        self.check_browser_log("grid and the hostile name's preview")

    def check_preview_keys(self):
        if len(self.order) < 3:
            raise CheckFailed("the grid check found no order to step through")
        first, second = self.order[0], self.order[1]
        self.load(self.base)
        link = self.find_required("li.item a.open")
        link.click()
        wait_for(f"the click opens {first!r}'s preview", lambda: self.driver.current_url == self.hrefs[first], 15)
        wait_for("the preview is loaded", self.page_complete, 15)
        self.wait_preview_image(first)
        # Keys go to the focused element: the body, not a link the click left focused.
        self.driver.execute_script("if (document.activeElement) document.activeElement.blur()")
        self.press(KEY_RIGHT)
        wait_for(f"ArrowRight opens {second!r}'s preview ({self.hrefs[second]})",
                 lambda: self.driver.current_url == self.hrefs[second], 15)
        wait_for("the preview is loaded", self.page_complete, 15)
        self.press(KEY_LEFT)
        wait_for(f"ArrowLeft goes back to {first!r}'s preview ({self.hrefs[first]})",
                 lambda: self.driver.current_url == self.hrefs[first], 15)
        wait_for("the preview is loaded", self.page_complete, 15)
        self.press(KEY_ESCAPE)
        wait_for(f"Escape goes back to the grid ({self.base})", lambda: self.driver.current_url == self.base, 15)

    def find_required(self, selector):
        elements = self.driver.find_elements(By.CSS_SELECTOR, selector)
        if not elements:
            raise CheckFailed(f"no element matches {selector!r}")
        return elements[0]

    def wait_preview_image(self, path):
        if path.endswith(".txt"):
            # A text's preview is the text itself.
            wait_for(f"{path!r}'s #text shows", lambda: self.driver.execute_script(
                "const t = document.getElementById('text'); return t && t.textContent.length > 0"), 20)
            return
        image = self.find_required("#preview-image")
        wait_for(f"{path!r}'s #preview-image loads",
                 lambda: image.get_property("complete") and image.get_property("naturalWidth") > 0,
                 20)

    def check_preview_links(self):
        problems = []
        for index, path in enumerate(self.order):
            self.load(self.hrefs[path])
            found = self.driver.execute_script("""
                const link = (id) => { const a = document.getElementById(id); return a ? a.href : null; };
                const reason = document.getElementById('reason');
                return {path: document.body.dataset.path, previous: link('previous'), next: link('next'),
                        up: link('up'), image: !!document.getElementById('preview-image'),
                        player: !!document.getElementById('player'),
                        text: !!document.getElementById('text'), reason: reason && reason.textContent};
            """)
            expected_previous = self.hrefs[self.order[index - 1]] if index > 0 else None
            expected_next = self.hrefs[self.order[index + 1]] if index + 1 < len(self.order) else None
            if found["path"] != path:
                problems.append(f"{path!r}: body data-path is {found['path']!r}")
            if found["previous"] != expected_previous:
                problems.append(f"{path!r}: #previous is {found['previous']!r}, expected {expected_previous!r}")
            if found["next"] != expected_next:
                problems.append(f"{path!r}: #next is {found['next']!r}, expected {expected_next!r}")
            if found["up"] != self.base:
                problems.append(f"{path!r}: #up is {found['up']!r}, expected {self.base!r}")
            if path == FAILED_DOCUMENT:
                if found["image"] or FAILED_REASON not in (found["reason"] or "").lower():
                    problems.append(f"{path!r}: expected #reason with {FAILED_REASON!r} and no image, found "
                                    f"image={found['image']} reason={found['reason']!r}")
            elif path.endswith(".txt") and not found["text"]:
                problems.append(f"{path!r}: no #text")
            elif path == VIDEO:
                if not found["player"]:
                    problems.append(f"{path!r}: no #player")
            elif not path.endswith(".txt") and not found["image"]:
                problems.append(f"{path!r}: no #preview-image")
            else:
                try:
                    self.wait_preview_image(path)
                except CheckFailed as error:
                    problems.append(str(error))
        if problems:
            raise CheckFailed("\n  " + "\n  ".join(problems))

    def scroll_to_page(self, number):
        """Brings page `number` of the preview's stack to the top of the window."""
        self.driver.execute_script(
            "document.querySelector(`#page-stack img[data-page='${arguments[0]}']`).scrollIntoView()", number)

    def shown_page(self):
        """What "Page N of M" says N is."""
        return self.driver.execute_script("return document.getElementById('page-number').textContent")

    def check_pdf_pages(self):
        """The preview of a multi-page PDF stacks every page, each laid out before it loads;
        scrolled to the end, every page has loaded, in order, and the page count follows."""
        self.load(self.hrefs[LONG_PDF])
        pages = self.driver.execute_script("""
            return [...document.querySelectorAll('#page-stack img')].map(
                (image) => [Number(image.dataset.page), image.getAttribute('width'), image.getAttribute('height'),
                            image.getBoundingClientRect().height]);
        """)
        if [page[0] for page in pages] != list(range(1, LONG_PDF_PAGES + 1)):
            raise CheckFailed(f"#page-stack holds pages {[page[0] for page in pages]}, "
                              f"expected 1 to {LONG_PDF_PAGES}")
        if any(not page[1] or not page[2] or page[3] < 100 for page in pages):
            raise CheckFailed(f"a page has no laid-out box before it loads: {pages}")
        # j steps to page 2.
        self.driver.execute_script("if (document.activeElement) document.activeElement.blur()")
        self.press("j")
        wait_for("j shows page 2 of the count", lambda: self.shown_page() == "2", 10)
        # Page by page, as a reader scrolls: each is brought into view and must load there (a
        # lazy image scrolled past between two frames is never seen by the browser, so the
        # check waits for each before going on).
        for number in range(1, LONG_PDF_PAGES + 1):
            self.scroll_to_page(number)
            try:
                wait_for(f"page {number} loads once in view", lambda: self.driver.execute_script("""
                    const image = document.querySelector(`#page-stack img[data-page='${arguments[0]}']`);
                    return image.complete && image.naturalWidth > 0;
                """, number), 20)
            except CheckFailed as error:
                state = self.driver.execute_script("""
                    const image = document.querySelector(`#page-stack img[data-page='${arguments[0]}']`);
                    const rect = image.getBoundingClientRect();
                    return {src: image.currentSrc, complete: image.complete, width: image.naturalWidth,
                            top: rect.top, height: rect.height, innerHeight: window.innerHeight};
                """, number)
                raise CheckFailed(f"{error}: {state}") from None
        self.driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")

        def all_loaded():
            return self.driver.execute_script("""
                return [...document.querySelectorAll('#page-stack img')].every(
                    (image) => image.complete && image.naturalWidth > 0);
            """)

        wait_for("every page of the stack has loaded", all_loaded, 10)
        order = self.driver.execute_script("""
            return [...document.querySelectorAll('#page-stack img')].map(
                (image) => new URL(image.currentSrc).searchParams.get('page'));
        """)
        if order != [str(number) for number in range(1, LONG_PDF_PAGES + 1)]:
            raise CheckFailed(f"the pages loaded are {order}")
        shown = self.shown_page()
        if shown != str(LONG_PDF_PAGES):
            raise CheckFailed(f"at the end the page count says page {shown}, expected {LONG_PDF_PAGES}")
        self.shots.mkdir(parents=True, exist_ok=True)
        self.set_viewport("desktop", *SIZES["desktop"])
        log(f"     screenshot: {self.save_screenshot('preview-pdf-desktop.png', *SIZES['desktop'])}")

    def check_longer_pdf(self):
        """A PDF longer than a preview's HTML holds: the HTML carries its first pages only, and
        the page's script adds the rest a batch at a time as the reader nears the end (j past the
        last one too): every page in order, each in its own page's box, the last one loads."""
        self.load(self.hrefs[LONGER_PDF])
        html = self.driver.execute_script("return fetch(location.href).then((answer) => answer.text())")
        inline = html.count('<img class="page"')
        if inline != INLINE_PAGES or f"page={LONGER_PDF_PAGES}&" in html:
            raise CheckFailed(f"the HTML holds {inline} pages, expected the first {INLINE_PAGES}")

        def stack():
            return self.driver.execute_script("""
                return [...document.querySelectorAll('#page-stack img')].map(
                    (image) => [Number(image.dataset.page), Number(image.getAttribute('width')),
                                Number(image.getAttribute('height')),
                                new URL(image.getAttribute('src'), location.href).searchParams.get('page')]);
            """)

        if len(stack()) != INLINE_PAGES:
            raise CheckFailed(f"{len(stack())} pages in the stack before any scrolling, expected {INLINE_PAGES}")
        # j on the last page there is adds the next batch and goes to the page after it.
        self.scroll_to_page(INLINE_PAGES)
        wait_for(f"the count says page {INLINE_PAGES}", lambda: self.shown_page() == str(INLINE_PAGES), 10)
        self.driver.execute_script("if (document.activeElement) document.activeElement.blur()")
        self.press("j")
        wait_for(f"j shows page {INLINE_PAGES + 1}", lambda: self.shown_page() == str(INLINE_PAGES + 1), 10)
        # Scrolled to the end again and again, the stack grows to every page.
        for _ in range(20):
            if len(stack()) == LONGER_PDF_PAGES:
                break
            before = len(stack())
            self.driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
            wait_for(f"scrolled to the end, more than {before} pages", lambda: len(stack()) > before, 10)
        pages = stack()
        expected = [[number, *((1024, 724) if number in LONGER_PDF_LANDSCAPE else (724, 1024)), str(number)]
                    for number in range(1, LONGER_PDF_PAGES + 1)]
        if pages != expected:
            wrong = [page for page, want in zip(pages, expected) if page != want][:5]
            raise CheckFailed(f"the stack holds {len(pages)} pages; first differences: {wrong}")
        self.scroll_to_page(LONGER_PDF_PAGES)
        wait_for(f"page {LONGER_PDF_PAGES} loads", lambda: self.driver.execute_script("""
            const image = document.querySelector(`#page-stack img[data-page='${arguments[0]}']`);
            return image.complete && image.naturalWidth > 0;
        """, LONGER_PDF_PAGES), 20)
        wait_for(f"the count says page {LONGER_PDF_PAGES}", lambda: self.shown_page() == str(LONGER_PDF_PAGES), 10)

    def check_text_preview(self):
        """A CJK text's preview is its text, decoded: the characters of its first line are in
        the page, and the encoding is named."""
        self.load(self.hrefs[CJK_TEXT])
        first_line = (ASSETS / DOCUMENTS[CJK_TEXT]).read_text(encoding="utf-8").strip().splitlines()[0].strip()
        text = self.driver.execute_script("return document.getElementById('text').textContent")
        if first_line not in text:
            raise CheckFailed(f"the preview's text lacks the first line {first_line!r}")
        meta = self.driver.execute_script("return document.getElementById('text-meta').textContent")
        if "UTF-8" not in meta:
            raise CheckFailed(f"the encoding is not named: {meta!r}")
        self.shots.mkdir(parents=True, exist_ok=True)
        self.set_viewport("desktop", *SIZES["desktop"])
        log(f"     screenshot: {self.save_screenshot('preview-text-desktop.png', *SIZES['desktop'])}")

    def check_image_zoom(self):
        """A click on an image's preview shows the original at its own size; another goes back."""
        self.load(self.hrefs[PREVIEW_SHOT])
        self.wait_preview_image(PREVIEW_SHOT)
        self.find_required("#preview-image").click()
        wait_for("the click zooms to the original", lambda: self.driver.execute_script("""
            const image = document.getElementById('preview-image');
            return image.closest('figure').classList.contains('zoomed') && image.complete
                && image.currentSrc.includes('/documents/') && image.naturalWidth > 0;
        """), 15)
        natural = self.driver.execute_script("return document.getElementById('preview-image').naturalWidth")
        original = jpeg_size((ASSETS / DOCUMENTS[PREVIEW_SHOT]).read_bytes())
        if natural != original[0]:
            raise CheckFailed(f"the zoomed image is {natural} wide, the original {original[0]}")
        self.find_required("#preview-image").click()
        wait_for("a second click goes back", lambda: self.driver.execute_script(
            "return !document.getElementById('preview-image').closest('figure').classList.contains('zoomed')"), 10)

    def check_video_preview(self):
        """A video's preview plays it in the browser's own player (the original, with ranges),
        and its strip of frames, drawn by the renderer, loads."""
        self.load(self.hrefs[VIDEO])
        frames = self.wait_for_images("the strip of frames")
        if frames != STRIP_FRAMES:
            raise CheckFailed(f"the strip has {frames} images, not {STRIP_FRAMES}")
        poster = self.driver.execute_script("return document.getElementById('player').poster")
        if "/thumbnails/" not in (poster or ""):
            raise CheckFailed(f"the player's poster is not the thumbnail: {poster!r}")
        self.driver.execute_script("""
            const player = document.getElementById('player');
            player.muted = true;
            player.play().catch((error) => { window.playError = String(error); });
        """)
        wait_for("the clip plays (its time moves on)", lambda: self.driver.execute_script(
            "return window.playError || document.getElementById('player').currentTime > 0.2"), 20)
        error = self.driver.execute_script("return window.playError || null")
        if error:
            raise CheckFailed(f"the player refused the clip: {error}")

    def check_office_preview(self):
        """A workbook's preview stacks its three sheets as pages, each drawn by an office renderer
        and loaded, each under its sheet's name."""
        self.load(self.hrefs[WORKBOOK])
        pages = self.driver.execute_script("return document.querySelectorAll('.page-stack img').length")
        if pages != len(WORKBOOK_SHEETS):
            raise CheckFailed(f"the stack has {pages} pages, not {len(WORKBOOK_SHEETS)}")
        self.wait_for_images("the sheets' pages", timeout=60)
        names = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('.page-caption')).map((p) => p.textContent)")
        if names != WORKBOOK_SHEETS:
            raise CheckFailed(f"the captions are {names!r}, not the sheets' names {WORKBOOK_SHEETS!r}")

    def check_comic_preview(self):
        """A comic book's preview stacks its pages as a PDF's, in natural order: each loads, and
        each is its page's colour (page2 red, page3 green, page10 blue)."""
        self.load(self.hrefs[COMIC])
        pages = self.driver.execute_script("return document.querySelectorAll('.page-stack img').length")
        if pages != len(COMIC_PAGE_COLOURS):
            raise CheckFailed(f"the stack has {pages} pages, not {len(COMIC_PAGE_COLOURS)}")
        self.wait_for_images("the comic's pages", timeout=30)
        colours = self.driver.execute_script("""
            return Array.from(document.querySelectorAll('.page-stack img')).map((img) => {
                const canvas = document.createElement('canvas');
                canvas.width = 8; canvas.height = 8;
                const context = canvas.getContext('2d');
                context.drawImage(img, 0, 0, 8, 8);
                const [r, g, b] = context.getImageData(1, 1, 1, 1).data;
                return r > g && r > b ? 'red' : g > b ? 'green' : 'blue';
            })""")
        if colours != COMIC_PAGE_COLOURS:
            raise CheckFailed(f"the pages are {colours!r}, not {COMIC_PAGE_COLOURS!r} (natural order)")

    def axe_script(self):
        """axe-core's axe.min.js, from the axe-playwright-python wheel in --axe (downloaded, never
        part of the repository)."""
        import zipfile
        wheels = sorted(Path(self.args.axe).glob("axe_playwright_python-*.whl"))
        if not wheels:
            raise CheckFailed(f"no axe_playwright_python wheel in {self.args.axe}: `make test-deps` downloads it")
        with zipfile.ZipFile(wheels[-1]) as wheel:
            return wheel.read("axe_playwright_python/axe.min.js").decode()

    def audit(self, what):
        """axe-core's violations on the page loaded, as lines (rule, impact, how many nodes, the
        first node's selector)."""
        if not self.driver.execute_script("return typeof window.axe !== 'undefined'"):
            self.driver.execute_script(self.axe_source)
        result = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            axe.run(document, {resultTypes: ['violations']})
              .then((r) => done(r.violations.map((v) => [v.id, v.impact, v.nodes.length,
                                                         v.nodes[0] ? v.nodes[0].target.join(' ') : ''])))
              .catch((e) => done([['axe-error', String(e), 0, '']]));""")
        return [f"{what}: {rule} ({impact}, {count} node(s), first {target})"
                for rule, impact, count, target in result]

    def check_accessibility(self):
        """axe-core (the rules browsers' audits use) over every kind of page the server draws: the
        grid, and the preview of a photo, a PDF, a text, a video, a workbook, a comic book and a
        document that failed. Any violation, of any impact, fails."""
        self.axe_source = self.axe_script()
        self.driver.set_script_timeout(60)
        problems = []
        self.load(self.base)
        self.wait_for_images("grid images load")
        problems += self.audit("grid")
        for path in [PREVIEW_SHOT, "report.pdf", "japanese.txt", "clip.webm", WORKBOOK, COMIC, FAILED_DOCUMENT]:
            self.load(self.hrefs[path])
            problems += self.audit(f"preview of {path}")
        if problems:
            raise CheckFailed("\n".join(problems))

    def check_live_update(self):
        self.load(self.base)
        wait_for("the grid's EventSource opens (body data-live = yes)",
                 lambda: self.driver.execute_script("return document.body.dataset.live") == "yes", 15)
        marker = f"marker-{os.getpid()}-{time.time()}"
        self.driver.execute_script("window.__glanceMarker = arguments[0]", marker)
        # Written under a hidden name (passed over) and renamed: the watcher sees one whole file.
        hidden = self.container / f".{LIVE_NAME}.part"
        shutil.copyfile(ASSETS / LIVE_SOURCE, hidden)
        os.rename(hidden, self.container / LIVE_NAME)
        started = time.monotonic()
        wait_for(f"a li.item with data-path {LIVE_NAME!r} appears within 15 s",
                 lambda: LIVE_NAME in [item["path"] for item in self.grid_items()], 15, interval=0.2)
        log(f"     the new document showed after {time.monotonic() - started:.1f} s")
        still = self.driver.execute_script("return window.__glanceMarker")
        if still != marker:
            raise CheckFailed(f"window.__glanceMarker is {still!r} after the update: the page reloaded")
        count = len(self.grid_items())
        if count != len(self.documents) + 1:
            raise CheckFailed(f"{count} li.item after the update, expected {len(self.documents) + 1}")
        self.wait_for_images("the grid's images load after the update")

    def check_screenshots(self):
        self.shots.mkdir(parents=True, exist_ok=True)
        saved = []
        for label, (width, height) in SIZES.items():
            self.set_viewport(label, width, height)
            self.load(self.base)
            self.wait_for_images(f"{label}: grid images load")
            saved.append(self.save_screenshot(f"grid-{label}.png", width, height))
            self.load(self.hrefs[PREVIEW_SHOT])
            self.wait_preview_image(PREVIEW_SHOT)
            saved.append(self.save_screenshot(f"preview-{label}.png", width, height))
        self.set_viewport("desktop", *SIZES["desktop"])
        for path in saved:
            log(f"     screenshot: {path}")

    def set_viewport(self, label, width, height):
        """Sizes the window so that the page's viewport is width x height (the window rect
        WebDriver sets includes whatever the browser puts around the page)."""
        self.driver.set_window_rect(width=width, height=height)
        inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight]")
        self.driver.set_window_rect(width=2 * width - inner[0], height=2 * height - inner[1])
        inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight]")
        if inner != [width, height]:
            raise CheckFailed(f"{label}: the viewport is {inner[0]}x{inner[1]}, expected {width}x{height}")

    def save_screenshot(self, name, width, height):
        data = self.driver.get_screenshot_as_png()
        size = harness.png_size(data)
        if size is None:
            raise CheckFailed(f"{name}: the screenshot is not a PNG")
        shot_width, shot_height = size
        # Device pixels: the viewport times the device pixel ratio (1 in headless Chromium).
        ratio = shot_width / width
        if ratio < 1 or shot_width % width or shot_height != round(height * ratio):
            raise CheckFailed(f"{name}: screenshot is {shot_width}x{shot_height}, expected {width}x{height}")
        path = self.shots / name
        path.write_bytes(data)
        return path

    def check_back_forward_cache(self):
        """Chromium keeps up to 6 pages left behind in its back/forward cache, scripts frozen. A
        page that does not close its EventSource when it is hidden keeps its /events request
        open there, and HTTP/1.1 allows 6 connections to one server: once they are all held,
        the next page or image waits until a stream's 15-second keep-alive comment evicts a
        cached page. Here: the grid, then ArrowRight through every preview, in a browser with
        the back/forward cache on (Chromium's default)."""
        main = self.driver
        # A new browser's first pages get the usual 30 s (a slow machine's cold start is not the
        # stall looked for); each step after them gets 12 s, under the 15 s a held
        # connection waits for the keep-alive comment that frees it.
        self.driver = self.open_session("back-forward-cache", back_forward_cache=True)
        try:
            try:
                self.load(self.base)
                wait_for("the grid's EventSource opens",
                         lambda: self.driver.execute_script("return document.body.dataset.live") == "yes", 15)
                items = self.grid_items()
                self.find_required("li.item a.open").click()
                wait_for("the click opens the first preview",
                         lambda: self.driver.current_url == items[0]["href"], 15)
            except WebDriverException as error:
                raise CheckFailed(f"the grid and the first preview did not load in a new browser: "
                                  f"{describe(error)}") from None
            step_seconds = 12
            self.driver.set_page_load_timeout(step_seconds)
            for index in range(1, len(items)):
                target = items[index]
                self.driver.execute_script("if (document.activeElement) document.activeElement.blur()")
                started = time.monotonic()
                try:
                    self.press(KEY_RIGHT)
                    wait_for("the next preview", lambda: self.driver.current_url == target["href"]
                             and self.page_complete(), step_seconds)
                except (CheckFailed, WebDriverException) as error:
                    detail = describe(error) if isinstance(error, WebDriverException) else error
                    raise CheckFailed(
                        f"step {index} of {len(items) - 1} (page load {index + 2}, ArrowRight to "
                        f"{target['path']!r}) stalled for {time.monotonic() - started:.0f} s ({detail}). "
                        "The same steps pass with the back/forward cache off (the main session): the "
                        "pages left behind keep their EventSource (/events) open in the cache and hold "
                        "all 6 of the browser's connections to the server; the pages should close it "
                        "on pagehide and open it again on pageshow.") from None
        finally:
            try:
                self.driver.quit()
            finally:
                self.driver = main

    def check_source_sets(self):
        """Each tile takes the size its screen needs: the 256 at device pixel ratio 1, the 512 at 2
        (the grid's tiles are under 256 CSS pixels at 1440 wide), never the 1024."""
        width, height = SIZES["desktop"]
        try:
            for ratio, side in ((1, "256"), (2, "512")):
                self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": height, "deviceScaleFactor": ratio, "mobile": False})
                self.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
                self.load(self.base)
                self.wait_for_images(f"the grid's images at ratio {ratio}")
                sources = self.driver.execute_script(
                    "return Array.from(document.querySelectorAll('main img')).map((image) => image.currentSrc)")
                wrong = [source for source in sources if f"size={side}" not in source]
                if not sources or wrong:
                    raise CheckFailed(f"at ratio {ratio} the tiles loaded {wrong or 'nothing'}, not their {side}")
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            self.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})

    def check_placeholders(self):
        """Until a tile's image arrives (here: not while the check looks, its requests held by
        the DevTools protocol's Fetch domain), the tile shows its ThumbHash drawn on a canvas,
        whose mean colour is near the thumbnail's average colour: the worker's encoder and the
        page's decoder agree."""
        self.load("about:blank")
        # The images of earlier checks are in the browser's cache, and would be there at once.
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        self.driver.execute_cdp_cmd("Fetch.enable", {"patterns": [{"urlPattern": "*/thumbnails/*"}]})
        try:
            # Navigated by script: the held images would keep `get` waiting for the load event.
            self.driver.execute_script("window.location.href = arguments[0]", self.base)
            wait_for("the grid with its images held", lambda: self.driver.execute_script(
                "return document.querySelectorAll('img[data-thumbhash]').length > 0 && "
                "document.querySelectorAll('canvas.placeholder').length > 0"), 15)
            found = self.driver.execute_script("""
                return Array.from(document.querySelectorAll('img[data-thumbhash]')).map((image) => {
                  const canvas = image.parentElement.querySelector('canvas.placeholder');
                  if (!canvas) return {path: image.closest('li').dataset.path, canvas: false};
                  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
                  const mean = [0, 0, 0];
                  for (let i = 0; i < data.length; i += 4) for (let c = 0; c < 3; c++) mean[c] += data[i + c];
                  const count = data.length / 4;
                  const tile = getComputedStyle(image.parentElement).backgroundColor.match(/\\d+/g).map(Number);
                  return {path: image.closest('li').dataset.path, canvas: true,
                          mean: mean.map((v) => v / count), tile: tile.slice(0, 3)};
                });
            """)
        finally:
            self.driver.execute_cdp_cmd("Fetch.disable", {})
            self.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
        if len(found) < 3:
            raise CheckFailed(f"only {len(found)} tiles carry a ThumbHash")
        missing = [entry["path"] for entry in found if not entry["canvas"]]
        if missing:
            raise CheckFailed(f"no placeholder drawn for {missing}")
        far = [(entry["path"], [round(v) for v in entry["mean"]], entry["tile"]) for entry in found
               if max(abs(a - b) for a, b in zip(entry["mean"], entry["tile"])) > 40]
        if far:
            raise CheckFailed(f"placeholders far from their average colour (mean, tile): {far}")

    def check_sign_in(self):
        """A server with accounts: a page opened unsigned leads to the sign-in form, a wrong
        password is said, the right one brings the browser back to the page it asked for, the grid
        and a preview load with the session, and signing out ends it."""
        users = self.temp / "users"
        added = subprocess.run([str(self.glance), "user", "add", "reader", "--users", str(users)],
                               input=f"{SIGN_IN_PASSWORD}\n", capture_output=True, text=True, timeout=60)
        if added.returncode != 0:
            raise CheckFailed(f"glance user add exited {added.returncode}: {added.stderr.strip()}")
        base = self.start_glance(["--users", str(users)], name="glance-serve-users")
        target = base + "preview/" + PREVIEW_SHOT
        self.load(target)
        if "/sign-in?next=" not in self.driver.current_url:
            raise CheckFailed(f"an unsigned visit to {target} stayed at {self.driver.current_url}")
        # The sign-in page is a page kind of its own: audited as the others are.
        self.axe_source = getattr(self, "axe_source", None) or self.axe_script()
        problems = self.audit("sign-in page")
        if problems:
            raise CheckFailed("\n".join(problems))

        def sign_in(password):
            self.find_required("#name").clear()
            self.find_required("#name").send_keys("reader")
            self.find_required("#password").send_keys(password)
            self.find_required("#sign-in").click()
            wait_for("the sign-in form is answered", self.page_complete, 15)

        sign_in("not the password")

        def refusal_shown():
            # The click may return before the answer replaces the page: look until it has.
            shown = self.driver.find_elements(By.CSS_SELECTOR, "#sign-in-error")
            return bool(shown) and "Wrong name or password" in shown[0].text

        wait_for("a wrong password is said", refusal_shown, 15)
        sign_in(SIGN_IN_PASSWORD)
        wait_for(f"signing in leads back to {target}", lambda: self.driver.current_url == target, 15)
        self.wait_preview_image(PREVIEW_SHOT)
        cookies = {cookie["name"]: cookie for cookie in self.driver.get_cookies()}
        session = cookies.get("glance_session")
        if not session or not session.get("httpOnly") or session.get("sameSite") != "Strict":
            raise CheckFailed(f"the session cookie is not HttpOnly and SameSite=Strict: {session}")
        if self.driver.execute_script("return document.cookie").find("glance_session") >= 0:
            raise CheckFailed("the page's scripts can read the session cookie")
        self.load(base)
        count = self.wait_for_images("the grid's images with a session")
        if count == 0:
            raise CheckFailed("the grid showed no image when signed in")
        self.find_required("#sign-out").click()
        wait_for("signing out leads to the sign-in page", lambda: "/sign-in" in self.driver.current_url, 15)
        self.load(base)
        if "/sign-in" not in self.driver.current_url:
            raise CheckFailed(f"after signing out, {base} opened without signing in")

    def check_no_console_errors(self):
        self.check_browser_log("all pages")

    # -- running -----------------------------------------------------------------------------

    def run(self):
        self.make_container()
        self.base = self.start_glance(["--watch"])
        self.find_browser()
        # The main session runs without the back/forward cache: with it, pages left behind keep
        # their /events stream open (a bug of the pages, see check_back_forward_cache) and stall
        # every check after the sixth page load. That problem is reported once, by its own check
        # in a browser with Chromium's defaults.
        try:
            self.driver = self.open_session("main", back_forward_cache=False)
        except WebDriverException as error:
            raise TestError(f"chromedriver or chromium would not start: {describe(error)}") from None
        grid_ok = self.check("grid: every tile, its image or its failure", self.check_grid)
        if not grid_ok and not self.order:
            # The rest needs the grid's order; read it even though the check failed.
            self.load(self.base)
            items = self.grid_items()
            self.order = [item["path"] for item in items]
            self.hrefs = {item["path"]: item["href"] for item in items}
        self.check("hostile name: shown as text, no script ran", self.check_hostile_name)
        self.check("preview: click, image, ArrowRight, ArrowLeft, Escape", self.check_preview_keys)
        self.check("preview: #previous, #next, #up follow the grid's order", self.check_preview_links)
        self.check("previews: every page of a multi-page PDF loads in order as it is scrolled", self.check_pdf_pages)
        self.check("previews: a PDF longer than the page holds is added in batches as it is scrolled",
                   self.check_longer_pdf)
        self.check("previews: a CJK text shows its characters and names its encoding", self.check_text_preview)
        self.check("previews: a click shows an image's original, another goes back", self.check_image_zoom)
        self.check("previews: a video plays in the browser's player, its strip of frames loads",
                   self.check_video_preview)
        self.check("previews: a workbook's sheets are its pages, drawn by LibreOffice, under their names",
                   self.check_office_preview)
        self.check("previews: a comic book's pages are stacked in natural order, each drawn from its archive",
                   self.check_comic_preview)
        self.check("live update: a new document appears without a reload", self.check_live_update)
        self.check("screenshots: grid and preview, phone and desktop", self.check_screenshots)
        self.check("browser console: no errors", self.check_no_console_errors)
        self.check("srcset: tiles load the 256 at ratio 1 and the 512 at ratio 2", self.check_source_sets)
        self.check("placeholders: a ThumbHash drawn near the average colour until the image comes",
                   self.check_placeholders)
        self.check("sign-in: the page, a session, the grid and a preview, then signing out ends it",
                   self.check_sign_in)
        self.check("accessibility: axe-core finds no violation on the grid or any kind of preview",
                   self.check_accessibility)
        self.check("back/forward cache: stepping through every preview never stalls",
                   self.check_back_forward_cache)
        for note in self.log_notes:
            log(f"     note: {note}")
        for process in self.processes:
            if not process.alive():
                self.results.append((process.name, f"exited {process.returncode} during the test"))
        code = self.driver.service.process.poll()
        if code is not None:
            self.results.append(("chromedriver", f"exited {code} during the test"))
        return [result for result in self.results if result[1] is not None]

    def close(self):
        if self.driver:
            try:
                self.driver.quit()
            except Exception:
                pass
        for _, service in self.services:
            # Stopped by quit() when the session came up; its process group (chromedriver and the
            # browser it started) killed in any case.
            if getattr(service, "process", None) is not None:
                harness.signal_group(service.process.pid, signal.SIGKILL)
                try:
                    service.process.wait(5)
                except Exception:
                    pass
        for process in reversed(self.processes):
            process.stop()
        harness.kill_processes_mentioning(str(self.profiles))
        if self.args.keep:
            log(f"kept {self.temp}")
        else:
            shutil.rmtree(self.temp, ignore_errors=True)

    def dump_logs(self):
        for process in self.processes:
            text = process.tail(30)
            if text:
                log(f"--- {process.name} (last lines)\n{text}")
        for name, _ in self.services:
            text = harness.tail_of(self.temp / f"chromedriver-{name}.log", 30)
            if text:
                log(f"--- chromedriver, {name} session (last lines)\n{text}")


class OverallTimeout(BaseException):
    """Raised by SIGALRM: a BaseException, so no `except Exception` on the way swallows it."""


def overall_timeout(signum, frame):
    raise OverallTimeout()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--glance", default=str(ROOT / ".build/debug/glance"),
                        help="the glance executable (glance-renderer beside it)")
    parser.add_argument("--chromium", help="the browser (default: chromium on the PATH)")
    parser.add_argument("--chromedriver", help="the driver (default: chromedriver on the PATH)")
    parser.add_argument("--screenshots", default=str(ROOT / ".build/browser-screenshots"),
                        help="where the screenshots go")
    parser.add_argument("--timeout", type=int, default=180, help="seconds before the whole test fails")
    parser.add_argument("--keep", action="store_true", help="keep the temporary container and logs")
    parser.add_argument("--axe", default=str(ROOT / ".build/axe"),
                        help="a folder holding PyPI's axe-playwright-python wheel, whose axe.min.js audits the "
                             "pages (make test-deps downloads it)")
    args = parser.parse_args()

    try:
        harness.find_glance(args.glance)
    except TestError as error:
        print(f"test_pages: {error}", file=sys.stderr)
        return 2
    RemoteConnection.set_timeout(COMMAND_SECONDS)

    started = time.monotonic()
    signal.signal(signal.SIGALRM, overall_timeout)
    signal.alarm(args.timeout)
    test = PageTest(args)
    failures = None
    status = 2
    try:
        failures = test.run()
        status = 1 if failures else 0
    except OverallTimeout:
        print(f"test_pages: FAILED: the whole test took longer than {args.timeout} s "
              f"(checks done: {[name for name, _ in test.results]})", file=sys.stderr)
        test.dump_logs()
    except TestError as error:
        print(f"test_pages: cannot run: {error}", file=sys.stderr)
        test.dump_logs()
    except Exception:
        print("test_pages: unexpected error:", file=sys.stderr)
        traceback.print_exc()
        test.dump_logs()
    finally:
        signal.alarm(0)
        if status == 1:
            test.dump_logs()
        test.close()

    elapsed = time.monotonic() - started
    if status == 0:
        log(f"test_pages: all {len(test.results)} checks passed in {elapsed:.1f} s")
    elif failures:
        print(f"test_pages: {len(failures)} of {len(test.results)} checks FAILED in {elapsed:.1f} s:",
              file=sys.stderr)
        for name, message in failures:
            print(f"  - {name}: " + message.strip().replace("\n", "\n    "), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
