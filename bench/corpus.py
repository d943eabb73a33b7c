"""The benchmark corpus: deterministic documents made from fixed seeds.

    python3 bench/corpus.py            # make (or reuse) the corpus for BENCH_SCALE

Everything lands under bench/work/ (git-ignored):

    corpus-small/ or corpus-full/      one folder per format, each a Glance container
        jpeg/  png/  pdf/  text/
        manifest.json                  every file with its format, size and pixel size
        stamp                          hash of this generator + scale: regenerated on change
    extras/                            PNGs of one width and 1000 / 4000 rows (memory check)
    many/docs/                         10,000 tiny PNGs in 100 folders (no-op re-run, list)

What is made
  JPEG  photographic pictures (numpy: gradients, soft and hard blobs, value noise at several
        scales, fine texture and sensor noise) of 1600x1200, 4000x3000 and 6000x4000, written
        as PPM and encoded by cjpeg at quality 90; every fourth one progressive.
  PNG   photos, RGBA "screenshots" (window with shadow, flat UI areas, text-like word blocks),
        16-bit photos, palette images and one Adam7-interlaced 4000x3000 photo, encoded by
        ImageMagick (/usr/bin/convert, never the `convert` first on PATH).
  PDF   hand-written PDFs: multi-page Helvetica text, and pages showing an embedded JPEG
        (DCTDecode).
  text  UTF-8 files from 1 KB to 2 MB (log-spaced); every other one is Chinese-like CJK.
  hdr   photos as linear light by ImageMagick in OpenEXR (ZIP), Radiance HDR and 32-bit float
        TIFF, taking turns, of 1600x1200 and 4000x3000.

The default scale is small (8 JPEG, 6 PNG, 8 PDF, 40 text) so that `make bench` takes minutes;
BENCH_SCALE=1 makes the full corpus of the issue (45 JPEG, 30 PNG, 25 PDF, 200 text).
"""

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

try:
    import numpy as np
    from scipy import ndimage
except ImportError:
    # Only making the pictures needs them: a corpus made already is reused without (Debian's
    # python3, which runs the browser benches, has neither unless asked for).
    np = ndimage = None

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
WORK_DIR = os.path.join(BENCH_DIR, "work")
CONVERT = "/usr/bin/convert"
FORMATS = ("jpeg", "png", "pdf", "text", "jxl", "psd", "djvu", "ps", "xps", "font", "hdr", "rasters", "bitmaps")
MANY_COUNT = 10_000


# ---------------------------------------------------------------------------------------------
# Corpus plans: what to make at each scale
# ---------------------------------------------------------------------------------------------

JPEG_SIZES = ((1600, 1200), (4000, 3000), (6000, 4000))


def jpeg_plan(count):
    """(name, width, height, progressive) for `count` JPEGs, the three sizes taking turns."""
    plan = []
    for i in range(count):
        width, height = JPEG_SIZES[i % 3]
        progressive = i % 4 == 1
        kind = "prog" if progressive else "base"
        plan.append((f"photo-{i:02d}-{width}x{height}-{kind}.jpg", width, height, progressive))
    return plan


def png_plan(scale_full):
    """(name, kind, width, height) for the PNGs. Kinds: photo, screenshot, deep, palette, interlaced."""
    if not scale_full:
        return [
            ("photo-00-1600x1200.png", "photo", 1600, 1200),
            ("photo-01-4000x3000.png", "photo", 4000, 3000),
            ("screenshot-00-2560x1440-rgba.png", "screenshot", 2560, 1440),
            ("deep-00-3000x2000-16bit.png", "deep", 3000, 2000),
            ("palette-00-1920x1080.png", "palette", 1920, 1080),
            ("interlaced-00-4000x3000.png", "interlaced", 4000, 3000),
        ]
    plan = []
    photo_sizes = ((1600, 1200), (4000, 3000), (2400, 1600), (3000, 2000))
    for i in range(8):
        w, h = photo_sizes[i % 4]
        plan.append((f"photo-{i:02d}-{w}x{h}.png", "photo", w, h))
    shot_sizes = ((1920, 1080), (2560, 1440), (3840, 2160), (1440, 900))
    for i in range(8):
        w, h = shot_sizes[i % 4]
        plan.append((f"screenshot-{i:02d}-{w}x{h}-rgba.png", "screenshot", w, h))
    deep_sizes = ((2000, 1500), (3000, 2000), (1600, 1200), (2400, 1600), (3000, 2000))
    for i, (w, h) in enumerate(deep_sizes):
        plan.append((f"deep-{i:02d}-{w}x{h}-16bit.png", "deep", w, h))
    pal_sizes = ((1920, 1080), (1280, 800), (2560, 1440), (1024, 768))
    for i in range(8):
        w, h = pal_sizes[i % 4]
        plan.append((f"palette-{i:02d}-{w}x{h}.png", "palette", w, h))
    plan.append(("interlaced-00-4000x3000.png", "interlaced", 4000, 3000))
    return plan


