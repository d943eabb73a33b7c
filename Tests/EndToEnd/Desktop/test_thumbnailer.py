#!/usr/bin/env python3
"""Glance as the desktop's thumbnailer, run the way GNOME runs one.

Reads the installed `glance.thumbnailer` (from `make install DESTDIR=...`), and runs its Exec
line inside bubblewrap with the arguments GNOME's thumbnail factory (gnome-desktop) uses: /usr
read-only, new namespaces of every kind (no network), /proc and /dev, the input file bound
read-only as /tmp/gnome-desktop-file-to-thumbnail.EXT and the output folder as /tmp. The
staged install is bound over /usr/local, where `make install` puts it. Nothing of the Swift
toolchain is visible inside: the binaries must carry their runtime.

Usage: test_thumbnailer.py --prefix STAGE/usr/local --assets TestAssets
Exit status 0 when every check passed; each failure is one line on stderr.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import harness  # noqa: E402

FAILURES = []


def check(condition, message):
    if condition:
        harness.log(f"ok    {message}")
    else:
        print(f"FAIL  {message}", file=sys.stderr)
        FAILURES.append(message)


def read_entry(path):
    """The [Thumbnailer Entry] group of a .thumbnailer key file, as a dict."""
    entry = {}
    group = None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                group = line
                continue
            if group == "[Thumbnailer Entry]" and "=" in line:
                key, value = line.split("=", 1)
                entry[key.strip()] = value.strip()
    return entry


def gnome_bwrap_arguments(output_folder, input_file, sandboxed_input, prefix):
    """bwrap's arguments as gnome-desktop's thumbnail script builds them."""
    arguments = ["bwrap", "--ro-bind", "/usr", "/usr"]
    if os.path.exists("/etc/ld.so.cache"):
        arguments += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    for name in ("bin", "lib64", "lib", "sbin"):
        absolute = "/" + name
        if not os.path.lexists(absolute):
            continue
        if os.path.islink(absolute) and os.readlink(absolute).lstrip("/").startswith("usr/"):
            arguments += ["--symlink", "/usr" + absolute, absolute]
        else:
            arguments += ["--ro-bind", absolute, absolute]
    arguments += [
        "--proc", "/proc", "--dev", "/dev", "--chdir", "/",
        "--setenv", "GIO_USE_VFS", "local", "--unshare-all", "--die-with-parent",
        # What `make install` put under /usr/local on a real system.
        "--ro-bind", prefix, "/usr/local",
        "--bind", output_folder, "/tmp",
        "--ro-bind", input_file, sandboxed_input,
    ]
    return arguments


def expand_exec(exec_line, size, input_path, output_path):
    """The Exec line's words with %s, %i, %u, %o and %% replaced, as the factory does."""
    words = []
    for word in shlex.split(exec_line):
        word = (word.replace("%%", "\0").replace("%s", str(size)).replace("%i", input_path)
                .replace("%u", "file://" + input_path).replace("%o", output_path).replace("\0", "%"))
        words.append(word)
    return words


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefix", required=True, help="the staged install's PREFIX (STAGE/usr/local)")
    parser.add_argument("--assets", default=str(harness.ASSETS))
    parser.add_argument("--keep", help="copy the text document's thumbnail here, to look at")
    options = parser.parse_args()
    prefix = os.path.abspath(options.prefix)
    assets = os.path.abspath(options.assets)
    if shutil.which("bwrap") is None:
        print("FAIL  bubblewrap is not installed: `make test-deps` installs it", file=sys.stderr)
        return 1

    entry_path = os.path.join(prefix, "share", "thumbnailers", "glance.thumbnailer")
    check(os.path.isfile(entry_path), "make install put glance.thumbnailer in share/thumbnailers/")
    entry = read_entry(entry_path)
    check(entry.get("TryExec") == "glance", "TryExec=glance")
    exec_line = entry.get("Exec", "")
    check(all(key in exec_line for key in ("%s", "%i", "%o")), "Exec takes the size, the input and the output")
    mime_types = set(filter(None, entry.get("MimeType", "").split(";")))
    expected_types = {"application/pdf", "image/png", "image/jpeg", "image/webp", "image/gif", "image/tiff",
                      "image/heic", "image/heif", "image/avif", "image/svg+xml", "image/svg+xml-compressed",
                      "text/plain", "video/mp4", "video/x-m4v", "video/quicktime", "video/x-matroska", "video/webm",
                      "video/x-msvideo", "video/mp2t", "video/mpeg", "video/ogg", "video/x-theora+ogg", "audio/mpeg", "audio/flac",
                      "audio/x-flac", "audio/mp4", "audio/x-m4a", "audio/ogg", "audio/x-vorbis+ogg", "audio/x-opus+ogg",
                      "audio/x-wav", "audio/wav", "audio/vnd.wave", "video/x-ms-wmv", "video/x-ms-asf",
                      "audio/x-ms-wma", "video/x-flv", "audio/x-aiff", "audio/aiff"}
    # Office documents (shared-mime-info's names).
    expected_types |= {"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.openxmlformats-officedocument.wordprocessingml.template", "application/vnd.ms-word.document.macroEnabled.12", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.openxmlformats-officedocument.spreadsheetml.template", "application/vnd.ms-excel.sheet.macroEnabled.12", "application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.openxmlformats-officedocument.presentationml.slideshow", "application/vnd.openxmlformats-officedocument.presentationml.template", "application/vnd.ms-powerpoint.presentation.macroEnabled.12", "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.text-template", "application/vnd.oasis.opendocument.spreadsheet", "application/vnd.oasis.opendocument.spreadsheet-template", "application/vnd.oasis.opendocument.presentation", "application/vnd.oasis.opendocument.presentation-template", "application/vnd.oasis.opendocument.graphics", "application/vnd.oasis.opendocument.graphics-template", "application/vnd.ms-visio.drawing.main+xml", "application/vnd.visio", "application/vnd.ms-publisher", "application/rtf", "text/rtf", "application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"}
    # Camera raw photos, e-books and comic books (shared-mime-info's names).
    expected_types |= {"image/x-adobe-dng", "image/x-canon-cr2", "image/x-canon-cr3", "image/x-nikon-nef",
                       "image/x-nikon-nrw", "image/x-sony-arw", "image/x-sony-sr2", "image/x-sony-srf",
                       "image/x-olympus-orf", "image/x-panasonic-rw2", "image/x-fuji-raf", "application/epub+zip",
                       "application/vnd.comicbook+zip", "application/vnd.comicbook-rar", "application/x-cb7"}
    # Bitmaps, icons, Targa and Netpbm (shared-mime-info's names and their aliases).
    expected_types |= {"image/bmp", "image/x-bmp", "image/vnd.microsoft.icon", "image/x-icon", "image/x-win-bitmap",
                       "image/x-tga", "image/x-portable-anymap", "image/x-portable-bitmap", "image/x-portable-graymap",
                       "image/x-portable-pixmap"}
    # Paintings that carry their flattened picture.
    expected_types |= {"image/openraster", "application/x-krita", "image/x-xcf", "image/x-compressed-xcf"}
    # Pages, Keynote and Numbers (IANA's names and shared-mime-info's).
    expected_types |= {"application/vnd.apple.pages", "application/vnd.apple.keynote", "application/vnd.apple.numbers",
                       "application/x-iwork-pages-sffpages", "application/x-iwork-keynote-sffkey",
                       "application/x-iwork-numbers-sffnumbers"}
    # Blender files.
    expected_types |= {"application/x-blender"}
    # Mobipocket and Kindle books.
    expected_types |= {"application/x-mobipocket-ebook", "application/vnd.amazon.mobi8-ebook"}
    # macOS icons.
    expected_types |= {"image/x-icns", "image/x-portable-arbitrarymap", "image/qoi", "image/vnd.zbrush.pcx", "image/x-pcx", "image/x-sgi", "image/x-sun-raster", "image/x-xwindowdump", "image/vnd-ms.dds", "image/x-dds", "image/fits", "image/vnd.wap.wbmp", "image/x-exr", "image/x-xpixmap", "image/x-xbitmap",
                       "image/jxl", "image/vnd.adobe.photoshop",
                       "application/postscript", "application/x-gzpostscript", "image/x-gzeps", "image/x-eps", "application/eps", "image/eps",
                       "image/vnd.djvu", "image/vnd.djvu+multipage", "image/x-djvu",
                       "application/vnd.ms-xpsdocument", "application/oxps",
                       "font/ttf", "font/otf", "font/collection", "font/woff", "font/woff2", "application/x-font-type1",
                       "application/x-font-pcf", "application/x-font-bdf",
                       "application/x-gzpdf", "application/x-bzpdf", "application/x-xzpdf",
                       "application/x-font-ttf", "application/x-font-otf", "application/vnd.ms-opentype",
                       "image/emf", "image/x-emf", "image/wmf", "image/x-wmf",
                       "application/vnd.sketchup.skp", "application/x-adobe-indesign",
                       "image/jp2", "image/jpx", "image/x-jp2-codestream"}
    check(mime_types == expected_types, f"MimeType lists Glance's types ({sorted(mime_types ^ expected_types)})")
    for binary in ("glance", "glance-renderer"):
        path = os.path.join(prefix, "bin", binary)
        check(os.access(path, os.X_OK), f"bin/{binary} is installed")
        linked = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        check("libswift" not in linked and "libFoundation" not in linked,
              f"bin/{binary} carries the Swift runtime (no toolchain library is linked)")

    documents = [
        ("jpeg/photo-baseline.jpg", "jpg", [128, 256, 512, 1024]),
        ("png/rgba8.png", "png", [256]),
        ("pdf/letter.pdf", "pdf", [256, 1024]),
        ("text/latin-utf8.txt", "txt", [256]),
        ("orientation/orient-6.jpg", "jpg", [512]),
        # The formats whose libraries are loaded on first use (libtiff, libheif, librsvg): they
        # must load inside GNOME's sandbox too.
        ("gif/animated.gif", "gif", [256]),
        ("tiff/multipage.tiff", "tiff", [256]),
        ("heif/photo.heic", "heic", [256]),
        ("heif/photo.avif", "avif", [256]),
        ("svg/shapes.svg", "svg", [256]),
        # gdk-pixbuf and its loader modules, loaded on the first such file.
        ("bitmaps/v3.bmp", "bmp", [256]),
        ("bitmaps/icon.ico", "ico", [256]),
        # Videos and sound files (FFmpeg's libraries, loaded on first use): a frame, and a cover.
        ("media/fade-in.mp4", "mp4", [256]),
        ("media/vp9.webm", "webm", [256]),
        ("media/cover.mp3", "mp3", [256]),
        ("media/cover.flac", "flac", [256]),
        # LibRaw and libarchive, loaded on first use as well.
        ("raw/preview.dng", "dng", [256]),
        ("ebook/cover-meta.epub", "epub", [256]),
        ("comics/natural.cbr", "cbr", [256]),
        # Office documents: LibreOffice in the office renderer, inside GNOME's sandbox (which shows
        # /usr and not /etc: LibreOffice reads the copy of its configuration under /usr), every
        # type the entry claims.
        ("office/letter.docx", "docx", [256, 1024]),
        ("office/budget.xlsx", "xlsx", [256]),
        ("office/deck.pptx", "pptx", [256, 1024]),
        ("office/letter.odt", "odt", [256]),
        ("office/budget.ods", "ods", [256]),
        ("office/deck.odp", "odp", [256]),
        ("office/sun.odg", "odg", [256]),
        ("office/letter.rtf", "rtf", [256]),
        ("office/letter.doc", "doc", [256]),
        ("office/budget.xls", "xls", [256]),
        ("office/deck.ppt", "ppt", [256]),
    ]
    environment = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    for asset, extension, sizes in documents:
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="glance-thumbnailer-") as output_folder:
                sandboxed_input = f"/tmp/gnome-desktop-file-to-thumbnail.{extension}"
                sandboxed_output = "/tmp/gnome-desktop-thumbnailer.png"
                command = gnome_bwrap_arguments(output_folder, os.path.join(assets, asset), sandboxed_input, prefix)
                command += expand_exec(exec_line, size, sandboxed_input, sandboxed_output)
                run = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120)
                made = os.path.join(output_folder, "gnome-desktop-thumbnailer.png")
                check(run.returncode == 0, f"{asset} at {size}: exit {run.returncode} {run.stderr.strip()}")
                dimensions = None
                if os.path.exists(made):
                    dimensions = harness.png_size(Path(made).read_bytes(), complete=True)
                check(dimensions is not None and max(dimensions) <= size and min(dimensions) >= 1,
                      f"{asset} at {size}: a PNG within {size}x{size} ({dimensions})")
                # bwrap leaves the input's mount point (an empty file) in the output folder.
                left = sorted(set(os.listdir(output_folder)) - {os.path.basename(sandboxed_input)})
                check(left == ["gnome-desktop-thumbnailer.png"], f"{asset} at {size}: nothing else written ({left})")
                if asset.startswith("text/") and options.keep:
                    shutil.copy(made, options.keep)

    # A corrupt document: a one-line reason, exit 1, no output.
    with tempfile.TemporaryDirectory(prefix="glance-thumbnailer-") as output_folder:
        sandboxed_input = "/tmp/gnome-desktop-file-to-thumbnail.jpg"
        command = gnome_bwrap_arguments(output_folder, os.path.join(assets, "corrupt/truncated-header.jpg"),
                                        sandboxed_input, prefix)
        command += expand_exec(exec_line, 256, sandboxed_input, "/tmp/gnome-desktop-thumbnailer.png")
        run = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120)
        check(run.returncode == 1, f"a corrupt JPEG fails with exit 1 (got {run.returncode})")
        lines = run.stderr.strip().splitlines()
        check(len(lines) == 1 and "gnome-desktop-file-to-thumbnail.jpg" in lines[0],
              f"a corrupt JPEG gets one line naming the file ({lines})")
        left = set(os.listdir(output_folder)) - {os.path.basename(sandboxed_input)}
        check(not left, f"a corrupt JPEG leaves no output behind ({sorted(left)})")

    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