def pdf_plan(scale_full):
    """(name, kind, pages, photo size) for the PDFs. Kinds: text, photo."""
    if not scale_full:
        text_pages = (1, 2, 5, 12, 30)
        photo_sizes = ((1600, 1200), (4000, 3000), (1600, 1200))
    else:
        text_pages = (1, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30, 45, 60)
        photo_sizes = ((1600, 1200), (4000, 3000)) * 5
    plan = [(f"text-{i:02d}-{n}p.pdf", "text", n, None) for i, n in enumerate(text_pages)]
    for i, size in enumerate(photo_sizes):
        pages = 1 + i % 3
        plan.append((f"photo-{i:02d}-{size[0]}x{size[1]}-{pages}p.pdf", "photo", pages, size))
    return plan


def text_plan(count):
    """(name, bytes, cjk) for `count` text files, sizes log-spaced from 1 KB to 2 MB."""
    plan = []
    for i in range(count):
        size = int(round(1024 * 2048 ** (i / max(1, count - 1))))
        cjk = i % 2 == 1
        plan.append((f"text-{i:03d}-{size // 1024}k-{'cjk' if cjk else 'latin'}.txt", size, cjk))
    return plan


# ---------------------------------------------------------------------------------------------
# Pictures
# ---------------------------------------------------------------------------------------------


def value_noise(rng, shape, cells):
    """A smooth random field: a (cells x cells*aspect) grid of random values, bilinearly enlarged."""
    h, w = shape
    gh = max(2, cells)
    gw = max(2, int(round(cells * w / h)))
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return ndimage.zoom(grid, (h / gh, w / gw), order=1, mode="nearest", grid_mode=True)[:h, :w]


def add_blobs(rng, image, count):
    """Paints ellipses of random colour, some with hard edges (objects), some soft (light)."""
    h, w, _ = image.shape
    for _ in range(count):
        cy, cx = rng.uniform(0, h), rng.uniform(0, w)
        ry, rx = rng.uniform(0.01, 0.15) * h, rng.uniform(0.01, 0.15) * w
        y0, y1 = int(max(0, cy - ry)), int(min(h, cy + ry + 1))
        x0, x1 = int(max(0, cx - rx)), int(min(w, cx + rx + 1))
        if y1 <= y0 or x1 <= x0:
            continue
        yy = (np.arange(y0, y1, dtype=np.float32)[:, None] - cy) / ry
        xx = (np.arange(x0, x1, dtype=np.float32)[None, :] - cx) / rx
        d = yy * yy + xx * xx
        hard = rng.random() < 0.6
        if hard:
            mask = (d < 1.0).astype(np.float32) * rng.uniform(0.6, 1.0)
        else:
            mask = np.clip(1.0 - d, 0.0, 1.0) ** 2 * rng.uniform(0.3, 0.8)
        colour = (rng.uniform(20, 235) + rng.uniform(-50, 50, 3)).astype(np.float32)
        region = image[y0:y1, x0:x1]
        region += (colour[None, None, :] - region) * mask[:, :, None]


def photo(width, height, seed):
    """A photograph-like RGB picture (height x width x 3, float32, 0..255)."""
    rng = np.random.default_rng(seed)
    # Composition at a quarter of the size: light, colour regions and objects.
    sh, sw = -(-height // 4), -(-width // 4)
    y = np.linspace(0, 1, sh, dtype=np.float32)[:, None, None]
    x = np.linspace(0, 1, sw, dtype=np.float32)[None, :, None]
    top, bottom = rng.uniform(40, 220, 3), rng.uniform(20, 200, 3)
    small = (top + (bottom - top) * y + rng.uniform(-40, 40, 3) * x).astype(np.float32)
    small = np.broadcast_to(small, (sh, sw, 3)).copy()
    for cells, amplitude in ((3, 40), (8, 25), (24, 14), (80, 8)):
        lum = value_noise(rng, (sh, sw), cells) * amplitude
        tint = rng.uniform(0.6, 1.4, 3).astype(np.float32)
        small += lum[:, :, None] * tint[None, None, :]
    add_blobs(rng, small, 90)
    small = ndimage.gaussian_filter(small, (0.7, 0.7, 0))
    texture_map = np.clip(value_noise(rng, (sh, sw), 6) * 0.6 + 0.5, 0.05, 1.0)
    # Enlarge 4x (repeat, then a Gaussian to hide the blocks) and add fine detail per channel:
    # texture that varies by region (smooth sky next to grass) and a little sensor noise.
    texture = ndimage.gaussian_filter(rng.standard_normal((height, width), dtype=np.float32), 0.8)
    texture *= 40.0 * enlarge(texture_map, height, width)
    big = np.empty((height, width, 3), dtype=np.float32)
    for c in range(3):
        channel = ndimage.gaussian_filter(enlarge(small[:, :, c], height, width), 2.0)
        channel += texture
        channel += rng.standard_normal((height, width), dtype=np.float32) * 1.5
        np.clip(channel, 0, 255, out=channel)
        big[:, :, c] = channel
    return big


def enlarge(plane, height, width):
    """A plane made 4x larger by repeating pixels, cropped to height x width."""
    return np.repeat(np.repeat(plane, 4, axis=0), 4, axis=1)[:height, :width]


def screenshot(width, height, seed):
    """A window screenshot (RGBA uint8): shadowed transparent margin, flat UI, text-like blocks."""
    rng = np.random.default_rng(seed)
    margin = max(16, width // 50)
    rgb = np.empty((height, width, 3), dtype=np.float32)
    rgb[:] = (246, 246, 248)
    alpha = np.zeros((height, width), dtype=np.float32)
    alpha[margin:-margin, margin:-margin] = 1.0
    shadow = ndimage.gaussian_filter(alpha, margin / 3) * 0.45
    rgb[:] = np.where(alpha[:, :, None] > 0, rgb, 0.0)
    x0, y0, x1, y1 = margin, margin, width - margin, height - margin
    title = max(22, height // 30)
    rgb[y0:y0 + title, x0:x1] = (226, 226, 230)
    for i, colour in enumerate(((255, 95, 87), (254, 188, 46), (40, 200, 64))):
        cx = x0 + 14 + i * 20
        rgb[y0 + title // 2 - 5:y0 + title // 2 + 5, cx:cx + 10] = colour
    side = (x1 - x0) // 5
    rgb[y0 + title:y1, x0:x0 + side] = (232, 234, 240)
    text_blocks(rng, rgb, x0 + 12, y0 + title + 14, x0 + side - 12, y1 - 12, (60, 60, 70), 24)
    # Content: a header bar, paragraphs, buttons and an embedded picture.
    cx0 = x0 + side + 24
    rgb[y0 + title:y0 + title + 48, x0 + side:x1] = rng.uniform(60, 200, 3)
    text_blocks(rng, rgb, cx0, y0 + title + 72, x1 - 24, y1 - 24, (30, 30, 30), 18)
    ph, pw = (y1 - y0) // 3, (x1 - cx0) // 3
    py, px = y0 + title + 80 + (y1 - y0) // 4, x1 - pw - 40
    rgb[py:py + ph, px:px + pw] = photo(pw, ph, seed + 1)
    for i in range(4):
        bx = cx0 + i * 130
        rgb[y1 - 60:y1 - 30, bx:bx + 110] = rng.uniform(40, 230, 3)
    rgba = np.empty((height, width, 4), dtype=np.uint8)
    rgba[:, :, :3] = np.clip(rgb, 0, 255).astype(np.uint8)
    rgba[:, :, 3] = np.clip(np.maximum(alpha, shadow) * 255, 0, 255).astype(np.uint8)
    return rgba


def text_blocks(rng, rgb, x0, y0, x1, y1, colour, line_height):
    """Rows of word-sized dark rectangles, in paragraphs: text at a glance."""
    glyph = max(6, line_height * 6 // 10)
    y = y0
    while y + glyph < y1:
        if rng.random() < 0.12:  # paragraph break
            y += line_height
            continue
        x = x0
        end = x1 - rng.integers(0, max(1, (x1 - x0) // 3))
        while True:
            word = int(rng.integers(glyph, glyph * 7))
            if x + word > end:
                break
            rgb[y:y + glyph, x:x + word] = colour
            x += word + glyph // 2
        y += line_height


def write_pnm(path, pixels, maxval=255):
    """Writes a binary PPM (RGB) or PAM (RGBA) file; 16-bit samples when maxval > 255."""
    h, w, channels = pixels.shape
    if maxval > 255:
        data = pixels.astype(">u2").tobytes()
    else:
        data = pixels.astype(np.uint8).tobytes()
    with open(path, "wb") as f:
        if channels == 3:
            f.write(b"P6\n%d %d\n%d\n" % (w, h, maxval))
        else:
            f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL %d\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
                    % (w, h, maxval))
        f.write(data)


def make_jpeg(path, width, height, seed, progressive, tmp):
    """Encodes a photo with cjpeg (quality 90, optimised, 4:2:0)."""
    ppm = os.path.join(tmp, "photo.ppm")
    write_pnm(ppm, photo(width, height, seed).astype(np.uint8))
    args = ["cjpeg", "-quality", "90", "-optimize"]
    if progressive:
        args.append("-progressive")
    subprocess.run(args + ["-outfile", path, ppm], check=True)
    os.remove(ppm)


def jxl_plan(count):
    """(name, width, height) for `count` JPEG XL photos, the JPEG sizes taking turns."""
    return [(f"photo-{i:02d}-{JPEG_SIZES[i % 3][0]}x{JPEG_SIZES[i % 3][1]}.jxl",) + JPEG_SIZES[i % 3]
            for i in range(count)]


def make_jxl(path, width, height, seed, tmp):
    """Encodes a photo with cjxl at its default visual distance (1.0: lossy, XYB), one thread."""
    ppm = os.path.join(tmp, "photo.ppm")
    write_pnm(ppm, photo(width, height, seed).astype(np.uint8))
    subprocess.run(["cjxl", ppm, path, "-d", "1", "--num_threads=0"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    os.remove(ppm)


def make_psd(path, width, height, seed, tmp):
    """A photo as a Photoshop document by ImageMagick (its composite PackBits-compressed)."""
    ppm = os.path.join(tmp, "photo.ppm")
    write_pnm(ppm, photo(width, height, seed).astype(np.uint8))
    subprocess.run(["convert", ppm, path], check=True)
    os.remove(ppm)


# The HDR pictures' containers, taking turns: OpenEXR (ZIP), Radiance HDR, 32-bit float TIFF
# (Deflate with the floating-point predictor).
HDR_KINDS = (("exr", ["-compress", "zip"]), ("hdr", []),
             ("tif", ["-define", "quantum:format=floating-point", "-depth", "32", "-compress", "zip",
                      "-define", "tiff:predictor=3"]))


def hdr_plan(count):
    """(name, width, height, extra arguments) for `count` HDR pictures, the containers and the
    JPEG sizes but the largest taking turns."""
    return [(f"hdr-{i:02d}-{JPEG_SIZES[i % 2][0]}x{JPEG_SIZES[i % 2][1]}.{HDR_KINDS[i % 3][0]}",)
            + JPEG_SIZES[i % 2] + (HDR_KINDS[i % 3][1],) for i in range(count)]


def make_hdr(path, width, height, extra, seed, tmp):
    """A photo as linear light (ImageMagick's -colorspace RGB) in an HDR container, by ImageMagick."""
    ppm = os.path.join(tmp, "photo.ppm")
    write_pnm(ppm, photo(width, height, seed).astype(np.uint8))
    subprocess.run([CONVERT, ppm, "-colorspace", "RGB", *extra, path], check=True)
    os.remove(ppm)


# The long tail's rasters Glance reads itself, taking turns: PCX, SGI, Sun raster, DDS (BC1) and
# 16-bit FITS, each a photo written by ImageMagick (the X window dump and WBMP are not here:
# libvips reads neither).
RASTER_KINDS = (("pcx", []), ("sgi", []), ("ras", []),
                ("dds", ["-define", "dds:compression=dxt1", "-define", "dds:mipmaps=0"]), ("fits", ["-depth", "16"]))


# The simple rasters, taking turns: a Windows 3 BMP (24-bit), a run-length encoded Targa (both
# through gdk-pixbuf in Glance, libvips' ImageMagick loader in vipsthumbnail) and a binary PPM
# (Glance's own Netpbm reader, libvips' own), each a photo written by ImageMagick.
BITMAP_KINDS = (("bmp", "BMP3:", []), ("tga", "", ["-compress", "RLE"]), ("ppm", "", []))


def make_bitmap(path, width, height, prefix, extra, seed, tmp):
    """A photo in one of BITMAP_KINDS, by ImageMagick."""
    ppm = os.path.join(tmp, "photo.ppm")
    write_pnm(ppm, photo(width, height, seed).astype(np.uint8))
    subprocess.run([CONVERT, ppm, *extra, prefix + path], check=True)
    os.remove(ppm)


def make_raster(path, width, height, extra, seed, tmp):
    """A photo in one of RASTER_KINDS, by ImageMagick."""
    ppm = os.path.join(tmp, "photo.ppm")
    write_pnm(ppm, photo(width, height, seed).astype(np.uint8))
    subprocess.run([CONVERT, ppm, *extra, path], check=True)
    os.remove(ppm)


def make_djvu(path, width, height, seed, tmp):
    """A scanned page: a photo at 300 dpi, by DjVuLibre's c44 (IW44 wavelets)."""
    ppm = os.path.join(tmp, "photo.ppm")
    write_pnm(ppm, photo(width, height, seed).astype(np.uint8))
    subprocess.run(["c44", "-dpi", "300", ppm, path], check=True, stdout=subprocess.DEVNULL)
    os.remove(ppm)


def postscript_page(seed):
    """A US Letter page of PostScript: a title, boxes of colour and forty lines of text."""
    rng = np.random.default_rng(seed)
    lines = ["%!PS-Adobe-3.0", "%%BoundingBox: 0 0 612 792", "%%Pages: 1", "%%EndComments", "%%Page: 1 1",
             "/Helvetica-Bold findfont 28 scalefont setfont 72 720 moveto (Quarterly report) show"]
    for box in range(6):
        r, g, b = rng.random(3)
        lines.append(f"{r:.3f} {g:.3f} {b:.3f} setrgbcolor {72 + box * 78} 600 70 90 rectfill")
    lines.append("0 setgray /Times-Roman findfont 10 scalefont setfont")
    for row in range(40):
        words = " ".join(word(rng) for _ in range(12))
        lines.append(f"72 {570 - row * 12} moveto ({words}) show")
    lines += ["showpage", "%%EOF"]
    return "\n".join(lines) + "\n"


def make_png(path, kind, width, height, seed, tmp):
    """Makes one PNG of the given kind with ImageMagick."""
    deterministic = ["-strip", "-define", "png:exclude-chunks=date,time"]
    if kind == "screenshot":
        src = os.path.join(tmp, "shot.pam")
        write_pnm(src, screenshot(width, height, seed))
        out, extra = "PNG32:" + path, []
    elif kind == "palette":
        src = os.path.join(tmp, "shot.ppm")
        write_pnm(src, screenshot(width, height, seed)[:, :, :3])
        out, extra = "PNG8:" + path, ["+dither", "-colors", "256"]
    elif kind == "deep":
        src = os.path.join(tmp, "deep.ppm")
        write_pnm(src, (photo(width, height, seed) * 257.0).astype(np.uint16), maxval=65535)
        out, extra = "PNG48:" + path, []
    else:  # photo, interlaced
        src = os.path.join(tmp, "photo.ppm")
        write_pnm(src, photo(width, height, seed).astype(np.uint8))
        out, extra = "PNG24:" + path, (["-interlace", "PNG"] if kind == "interlaced" else [])
    subprocess.run([CONVERT, src] + extra + deterministic + [out], check=True)
    os.remove(src)


# ---------------------------------------------------------------------------------------------
# PDFs, written by hand
# ---------------------------------------------------------------------------------------------


def pdf_document(pages):
    """A complete PDF file (bytes) from a list of pages.

    Each page is (width, height, content stream bytes, images) where images maps XObject names
    to (jpeg bytes, pixel width, pixel height). Fonts: Helvetica as /F1 on every page.
    """
    objects = []  # object bodies; object n is objects[n - 1]

    def add(body):
        objects.append(body)
        return len(objects)

    catalog = add(None)
    page_tree = add(None)
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for width, height, content, images in pages:
        xobjects = b""
        for name, (data, pw, ph) in images.items():
            image = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                        b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream"
                        % (pw, ph, len(data), data))
            xobjects += b"/%s %d 0 R " % (name.encode(), image)
        stream = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
        resources = b"<< /Font << /F1 %d 0 R >> /XObject << %s>> >>" % (font, xobjects)
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents %d 0 R >>"
                        % (page_tree, width, height, resources, stream)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % page_tree
    objects[page_tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, xref)
    return bytes(out)


def pdf_string(text):
    """A PDF literal string with ( ) and backslash escaped."""
    return b"(" + text.encode("latin-1").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def text_page_content(rng, width, height, page_number):
    """A page of Helvetica text: a heading and ~60 lines of pseudo-English."""
    lines = [b"BT /F1 16 Tf 60 %d Td %s Tj ET" % (height - 70, pdf_string(f"Chapter {page_number}: {sentence(rng, 4)}"))]
    lines.append(b"BT /F1 10 Tf 13 TL 60 %d Td" % (height - 100))
    for _ in range((height - 150) // 13):
        lines.append(pdf_string(line_of_words(rng, (width - 120) // 5)) + b" Tj T*")
    lines.append(b"ET")
    return b"\n".join(lines)


def make_pdf(path, kind, pages, photo_size, seed, tmp):
    """Writes a text PDF of `pages` pages, or a PDF whose pages each show a photo and a caption."""
    rng = np.random.default_rng(seed)
    page_sizes = ((595, 842), (612, 792), (842, 595))  # A4, Letter, A4 landscape
    width, height = page_sizes[seed % 3] if kind == "text" else page_sizes[2 if seed % 2 else 0]
    built = []
    for n in range(pages):
        if kind == "text":
            built.append((width, height, text_page_content(rng, width, height, n + 1), {}))
            continue
        pw, ph = photo_size
        jpeg = os.path.join(tmp, "page.jpg")
        make_jpeg(jpeg, pw, ph, seed * 100 + n, progressive=False, tmp=tmp)
        with open(jpeg, "rb") as f:
            data = f.read()
        os.remove(jpeg)
        box_w = width - 80
        box_h = box_w * ph // pw
        content = (b"q %d 0 0 %d 40 %d cm /Im0 Do Q\n" % (box_w, box_h, height - 60 - box_h)
                   + b"BT /F1 11 Tf 40 %d Td %s Tj ET" % (height - 80 - box_h, pdf_string(sentence(rng, 12))))
        built.append((width, height, content, {"Im0": (data, pw, ph)}))
    with open(path, "wb") as f:
        f.write(pdf_document(built))


# ---------------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------------

SYLLABLES = ("ka", "lo", "mi", "ne", "ra", "to", "shi", "ven", "dor", "ul", "an", "the", "st", "qu",
             "ple", "ar", "in", "ex", "com", "ber", "tion", "al", "es", "or", "y", "ght", "ma", "se")
CJK_PUNCTUATION = "，。、；：「」"


def word(rng):
    """A pronounceable pseudo-word of 1-4 syllables."""
    return "".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), rng.integers(1, 5)))


def sentence(rng, words):
    text = " ".join(word(rng) for _ in range(words))
    return text[:1].upper() + text[1:] + "."


def line_of_words(rng, characters):
    """Words up to about `characters` characters."""
    parts, length = [], 0
    while length < characters - 12:
        w = word(rng)
        parts.append(w)
        length += len(w) + 1
    return " ".join(parts)


def latin_text(rng, size):
    """Paragraphs of pseudo-English wrapped at 72 columns, about `size` bytes."""
    pool = [word(rng) for _ in range(4000)]
    picks = rng.integers(0, len(pool), size // 4 + 16)
    lines, line, total = [], [], 0
    for i, index in enumerate(picks):
        w = pool[index]
        if sum(map(len, line)) + len(line) + len(w) > 72:
            lines.append(" ".join(line))
            total += len(lines[-1]) + 1
            line = []
            if rng.random() < 0.1:
                lines.append("")
            if total >= size:
                break
        line.append(w + ("." if i % 11 == 10 else ""))
    return "\n".join(lines) + "\n"


def cjk_text(rng, size):
    """Lines of CJK ideographs and punctuation with a little ASCII, about `size` UTF-8 bytes."""
    count = size // 3 + 16
    codes = rng.integers(0x4E00, 0x7000, count)
    chars = [chr(c) for c in codes]
    for i in rng.integers(0, count, count // 12):
        chars[i] = CJK_PUNCTUATION[i % len(CJK_PUNCTUATION)]
    lines, pos, total = [], 0, 0
    while pos < count and total < size:
        n = int(rng.integers(20, 40))
        line = "".join(chars[pos:pos + n])
        if rng.random() < 0.1:
            line = f"第{pos}节 Glance {pos % 97} " + line
        lines.append(line)
        total += len(line.encode("utf-8")) + 1
        pos += n
    return "\n".join(lines) + "\n"


def make_text(path, size, cjk, seed):
    rng = np.random.default_rng(seed)
    text = cjk_text(rng, size) if cjk else latin_text(rng, size)
    data = text.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)


# ---------------------------------------------------------------------------------------------
# Tiny PNGs (for the 10,000-document container), written directly with zlib
# ---------------------------------------------------------------------------------------------


def tiny_png(width, height, rgb):
    """A valid 8-bit RGB PNG filled with one colour."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    row = b"\x00" + bytes(rgb) * width
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(row * height, 9))
            + chunk(b"IEND", b""))


def ensure_files(name, count, write):
    """bench/work/NAME/docs: `count` files made by `write(index)` -> (relative path, bytes), made
    again only when the count changes. Returns the folder."""
    docs = os.path.join(WORK_DIR, name, "docs")
    stamp = os.path.join(WORK_DIR, name, "docs.stamp")
    if os.path.exists(stamp):
        with open(stamp) as f:
            if f.read().strip() == str(count):
                return docs
    shutil.rmtree(os.path.join(WORK_DIR, name), ignore_errors=True)
    for i in range(count):
        relative, data = write(i)
        path = os.path.join(docs, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    with open(stamp, "w") as f:
        f.write(str(count))
    return docs


def ensure_many(count=MANY_COUNT):
    """bench/work/many/docs: `count` distinct 16x12 PNGs in 100 folders. Returns the folder."""
    return ensure_files("many", count, lambda i: (
        f"d{i // 100:03d}/tiny-{i:05d}.png", tiny_png(16, 12, (i % 256, (i // 256) % 256, (i * 7) % 256))))


def ensure_hundred_thousand(count=100_000):
    """bench/work/100k/docs: `count` one-line text files in 100 folders (a listing's cost is the
    walk and the store, not the documents: they are never rendered). Returns the folder."""
    return ensure_files("100k", count, lambda i: (f"d{i // 1000:03d}/note-{i:06d}.txt", f"note {i}\n".encode()))


# ---------------------------------------------------------------------------------------------
# The corpus as a whole, cached
# ---------------------------------------------------------------------------------------------


def scale_is_full():
    return os.environ.get("BENCH_SCALE", "0") not in ("", "0")


def generator_hash(scale_full):
    """Changes when this file or the scale changes: the corpus is then made again."""
    with open(os.path.abspath(__file__), "rb") as f:
        source = f.read()
    return hashlib.sha256(source + (b"full" if scale_full else b"small")).hexdigest()[:16]


def require_numpy():
    if np is None:
        raise RuntimeError("making the bench corpus needs numpy and scipy (make bench installs them)")


def build_corpus(root, scale_full, log):
    """Makes every file of the corpus under root and returns the manifest."""
    tmp = tempfile.mkdtemp(dir=WORK_DIR)
    manifest = []
    try:
        for fmt in FORMATS:
            os.makedirs(os.path.join(root, fmt), exist_ok=True)
        for i, (name, w, h, progressive) in enumerate(jpeg_plan(45 if scale_full else 8)):
            log(f"  jpeg {name}")
            path = os.path.join(root, "jpeg", name)
            make_jpeg(path, w, h, 1000 + i, progressive, tmp)
            manifest.append({"format": "jpeg", "file": name, "width": w, "height": h})
        for i, (name, kind, w, h) in enumerate(png_plan(scale_full)):
            log(f"  png  {name}")
            make_png(os.path.join(root, "png", name), kind, w, h, 2000 + i, tmp)
            manifest.append({"format": "png", "file": name, "width": w, "height": h, "kind": kind})
        for i, (name, kind, pages, photo_size) in enumerate(pdf_plan(scale_full)):
            log(f"  pdf  {name}")
            make_pdf(os.path.join(root, "pdf", name), kind, pages, photo_size, 3000 + i, tmp)
            manifest.append({"format": "pdf", "file": name, "pages": pages, "kind": kind})
        plan = text_plan(200 if scale_full else 40)
        log(f"  text {len(plan)} files")
        for i, (name, size, cjk) in enumerate(plan):
            make_text(os.path.join(root, "text", name), size, cjk, 4000 + i)
            manifest.append({"format": "text", "file": name, "cjk": cjk})
        for i in range(8 if scale_full else 4):
            w, h = JPEG_SIZES[i % 2]
            name = f"photo-{i:02d}-{w}x{h}.psd"
            log(f"  psd  {name}")
            make_psd(os.path.join(root, "psd", name), w, h, 7000 + i, tmp)
            manifest.append({"format": "psd", "file": name, "width": w, "height": h})
        for i in range(8 if scale_full else 4):
            name = f"scan-{i:02d}.djvu"
            log(f"  djvu {name}")
            make_djvu(os.path.join(root, "djvu", name), 2550, 3300, 8000 + i, tmp)
            manifest.append({"format": "djvu", "file": name, "width": 2550, "height": 3300})
        for i in range(12 if scale_full else 6):
            name = f"report-{i:02d}.ps"
            with open(os.path.join(root, "ps", name), "w") as f:
                f.write(postscript_page(9000 + i))
            subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=xpswrite",
                            "-sOutputFile=" + os.path.join(root, "xps", f"report-{i:02d}.xps"),
                            os.path.join(root, "ps", name)], check=True, stdout=subprocess.DEVNULL)
            manifest.append({"format": "ps", "file": name})
            manifest.append({"format": "xps", "file": f"report-{i:02d}.xps"})
        log("  ps, xps: report pages")
        # The fonts TestAssets/generate.py builds (fontTools' FontBuilder), each four times.
        fonts = os.path.join(os.path.dirname(BENCH_DIR), "TestAssets", "fonts")
        for i in range(8 if scale_full else 4):
            for source in ("latin.ttf", "latin-cff.otf", "cjk.ttf", "symbols.ttf", "latin.woff2"):
                stem_name, extension = os.path.splitext(source)
                name = f"{stem_name}-{i}{extension}"
                shutil.copy(os.path.join(fonts, source), os.path.join(root, "font", name))
                manifest.append({"format": "font", "file": name})
        log("  font: 20 fonts")
        for i, (name, w, h) in enumerate(jxl_plan(24 if scale_full else 6)):
            log(f"  jxl  {name}")
            make_jxl(os.path.join(root, "jxl", name), w, h, 6000 + i, tmp)
            manifest.append({"format": "jxl", "file": name, "width": w, "height": h})
        for i, (name, w, h, extra) in enumerate(hdr_plan(12 if scale_full else 6)):
            log(f"  hdr  {name}")
            make_hdr(os.path.join(root, "hdr", name), w, h, extra, 10000 + i, tmp)
            manifest.append({"format": "hdr", "file": name, "width": w, "height": h})
        for i in range(10 if scale_full else 5):
            w, h = JPEG_SIZES[i % 2]
            kind, extra = RASTER_KINDS[i % len(RASTER_KINDS)]
            name = f"raster-{i:02d}-{w}x{h}.{kind}"
            log(f"  rasters {name}")
            make_raster(os.path.join(root, "rasters", name), w, h, extra, 11000 + i, tmp)
            manifest.append({"format": "rasters", "file": name, "width": w, "height": h})
        for i in range(12 if scale_full else 6):
            w, h = JPEG_SIZES[i // len(BITMAP_KINDS) % 2]
            kind, prefix, extra = BITMAP_KINDS[i % len(BITMAP_KINDS)]
            name = f"bitmap-{i:02d}-{w}x{h}.{kind}"
            log(f"  bitmaps {name}")
            make_bitmap(os.path.join(root, "bitmaps", name), w, h, prefix, extra, 12000 + i, tmp)
            manifest.append({"format": "bitmaps", "file": name, "width": w, "height": h})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for entry in manifest:
        entry["bytes"] = os.path.getsize(os.path.join(root, entry["format"], entry["file"]))
    return manifest


def build_extras(folder, log):
    """Two photo PNGs of width 4000 and 1000 / 4000 rows: a worker's memory must not grow with height."""
    tmp = tempfile.mkdtemp(dir=WORK_DIR)
    try:
        for rows in (1000, 4000):
            log(f"  extra rows-{rows}.png")
            make_png(os.path.join(folder, f"rows-{rows}.png"), "photo", 4000, rows, 5000 + rows, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cached_folder(folder, key, build, log):
    """Runs build(folder) unless folder/stamp holds key; returns what build returned or the cache.
    A folder made by another version is removed only once the pictures can be made (numpy)."""
    stamp = os.path.join(folder, "stamp")
    manifest_path = os.path.join(folder, "manifest.json")
    if os.path.exists(stamp) and os.path.exists(manifest_path):
        with open(stamp) as f:
            if f.read().strip() == key:
                with open(manifest_path) as f:
                    return json.load(f)
    require_numpy()
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    log(f"Generating {os.path.relpath(folder, os.path.dirname(BENCH_DIR))} ...")
    manifest = build(folder) or []
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
    with open(stamp, "w") as f:
        f.write(key)
    return manifest


def ensure_corpus(log=print):
    """Makes (or reuses) the corpus for BENCH_SCALE and the extras. Returns (root, manifest)."""
    os.makedirs(WORK_DIR, exist_ok=True)
    full = scale_is_full()
    root = os.path.join(WORK_DIR, "corpus-full" if full else "corpus-small")
    key = generator_hash(full)
    manifest = cached_folder(root, key, lambda folder: build_corpus(folder, full, log), log)
    cached_folder(os.path.join(WORK_DIR, "extras"), generator_hash(True) + "-extras",
                  lambda folder: build_extras(folder, log), log)
    return root, manifest


if __name__ == "__main__":
    root, manifest = ensure_corpus()
    counts = {fmt: sum(1 for e in manifest if e["format"] == fmt) for fmt in FORMATS}
    print(f"{os.path.relpath(root)}: {counts}")
    sys.exit(0)
