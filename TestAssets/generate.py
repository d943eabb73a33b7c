#!/usr/bin/env python3
"""Generate Glance's test assets and their manifest, TestAssets/assets.tsv.

Run from anywhere:  python3 TestAssets/generate.py [GROUP...]
It deletes and rewrites the folders in GROUPS (png/ jpeg/ ... webp/ gif/
tiff/ heif/ svg/ media/ office/ raw/ ebook/ comics/) next to this script, or
only the groups named, then writes assets.tsv (with groups named, their rows
replace theirs and the rest are kept).

What it makes
  png/          every PNG colour type and bit depth (own PNG writer: zlib,
                struct, crc32), tRNS variants, Adam7-interlaced files, large
                and oddly shaped images, a colour-drift reference
  jpeg/         one synthetic photo encoded with baseline, progressive,
                arithmetic, restart-interval, 4:4:4, grayscale, CMYK and
                YCCK settings, colour-drift references, a huge-header file
  orientation/  the same picture stored for each EXIF orientation 0..8
                (and without EXIF), plus upright.png, the intended display
  pdf/          hand-written PDFs (sizes, /Rotate, two pages, embedded
                JPEG) and qpdf-encrypted copies
  text/         UTF-8/16/32 and legacy encodings, line-end variants, big
                and odd files; text/expected-decoding/*.utf8 holds the
                correct UTF-8 of every non-UTF-8 (or BOM) file
  corrupt/      empty, truncated, corrupt and mislabelled files
  samples/      a few nice documents for the demo (`make demo`)
  webp/         WebP made by cwebp and img2webp from the files above: lossy,
                lossless with alpha, tagged Display P3, an animation whose
                frames differ, truncated, damaged and a canvas past the
                pixel limit
  colour/       one colour chart tagged with ICC profiles (ROMM RGB, Adobe
                RGB, Display P3 made here, CMYK SWOP, sRGB), untagged, with a
                broken profile, and PNGs with gAMA/cHRM only; the Display P3
                chart again as TIFF (ICC tag 34675) and HEIC (colr prof)
  gif/          GIF made by ImageMagick and gifsicle: a 256-colour still, a
                transparent colour, interlaced, an animation, a frame smaller
                than its logical screen; truncated, damaged and 20000x20000
                (hand-written) files in corrupt/
  tiff/         TIFF made by ImageMagick, tiffcp and tiffset: RGB 8 bit LZW
                strips, RGB 16 bit Deflate, JPEG tiles, CMYK, gray PackBits,
                RGBA, three pages, Orientation 6; truncated, a bad IFD offset
                and a hand-written 20000x20000 file in corrupt/; floating-point
                TIFFs written by hand (16, 32, 64 bits, alpha, a profile) and
                a Display P3 8-bit twin
  exr/          OpenEXR (made with the tiff group): one by ImageMagick, the
                rest written by hand (alpha, chromaticities, layers, Y), and
                cut, tiled and huge files
  hdr/          Radiance HDR (made with the tiff group): one by ImageMagick,
                the rest written by hand (flat, run-length, old repeats,
                PRIMARIES=), and cut, XYZE, huge and overrunning files
  heif/         HEIC (x265) and AVIF (libaom) made by heif-enc: a photo, one
                with an embedded thumbnail, alpha, an irot added here by
                editing the boxes (heif-enc cannot write one); truncated,
                damaged and an ispe patched to 20000x20000 in corrupt/
  media/        videos and sound files made by ffmpeg from a still or a test
                pattern: H.264 with a black fade-in, a portrait clip (a display
                matrix written here), an anamorphic one, HDR10 (PQ) and HLG
                HEVC made from an SDR picture by the formulas of BT.2100 (so
                the SDR picture is the reference), Dolby Vision profiles 8.1
                and 5 (a dvcC box added here), VP9 WebM, AVI, MPEG-TS; MP3,
                FLAC, M4A and Opus with and without cover pictures (Opus's
                METADATA_BLOCK_PICTURE written here); truncated and hostile
                files (an HLS playlist named .mp4)
  office/       office documents made by LibreOffice's own --convert-to from
                flat OpenDocument files written here: a two-page letter as
                DOCX, ODT, DOC and RTF, a three-sheet workbook as XLSX, ODS
                and XLS, a three-slide deck as PPTX, ODP and PPT, a drawing,
                a sheet of 100,000 rows, a deck of 200 slides; hostile ones
                assembled with zipfile: a bomb, an entry of 300 MiB, a bomb
                nested in an embedded workbook, an encrypted DOCX (PyPI's
                msoffcrypto-tool), an ODT whose manifest says it is
                encrypted, a ZIP of texts named .docx, a macro bound to a
                document's opening, links to a template and an image on
                another host; a truncated DOCX
  svg/          hand-written SVG: shapes, a large size, viewBox only, text,
                gzip-compressed .svgz; hostile/svg-* are references outside
                the document (must not be followed), an entity bomb, deep
                nesting, a huge blur and a <use> bomb; corrupt/broken.svg
  raw/          DNG raw photos written here from the DNG 1.4 specification: a
                16-bit RGGB mosaic of four flat quadrants (red, green, blue,
                grey) whose camera RGB is linear sRGB, with a 640x480 JPEG
                preview (a white centre square only the preview has), without
                one, with a 160x120 one, turned by Orientation 6; truncated,
                60000x40000 declared; a plain TIFF whose Make names a camera
                maker
  ebook/        EPUBs assembled with zipfile: a cover named by <meta
                name="cover"> (beating a cover-image item), by a cover-image
                item, the first chapter's image, a meta naming an absent file,
                text only; no container.xml, entries encrypted (traditional
                PKWARE, written here), a bomb (a declared size written here)
  comics/       comic books of flat pages: CBZ whose first page by natural
                sort is stored last (junk, hidden and folder entries beside),
                pages in a folder, RAR 4 and RAR 5 written here (stored), 7z
                by 7zz; no pages, encrypted and bomb CBZ, a ZIP of texts

CMYK: ImageMagick 6 writes every CMYK JPEG as YCCK (Adobe transform 2), so
jpeg/ycck.jpg comes from ImageMagick and jpeg/cmyk.jpg is assembled from
four cjpeg planes (see cmyk_jpeg).

assets.tsv lists every generated file, references and demo files included;
columns: path kind outcome width height note
  kind     png | jpeg | pdf | text | webp | gif | tiff | heic | avif | svg |
           dng | epub | cbz | cbr | cb7 | ... | none (what sniffing the bytes
           says)
  outcome  ok | error:<lower-case fragment of the error message> |
           either (ok or any error is acceptable)
  width/height  expected thumbnail size, `*` for errors

Tools needed: python3 (stdlib only), the ICC profiles of icc-profiles-free
and ghostscript in /usr/share/color/icc, /usr/bin/convert (ImageMagick 6; the
`convert` first on PATH may be something else), cjpeg and jpegtran from
libjpeg-turbo-progs, qpdf, cwebp and img2webp (Debian's webp), gifsicle,
tiffcp and tiffset (libtiff-tools), heif-enc (libheif-examples, 1.15, with
the x265 and aom plugins), ffmpeg (Debian's, with libx264, libx265, libvpx,
libmp3lame and libopus) for media/, 7zz (Debian's 7zip) for comics/.

Determinism: fixed seeds, no timestamps (ImageMagick runs with -strip and
without ancillary PNG chunks, PDFs carry a fixed /CreationDate, qpdf runs
with --static-id and --static-aes-iv). qpdf's AES-256 file key and salts
are random, so the two encrypted PDFs reuse the previous run's encryption
parameters when those files exist (see encrypt_letter); from scratch they
get new random keys. heif-enc writes no timestamps, and its encoders give
the same bytes whatever the number of cores: x265's thread pool does not
change its output, and libaom's output depends on its `threads` parameter
(libheif's default 4, a constant, not the core count), which make_heif
sets explicitly. Everything else is byte-identical between runs on one
machine; another zlib, libjpeg or ImageMagick version may give different
bytes (same pixels).
"""

import bz2
import gzip
import io
import lzma
import math
import base64
import os
import random
import re
import shutil
import struct
import subprocess
import tempfile
import zipfile
import zlib

ROOT = os.path.dirname(os.path.abspath(__file__))
CONVERT = "/usr/bin/convert"
GROUPS = ["png", "jpeg", "orientation", "pdf", "text", "corrupt", "samples", "collision", "hostile",
          "colour", "webp", "gif", "tiff", "heif", "svg", "media", "office", "raw", "ebook", "comics",
          "bitmaps", "paintings", "iwork", "blender", "mobi", "icns", "pam", "qoi", "jxl", "psd", "postscript", "djvu", "xps", "fonts", "metafiles", "carried", "jpeg2000", "visio", "xpm", "rasters", "compressed"]
MANIFEST = []  # rows: (path, kind, outcome, width, height, note)
TMP = None     # scratch folder, set in main()


# ---------------------------------------------------------------- helpers

def out(rel):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


def write(rel, data):
    with open(out(rel), "wb") as f:
        f.write(data)


def read(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


def run(*args, **kw):
    subprocess.run(list(args), check=True, **kw)


def rnd(x):
    """Round half up, like Swift's .rounded()."""
    return int(math.floor(x + 0.5))


def fit_image(w, h):
    """Thumbnail size of a w x h image: fit into 1024 x 1024, never enlarge."""
    long_side = max(w, h)
    scale = min(1024, long_side) / long_side
    if w >= h:
        return min(1024, w), max(1, rnd(h * scale))
    return max(1, rnd(w * scale)), min(1024, h)


def fit_page(w, h):
    """Thumbnail size of a PDF page: the longest side is always 1024."""
    scale = 1024 / max(w, h)
    if w >= h:
        return 1024, max(1, rnd(h * scale))
    return max(1, rnd(w * scale)), 1024


def record(rel, kind, outcome, size, note):
    w, h = size if size else ("*", "*")
    MANIFEST.append((rel, kind, outcome, str(w), str(h), note))


def ok_image(rel, kind, w, h, note):
    record(rel, kind, "ok", fit_image(w, h), note)


def magick(*args):
    """Run ImageMagick 6 without timestamps or other ancillary chunks."""
    run(CONVERT, *args[:-1], "-strip", "-quality", "95",
        "-define", "png:exclude-chunk=all", args[-1])


# ---------------------------------------------------------------- PNG writer

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
         (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
ABS = [min(b, 256 - b) for b in range(256)]


def png_chunk(tag, data):
    return (struct.pack(">I", len(data)) + tag + data
            + struct.pack(">I", zlib.crc32(tag + data)))


def pack_row(samples, depth):
    """Flat list of samples -> bytes (MSB first for depths below 8)."""
    if isinstance(samples, (bytes, bytearray)):
        return bytes(samples)
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return struct.pack(">%dH" % len(samples), *samples)
    per = 8 // depth
    packed = bytearray()
    for i in range(0, len(samples), per):
        byte = 0
        for j, s in enumerate(samples[i:i + per]):
            byte |= s << (8 - depth * (j + 1))
        packed.append(byte)
    return bytes(packed)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(kind, row, prev, bpp):
    left = bytes(bpp) + row[:-bpp]
    if kind == 0:
        return row
    if kind == 1:
        return bytes((x - a) & 255 for x, a in zip(row, left))
    if kind == 2:
        return bytes((x - b) & 255 for x, b in zip(row, prev))
    if kind == 3:
        return bytes((x - ((a + b) >> 1)) & 255
                     for x, a, b in zip(row, left, prev))
    upleft = bytes(bpp) + prev[:-bpp]
    return bytes((x - paeth(a, b, c)) & 255
                 for x, a, b, c in zip(row, left, prev, upleft))


def filtered(rows, bpp, mode):
    """Filter packed rows. mode 'cycle' uses types 0..4 in turn (to exercise
    every decoder path); 'auto' picks the cheapest of None/Sub/Up."""
    data, prev = bytearray(), bytes(len(rows[0]))
    for i, row in enumerate(rows):
        if mode == "cycle":
            kind = i % 5
            line = filter_row(kind, row, prev, bpp)
        else:
            cands = [(sum(map(ABS.__getitem__, f)), k, f) for k, f in
                     ((k, filter_row(k, row, prev, bpp)) for k in (0, 1, 2))]
            _, kind, line = min(cands, key=lambda c: (c[0], c[1]))
        data.append(kind)
        data += line
        prev = row
    return bytes(data)


def encode_png(w, h, ctype, depth, rows, palette=None, trns=None,
               interlace=False, filters="auto"):
    """rows: h lists of w*channels samples (or packed bytes for depth 8)."""
    ch = CHANNELS[ctype]
    bpp = max(1, ch * depth // 8)
    if not interlace:
        raw = filtered([pack_row(r, depth) for r in rows], bpp, filters)
    else:
        raw = b""
        for x0, y0, dx, dy in ADAM7:
            xs, ys = range(x0, w, dx), range(y0, h, dy)
            if not xs or not ys:
                continue  # empty passes are left out entirely
            sub = []
            for y in ys:
                r = rows[y]
                sub.append(pack_row([r[x * ch + c] for x in xs
                                     for c in range(ch)], depth))
            raw += filtered(sub, bpp, filters)
    png = b"\x89PNG\r\n\x1a\n"
    png += png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype,
                                          0, 0, 1 if interlace else 0))
    if palette:
        png += png_chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    if trns is not None:
        png += png_chunk(b"tRNS", trns)
    png += png_chunk(b"IDAT", zlib.compress(raw, 9))
    return png + png_chunk(b"IEND", b"")


def png_chunks(data):
    """Split a PNG into (offset, tag, payload) tuples."""
    pos, chunks = 8, []
    while pos < len(data):
        n, tag = struct.unpack(">I4s", data[pos:pos + 8])
        chunks.append((pos, tag, data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return chunks


# ---------------------------------------------------------------- pictures

BAYER4 = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5]


def quant(v, levels, x, y):
    """0..1 -> 0..levels-1, ordered-dithered when there are few levels."""
    if levels > 16:
        return min(levels - 1, rnd(v * (levels - 1)))
    t = (BAYER4[(y & 3) * 4 + (x & 3)] + 0.5) / 16
    return min(levels - 1, int(v * (levels - 1) + t))


def suite_pixel(x, y, w, h):
    """Gradient with a disc, a rectangle, a translucent triangle and a hole.
    Returns (shape id, r, g, b, a) with floats 0..1; shape 0 = background."""
    u, v = x / (w - 1), y / (h - 1)
    if (x - 0.3 * w) ** 2 + (y - 0.5 * h) ** 2 < (0.28 * h) ** 2:
        return 1, 0.95, 0.85, 0.1, 1.0
    if 0.58 * w <= x < 0.9 * w and 0.12 * h <= y < 0.42 * h:
        return 2, 0.8, 0.1, 0.15, 1.0
    if 0.7 * w <= x < 0.82 * w and 0.62 * h <= y < 0.8 * h:
        return 3, 0.0, 0.0, 0.0, 0.0
    if y > 0.55 * h and 0.5 * w < x < 0.5 * w + (y - 0.55 * h) * 1.4:
        return 4, 0.1, 0.55, 0.25, 0.6
    return 0, u, 0.25 + 0.6 * v, 1.0 - 0.7 * u, 1.0 - 0.75 * u


def suite_rows(w, h, ctype, depth, key=None):
    """Rows of samples for a gray/gray+alpha/RGB/RGBA image."""
    levels = 1 << depth
    rows = []
    for y in range(h):
        row = []
        for x in range(w):
            _, r, g, b, a = suite_pixel(x, y, w, h)
            if ctype in (0, 4):
                px = [quant(0.299 * r + 0.587 * g + 0.114 * b, levels, x, y)]
            else:
                px = [quant(c, levels, x, y) for c in (r, g, b)]
            if ctype in (4, 6):
                px.append(quant(a, levels, x, y))
            elif key is not None:  # colour key: hole gets it, others avoid it
                if a == 0.0:
                    px = list(key)
                elif px == list(key):
                    px[0] ^= 1
            row += px
        rows.append(row)
    return rows


def palette_image(w, h, depth, with_alpha=False):
    """Rows of indices, the palette and (optionally) a tRNS alpha table."""
    n = 1 << depth
    ramp = n if n == 2 else n - 2
    lo, hi = (20, 40, 120), (250, 180, 40)
    pal = [tuple(rnd(l + (hh - l) * i / (ramp - 1)) for l, hh in zip(lo, hi))
           for i in range(ramp)]
    if n > 2:
        pal += [(240, 220, 30), (200, 25, 40)]
    rows = []
    for y in range(h):
        row = []
        for x in range(w):
            shape = suite_pixel(x, y, w, h)[0]
            if n > 2 and shape in (1, 2):
                row.append(n - shape)
            elif n == 2 and shape == 1:
                row.append(1)
            else:
                row.append(quant(x / (w - 1), ramp, x, y))
        rows.append(row)
    alpha = None
    if with_alpha:
        alpha = bytes(255 - 200 * i // (ramp - 1) for i in range(ramp))
        alpha += b"\xff" * (n - ramp)
    return rows, pal, alpha


def landscape(w, h, seed, noise, period=64):
    """A synthetic 'photo' as RGB rows: sky, sun, hills, fields, houses and
    seeded luminance noise on the ground (a small repeating tile keeps PNGs
    compressible)."""
    rng = random.Random(seed)
    tile = [rng.randint(-noise, noise) for _ in range(period * period)]
    hor = [h * (0.62 + 0.05 * math.sin(x / w * 7.0 + 0.4)
                + 0.025 * math.sin(x / w * 23.0)) for x in range(w)]
    sun_x, sun_y, sun_r = 0.76 * w, 0.24 * h, 0.075 * w
    houses = [(0.18, 0.30, 0.70, 0.82, (225, 220, 205), (150, 40, 35)),
              (0.36, 0.44, 0.73, 0.83, (190, 80, 60), (70, 60, 60)),
              (0.60, 0.75, 0.76, 0.90, (240, 240, 235), (40, 70, 130))]
    boxes = [(int(a * w), int(b * w), int(c * h), int(d * h), wall, roof)
             for a, b, c, d, wall, roof in houses]
    rows = []
    for y in range(h):
        row = bytearray()
        t = y / h
        sky = (35 + 150 * t, 80 + 135 * t, 170 + 70 * t)
        ground = (120 - 70 * t, 160 - 60 * t, 70 - 25 * t)
        noise_row = tile[(y % period) * period:(y % period + 1) * period]
        near_sun = abs(y - sun_y) < 2 * sun_r
        for x in range(w):
            if y < hor[x]:
                r, g, b = sky
                d = math.hypot(x - sun_x, y - sun_y) if near_sun else 9e9
                if d < 2 * sun_r:  # glow, then the anti-aliased disc
                    k = 0.35 * min(1.0, 2 - d / sun_r)
                    r, g, b = r + (255 - r) * k, g + (240 - g) * k, b
                    k = min(1.0, max(0.0, sun_r + 0.5 - d))
                    r, g, b = (r + (255 - r) * k, g + (236 - g) * k,
                               b + (150 - b) * k)
            else:
                # diagonal field stripes with soft (about 7 px) edges
                stripe = min(12, max(0, (abs((x * 3 + y * 7) % 388 - 194)
                                         - 71) * 12 // 52))
                r, g, b = ground[0] + stripe, ground[1] + stripe, ground[2]
            for x0, x1, y0, y1, wall, roof in boxes:
                if x0 <= x < x1:
                    half = (x1 - x0) / 2
                    if y0 <= y < y1:
                        r, g, b = wall
                    top = y0 - half * 0.6  # roof: a triangle above the wall
                    if top <= y < y0 and abs(x - (x0 + x1) / 2) < (y - top) / 0.6:
                        r, g, b = roof
            n = noise_row[x % period] if y >= hor[x] else 0
            row += bytes((min(255, max(0, int(r) + n)),
                          min(255, max(0, int(g) + n)),
                          min(255, max(0, int(b) + n))))
        rows.append(bytes(row))
    return rows


def ppm(path, w, h, rows):
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + b"".join(rows))


# ---------------------------------------------------------------- 1. PNG

def make_png():
    w, h = 200, 150
    sub = (203, 151)  # odd sizes: partial bytes and uneven Adam7 passes
    for depth in (1, 2, 4, 8, 16):
        size = sub if depth < 8 else (w, h)
        rel = "png/gray%d.png" % depth
        write(rel, encode_png(*size, 0, depth, suite_rows(*size, 0, depth),
                              filters="cycle"))
        ok_image(rel, "png", *size, "grayscale, %d bit" % depth)
    for ctype, name in ((2, "rgb"), (4, "gray-alpha"), (6, "rgba")):
        for depth in (8, 16):
            rel = "png/%s%d.png" % (name, depth)
            write(rel, encode_png(w, h, ctype, depth,
                                  suite_rows(w, h, ctype, depth),
                                  filters="cycle"))
            ok_image(rel, "png", w, h, "%s, %d bit" % (name, depth))
    for depth in (1, 2, 4, 8):
        size = sub if depth < 8 else (w, h)
        rows, pal, _ = palette_image(*size, depth)
        rel = "png/palette%d.png" % depth
        write(rel, encode_png(*size, 3, depth, rows, pal, filters="cycle"))
        ok_image(rel, "png", *size, "palette, %d bit" % depth)

    # tRNS variants
    key = 64
    rows = suite_rows(w, h, 0, 8, key=(key,))
    write("png/gray8-trns.png", encode_png(
        w, h, 0, 8, rows, trns=struct.pack(">H", key), filters="cycle"))
    ok_image("png/gray8-trns.png", "png", w, h,
             "gray 8 bit, tRNS key 64 makes a transparent hole")
    key = (255, 0, 255)
    rows = suite_rows(w, h, 2, 8, key=key)
    write("png/rgb8-trns.png", encode_png(
        w, h, 2, 8, rows, trns=struct.pack(">3H", *key), filters="cycle"))
    ok_image("png/rgb8-trns.png", "png", w, h,
             "RGB 8 bit, tRNS key magenta makes a transparent hole")
    rows, pal, alpha = palette_image(w, h, 8, with_alpha=True)
    write("png/palette8-trns.png", encode_png(
        w, h, 3, 8, rows, pal, alpha, filters="cycle"))
    ok_image("png/palette8-trns.png", "png", w, h,
             "palette 8 bit with tRNS alpha table (gradient fades out)")

    # Adam7
    iw, ih = 203, 151
    for name, ctype, depth in (("gray8", 0, 8), ("rgb8", 2, 8),
                               ("rgba16", 6, 16)):
        rel = "png/interlaced-%s.png" % name
        write(rel, encode_png(iw, ih, ctype, depth,
                              suite_rows(iw, ih, ctype, depth),
                              interlace=True, filters="cycle"))
        ok_image(rel, "png", iw, ih, "Adam7 interlaced %s" % name)
    rows, pal, _ = palette_image(iw, ih, 4)
    write("png/interlaced-palette4.png",
          encode_png(iw, ih, 3, 4, rows, pal, interlace=True, filters="cycle"))
    ok_image("png/interlaced-palette4.png", "png", iw, ih,
             "Adam7 interlaced palette 4 bit")
    write("png/interlaced-rgb8-3x2.png", encode_png(
        3, 2, 2, 8, suite_rows(3, 2, 2, 8), interlace=True, filters="cycle"))
    ok_image("png/interlaced-rgb8-3x2.png", "png", 3, 2,
             "Adam7 3x2: passes 2, 3 and 5 are empty and omitted")
    write("png/rgb8-1x1.png",
          encode_png(1, 1, 2, 8, [[200, 30, 60]]))
    ok_image("png/rgb8-1x1.png", "png", 1, 1, "single pixel, never enlarged")

    # Interlaced images must be decoded whole: 6000x6000 RGBA is 144 MB in memory but a few KB on
    # disk. The memory-limit tests render it under a tight limit, well above a worker's own
    # address space (about 100 MiB; 4000x4000's 64 MB came to fit under 128 MiB once the worker
    # stopped mapping ICU).
    magick("-size", "6000x6000", "xc:rgba(200,30,60,0.5)", "-interlace", "PNG",
           "png32:" + out("png/interlaced-6000-rgba.png"))
    ok_image("png/interlaced-6000-rgba.png", "png", 6000, 6000,
             "Adam7 6000x6000 RGBA, flat colour: 144 MB when decoded whole")

    # alpha fringe check: red disc on transparent black
    n, rad = 1600, 600
    rows = []
    for y in range(n):
        dy = y + 0.5 - n / 2
        span = math.sqrt(rad * rad - dy * dy) if abs(dy) < rad else -1
        x0 = max(0, math.ceil(n / 2 - span - 0.5)) if span >= 0 else n
        x1 = min(n, math.floor(n / 2 + span - 0.5) + 1) if span >= 0 else n
        rows.append(b"\0\0\0\0" * x0 + b"\xff\0\0\xff" * (x1 - x0)
                    + b"\0\0\0\0" * (n - x1))
    write("png/alpha-edge.png", encode_png(n, n, 6, 8, rows))
    ok_image("png/alpha-edge.png", "png", n, n,
             "opaque red disc r=600 on transparent (0,0,0,0): no dark fringe")

    w, h = 400, 4000
    rows = [bytes(v for x in range(w) for v in
                  (y * 255 // (h - 1), x * 255 // (w - 1),
                   128 + 100 * ((y // 250) & 1)))
            for y in range(h)]
    write("png/tall-4000.png", encode_png(w, h, 2, 8, rows))
    ok_image("png/tall-4000.png", "png", w, h, "400x4000 RGB gradient")
    w, h = 3000, 300
    rows = [bytes(v for x in range(w) for v in
                  (x * 255 // (w - 1), 60 if (x // 150) & 1 else 200,
                   y * 255 // (h - 1)))
            for y in range(h)]
    write("png/wide.png", encode_png(w, h, 2, 8, rows))
    ok_image("png/wide.png", "png", w, h, "3000x300 RGB gradient with bars")

    w, h = 2000, 1500
    write("png/photo-like.png", encode_png(w, h, 2, 8, landscape(w, h, 7, 2)))
    ok_image("png/photo-like.png", "png", w, h,
             "2000x1500 RGB photo-like, compare with photo-like.reference.png")
    magick(out("png/photo-like.png"), "-filter", "Lanczos", "-resize",
           "1024x768!", "PNG24:" + out("png/photo-like.reference.png"))
    ok_image("png/photo-like.reference.png", "png", 1024, 768,
             "reference: photo-like.png, ImageMagick Lanczos to 1024x768")


# ---------------------------------------------------------------- 2. JPEG

def jpeg_segments(jpg):
    """Marker segments up to and including SOS, and the scan data after it."""
    pos, segs = 2, []
    while True:
        marker = jpg[pos + 1]
        end = pos + 2 + struct.unpack(">H", jpg[pos + 2:pos + 4])[0]
        segs.append((marker, jpg[pos:end]))
        if marker == 0xDA:
            return segs, jpg[end:-2]  # single scan, ends with EOI
        pos = end


def cmyk_jpeg(src, w, h):
    """A plain CMYK JPEG (Adobe marker, transform 0, inverted values as
    Photoshop writes them), which ImageMagick 6 cannot write: it always
    turns CMYK into YCCK. ImageMagick separates the inks, cjpeg encodes each
    inverted plane as a grayscale JPEG (same quantisation and standard
    Huffman tables for all four), the four scans are joined under one
    4-component SOF0, and jpegtran interleaves them into a single scan."""
    raw = subprocess.run([CONVERT, src, "-colorspace", "CMYK", "-depth", "8",
                          "cmyk:-"], check=True, capture_output=True).stdout
    invert = bytes(range(255, -1, -1))
    tables, scans = None, []
    for c in range(4):
        pgm = b"P5\n%d %d\n255\n" % (w, h) + raw[c::4].translate(invert)
        gray = subprocess.run(["cjpeg", "-quality", "90"], input=pgm,
                              check=True, capture_output=True).stdout
        segs, data = jpeg_segments(gray)
        t = b"".join(seg for marker, seg in segs if marker in (0xDB, 0xC4))
        assert tables in (None, t), "planes must share their tables"
        tables = t
        scans.append(b"\xff\xda" + struct.pack(">HBBBBBB", 8, 1, c + 1, 0,
                                                0, 63, 0) + data)
    adobe = b"Adobe" + struct.pack(">HHHB", 100, 0, 0, 0)
    sof = struct.pack(">BHHB", 8, h, w, 4) + b"".join(
        struct.pack(">BBB", c + 1, 0x11, 0) for c in range(4))
    joined = (b"\xff\xd8\xff\xee" + struct.pack(">H", 2 + len(adobe)) + adobe
              + tables + b"\xff\xc0" + struct.pack(">H", 2 + len(sof)) + sof
              + b"".join(scans) + b"\xff\xd9")
    four, script = os.path.join(TMP, "four-scans.jpg"), os.path.join(TMP, "scans")
    with open(four, "wb") as f:
        f.write(joined)
    with open(script, "w") as f:
        f.write("0 1 2 3;\n")
    return subprocess.run(["jpegtran", "-scans", script, four], check=True,
                          capture_output=True).stdout


def make_jpeg():
    w, h = 1600, 1200
    base = os.path.join(TMP, "base.ppm")
    ppm(base, w, h, landscape(w, h, 11, 1))
    variants = [("photo-baseline.jpg", [], "baseline, quality 90, 4:2:0"),
                ("photo-progressive.jpg", ["-progressive"], "progressive"),
                ("photo-arithmetic.jpg", ["-arithmetic"], "arithmetic coding"),
                ("photo-restart.jpg", ["-restart", "2"],
                 "restart marker every 2 MCU rows"),
                ("photo-444.jpg", ["-sample", "1x1"], "4:4:4, no subsampling"),
                ("gray.jpg", ["-grayscale"], "grayscale, 1 component")]
    for name, opts, note in variants:
        run("cjpeg", "-quality", "90", *opts, "-outfile", out("jpeg/" + name),
            base)
        ok_image("jpeg/" + name, "jpeg", w, h, "1600x1200 " + note)
    magick(out("jpeg/photo-baseline.jpg"), "-filter", "Lanczos", "-resize",
           "1024x768!", "PNG24:" + out("jpeg/photo-baseline.reference.png"))
    ok_image("jpeg/photo-baseline.reference.png", "png", 1024, 768,
             "reference: photo-baseline.jpg, ImageMagick Lanczos to 1024x768")

    # CMYK (Adobe APP14 marker, transform 0) of the same photo
    write("jpeg/cmyk.jpg", cmyk_jpeg(base, w, h))
    ok_image("jpeg/cmyk.jpg", "jpeg", w, h, "1600x1200 CMYK (inverted, Adobe "
             "marker transform 0), one interleaved baseline scan")
    magick(out("jpeg/cmyk.jpg"), "-colorspace", "sRGB", "-filter", "Lanczos",
           "-resize", "1024x768!", "PNG24:" + out("jpeg/cmyk.reference.png"))
    ok_image("jpeg/cmyk.reference.png", "png", 1024, 768,
             "reference: ImageMagick's RGB decode of cmyk.jpg, Lanczos to "
             "1024x768")
    # YCCK (Adobe transform 2): what ImageMagick 6 writes for any CMYK
    # image. Small, so its thumbnail is the plain decode.
    small = os.path.join(TMP, "small.ppm")
    ppm(small, 400, 300, landscape(400, 300, 13, 1))
    run(CONVERT, small, "-colorspace", "CMYK", "-quality", "90", "-strip",
        out("jpeg/ycck.jpg"))
    ok_image("jpeg/ycck.jpg", "jpeg", 400, 300,
             "400x300 YCCK, Adobe marker transform 2")
    magick(out("jpeg/ycck.jpg"), "-colorspace", "sRGB",
           "PNG24:" + out("jpeg/ycck.reference.png"))
    ok_image("jpeg/ycck.reference.png", "png", 400, 300,
             "reference: ImageMagick's RGB decode of ycck.jpg (no resize)")
    # the demo photo: an ordinary 800x600 JPEG of the same scene
    demo = os.path.join(TMP, "demo.ppm")
    ppm(demo, 800, 600, landscape(800, 600, 17, 1))
    run("cjpeg", "-quality", "88", "-outfile", out("samples/photo.jpg"), demo)
    ok_image("samples/photo.jpg", "jpeg", 800, 600, "demo: 800x600 photo")

    # a small JPEG whose SOF0 claims 65500 x 65500
    tiny = os.path.join(TMP, "tiny.ppm")
    ppm(tiny, 64, 48, landscape(64, 48, 3, 2))
    data = bytearray(subprocess.run(["cjpeg", "-quality", "80", tiny],
                                    check=True, capture_output=True).stdout)
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", 65500, 65500)
    write("jpeg/huge-header.jpg", bytes(data))
    record("jpeg/huge-header.jpg", "jpeg", "either", (1024, 1024),
           "64x48 data but SOF0 says 65500x65500 (67 MP even at 1/8 scale): "
           "limit error or a 1024x1024 mostly grey partial image")


# ---------------------------------------------------------------- orientation

def upright_picture(w=600, h=400):
    """White, a black 'F' of rectangles, red/blue/green corner squares."""
    rects = [((240, 80, 280, 320), (0, 0, 0)), ((240, 80, 380, 120), (0, 0, 0)),
             ((240, 180, 340, 215), (0, 0, 0)),
             ((20, 20, 80, 80), (255, 0, 0)), ((520, 20, 580, 80), (0, 0, 255)),
             ((20, 320, 80, 380), (0, 160, 0))]
    img = [[(255, 255, 255)] * w for _ in range(h)]
    for (x0, y0, x1, y1), colour in rects:
        for y in range(y0, y1):
            img[y][x0:x1] = [colour] * (x1 - x0)
    return img


def stored_for(img, orientation):
    """Pixels to store so that applying the EXIF tag displays `img`."""
    h, w = len(img), len(img[0])
    sw, sh = (w, h) if orientation <= 4 else (h, w)
    # where stored pixel (x, y) lands on the display
    where = {1: lambda x, y: (x, y), 2: lambda x, y: (sw - 1 - x, y),
             3: lambda x, y: (sw - 1 - x, sh - 1 - y),
             4: lambda x, y: (x, sh - 1 - y), 5: lambda x, y: (y, x),
             6: lambda x, y: (sh - 1 - y, x),
             7: lambda x, y: (sh - 1 - y, sw - 1 - x),
             8: lambda x, y: (y, sw - 1 - x)}[orientation]
    rows = []
    for y in range(sh):
        row = bytearray()
        for x in range(sw):
            dx, dy = where(x, y)
            row += bytes(img[dy][dx])
        rows.append(bytes(row))
    return sw, sh, rows


def exif_app1(orientation, big_endian):
    e = ">" if big_endian else "<"
    tiff = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8)
    tiff += struct.pack(e + "H", 1)
    tiff += struct.pack(e + "HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff += struct.pack(e + "I", 0)
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def make_orientation():
    img = upright_picture()
    h, w = len(img), len(img[0])
    write("orientation/upright.png",
          encode_png(w, h, 2, 8, [bytes(v for p in r for v in p) for r in img]))
    ok_image("orientation/upright.png", "png", w, h,
             "reference: how every orient-*.jpg must display")
    for tag in ["none", 0, 1, 2, 3, 4, 5, 6, 7, 8]:
        sw, sh, rows = stored_for(img, tag if tag not in ("none", 0) else 1)
        src = os.path.join(TMP, "orient.ppm")
        ppm(src, sw, sh, rows)
        jpg = subprocess.run(["cjpeg", "-quality", "95", "-sample", "1x1", src],
                             check=True, capture_output=True).stdout
        if tag == "none":
            note = "no EXIF: displayed as stored"
        else:
            big = tag in (0, 2, 4, 6, 8)
            jpg = jpg[:2] + exif_app1(tag, big) + jpg[2:]
            note = "EXIF orientation %d (%s TIFF), stored %dx%d" % (
                tag, "big-endian" if big else "little-endian", sw, sh)
            if tag == 0:
                note = "EXIF orientation 0 (invalid, treated as 1)"
        rel = "orientation/orient-%s.jpg" % tag
        write(rel, jpg)
        record(rel, "jpeg", "ok", (w, h), note)


# ---------------------------------------------------------------- 3. PDF

class PDF:
    """Minimal PDF writer: numbered objects, a correct xref table."""

    def __init__(self):
        self.objs = []

    def add(self, body=b""):
        self.objs.append(body)
        return len(self.objs)

    def set(self, num, body):
        self.objs[num - 1] = body

    @staticmethod
    def stream(data, extra=b""):
        return (b"<< /Length %d %s>>\nstream\n" % (len(data), extra)
                + data + b"\nendstream")

    def bytes(self, root, info=None):
        data = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for num, body in enumerate(self.objs, 1):
            offsets.append(len(data))
            data += b"%d 0 obj\n" % num + body + b"\nendobj\n"
        xref = len(data)
        data += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.objs) + 1)
        data += b"".join(b"%010d 00000 n \n" % o for o in offsets)
        data += b"trailer\n<< /Size %d /Root %d 0 R" % (len(self.objs) + 1, root)
        if info:
            data += b" /Info %d 0 R" % info
        data += b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
        return bytes(data)


def pdf_text(s):
    s = s.encode("cp1252")
    return b"(" + s.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(
        b")", b"\\)") + b")"


def text_lines(x, y, size, lines, leading=None):
    ops = b"BT /F1 %d Tf %d TL %d %d Td\n" % (size, leading or size * 1.3, x, y)
    ops += b"".join(pdf_text(line) + b" Tj T*\n" for line in lines)
    return ops + b"ET\n"


def make_pdf_file(pages, images=()):
    """pages: list of (mediabox (w, h), rotate, content bytes).
    images: list of (name, xobject body) shared by all pages."""
    pdf = PDF()
    catalog, tree = pdf.add(), pdf.add()
    font = pdf.add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                   b"/Encoding /WinAnsiEncoding >>")
    xobjs = b"".join(b"/%s %d 0 R " % (name, pdf.add(body))
                     for name, body in images)
    info = pdf.add(b"<< /Producer (Glance TestAssets/generate.py) "
                   b"/CreationDate (D:20240101000000Z) >>")
    kids = []
    for (w, h), rotate, content in pages:
        c = pdf.add(PDF.stream(content))
        rot = b" /Rotate %d" % rotate if rotate else b""
        kids.append(pdf.add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %s %s]%s "
            b"/Resources << /Font << /F1 %d 0 R >> /XObject << %s>> >> "
            b"/Contents %d 0 R >>" % (tree, str(w).encode(), str(h).encode(),
                                       rot, font, xobjs, c)))
    pdf.set(catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % tree)
    pdf.set(tree, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    return pdf.bytes(catalog, info)


def letter_content(title, extra=()):
    c = b"0.85 0.33 0.2 rg 72 380 468 160 re f\n"
    c += b"0.15 0.35 0.7 rg 72 250 220 100 re f\n0 g\n"
    c += text_lines(72, 700, 28, [title])
    c += text_lines(72, 650, 12, [
        "Glance test page. Helvetica text, an orange and a blue rectangle.",
        "Accents: café, naïve, Zürich, façade, São Paulo, “quotes” – dash.",
        *extra])
    # an arrow that points to the top of the unrotated page
    c += b"0 0.5 0 rg 500 250 m 530 300 l 560 250 l f 522 180 16 70 re f\n"
    return c


QPDF = ["qpdf", "--static-id", "--static-aes-iv"]


def encrypt_letter(rel, user, *restrictions):
    """AES-256 (R6) copy of letter.pdf, owner password 'owner'. qpdf picks
    the R6 file key and salts at random, so when the previous run left this
    file, its encryption parameters are reused (--copy-encryption) if they
    describe the same settings: re-runs then give identical bytes."""
    def settings(path):
        return subprocess.run(["qpdf", "--show-encryption", "--password=" + user,
                               path], capture_output=True).stdout
    src, fresh = out("pdf/letter.pdf"), os.path.join(TMP, "fresh.pdf")
    run(*QPDF, "--encrypt", user, "owner", "256", *restrictions, "--",
        src, fresh)
    best = fresh
    previous = os.path.join(TMP, "previous", os.path.basename(rel))
    reuse = os.path.join(TMP, "reuse.pdf")
    if os.path.exists(previous) and subprocess.run(
            QPDF + ["--copy-encryption=" + previous,
                    "--encryption-file-password=owner", src, reuse],
            capture_output=True).returncode == 0 \
            and settings(reuse) == settings(fresh):
        best = reuse
    shutil.copyfile(best, out(rel))


def make_pdf():
    letter = (612, 792)
    write("pdf/letter.pdf", make_pdf_file([(letter, 0, letter_content(
        "US Letter, 612 x 792"))]))
    record("pdf/letter.pdf", "pdf", "ok", fit_page(*letter),
           "US Letter, Helvetica text and coloured rectangles")
    a4, a4l = (595, 842), (842, 595)
    write("pdf/a4-two-pages.pdf", make_pdf_file([
        (a4, 0, letter_content("A4 page 1 of 2")),
        (a4l, 0, text_lines(72, 500, 28, ["Page 2, A4 landscape: not used"]))]))
    record("pdf/a4-two-pages.pdf", "pdf", "ok", fit_page(*a4),
           "A4 portrait page 1, A4 landscape page 2: only page 1 counts")
    for rot in (90, 180, 270):
        rel = "pdf/rotate-%d.pdf" % rot
        write(rel, make_pdf_file([(letter, rot, letter_content(
            "Letter with /Rotate %d" % rot,
            ["The green arrow points to the top of the unrotated page."]))]))
        size = fit_page(*letter) if rot == 180 else fit_page(792, 612)
        record(rel, "pdf", "ok", size, "US Letter with /Rotate %d" % rot)
    write("pdf/wide-strip.pdf", make_pdf_file([((1000, 100), 0,
        b"0.2 0.6 0.3 rg 0 0 500 100 re f 0 g\n"
        + text_lines(520, 40, 24, ["1000 x 100 strip"]))]))
    record("pdf/wide-strip.pdf", "pdf", "ok", fit_page(1000, 100),
           "MediaBox 1000x100")
    write("pdf/tiny-page.pdf", make_pdf_file([((3, 3), 0,
        b"1 0 0 rg 0 0 1.5 3 re f\n")]))
    record("pdf/tiny-page.pdf", "pdf", "ok", fit_page(3, 3),
           "MediaBox 3x3 points, left half red: scaled up to 1024")

    jpg = read("jpeg/photo-baseline.jpg")
    image = PDF.stream(jpg, b"/Type /XObject /Subtype /Image /Width 1600 "
                       b"/Height 1200 /ColorSpace /DeviceRGB "
                       b"/BitsPerComponent 8 /Filter /DCTDecode ")
    write("pdf/with-photo.pdf", make_pdf_file([(a4l, 0,
        b"q 640 0 0 480 101 70 cm /Im1 Do Q\n"
        + text_lines(101, 560, 20, ["A4 landscape page, DCTDecode photo"]))],
        [(b"Im1", image)]))
    record("pdf/with-photo.pdf", "pdf", "ok", fit_page(*a4l),
           "A4 landscape, embeds jpeg/photo-baseline.jpg via /DCTDecode")

    # The same photo drawn mirrored at a quarter of its size (reduced onto the page's pixels
    # before cairo paints it) and turned by 30 degrees (left to cairo).
    write("pdf/photo-mirrored-and-turned.pdf", make_pdf_file([(a4l, 0,
        b"q -320 0 0 240 420 300 cm /Im1 Do Q\n"
        b"q 277.1 160 -120 207.8 600 40 cm /Im1 Do Q\n"
        + text_lines(101, 560, 20, ["A photo mirrored, and turned by 30 degrees"]))],
        [(b"Im1", image)]))
    record("pdf/photo-mirrored-and-turned.pdf", "pdf", "ok", fit_page(*a4l),
           "A4 landscape, jpeg/photo-baseline.jpg drawn mirrored at 320x240 pt and turned 30 degrees")

    encrypt_letter("pdf/encrypted-user.pdf", "secret")
    record("pdf/encrypted-user.pdf", "pdf",
           "error:encrypted pdf, needs a password", None, "letter.pdf, AES-256, user password 'secret'")
    encrypt_letter("pdf/owner-only.pdf", "", "--modify=none", "--extract=n")
    record("pdf/owner-only.pdf", "pdf", "ok", fit_page(*letter),
           "letter.pdf, AES-256, empty user password, owner 'owner', "
           "no modify/extract")


# ---------------------------------------------------------------- 4. text

def prose(n_bytes, seed, width=72):
    """Deterministic English prose, wrapped, about n_bytes long."""
    rng = random.Random(seed)
    lines, line, size = [], "", 0
    while size < n_bytes:
        for word in rng.choice(SENTENCES).split():
            if len(line) + len(word) + 1 > width:
                lines.append(line)
                size += len(line) + 1
                line = ""
            line = (line + " " + word).strip()
        if rng.random() < 0.15:
            lines += [line, ""]
            size += len(line) + 2
            line = ""
    return "\n".join(lines) + "\n"


def make_text():
    def text(name, data, note, expected=None):
        write("text/" + name, data)
        record("text/" + name, "text", "ok", (724, 1024), note)
        if expected is not None:
            stem = os.path.splitext(name)[0]
            write("text/expected-decoding/%s.utf8" % stem,
                  expected.encode("utf-8"))
            record("text/expected-decoding/%s.utf8" % stem, "text", "ok",
                   (724, 1024), "reference: correct UTF-8 decoding of " + name)

    text("latin-utf8.txt", LATIN.encode(), "English with accents, UTF-8")
    short = PLAIN.strip().split("\n")
    text("crlf.txt", "\r\n".join(short).encode() + b"\r\n", "CRLF line ends")
    text("cr-only.txt", "\r".join(short).encode() + b"\r",
         "classic Mac CR-only line ends")
    text("tabs.txt", TABS.encode(), "tab-separated columns")
    line = prose(110000, 5).replace("\n", " ").encode()[:100 * 1024]
    text("long-line.txt", line, "one 100 KiB line, no newline")
    text("big.txt", prose(300000, 6).encode(),
         "~300 KB of prose, only the first 64 KiB is read")
    text("empty.txt", b"", "0 bytes: blank page")
    text("cyrillic-utf8.txt", RUSSIAN.encode(), "Russian, UTF-8")
    text("hebrew-utf8.txt", HEBREW.encode(), "Hebrew (right to left), UTF-8")
    text("japanese-utf8.txt", JAPANESE.encode(), "Japanese, UTF-8")
    text("chinese-utf8.txt", CHINESE.encode(), "simplified Chinese, UTF-8")
    text("korean-utf8.txt", KOREAN.encode(), "Korean, UTF-8")
    text("utf8-bom.txt", b"\xef\xbb\xbf" + MIXED.encode(),
         "UTF-8 with BOM", MIXED)
    for name, codec, bom in (("utf16le-bom", "utf-16-le", b"\xff\xfe"),
                             ("utf16be-bom", "utf-16-be", b"\xfe\xff"),
                             ("utf32le-bom", "utf-32-le", b"\xff\xfe\0\0")):
        text(name + ".txt", bom + MIXED.encode(codec),
             name.replace("-bom", "").upper() + " with BOM, includes a "
             "non-BMP character", MIXED)
    for name, codec, sample, note in (
            ("shift_jis", "shift_jis", JAPANESE, "Japanese"),
            ("euc-jp", "euc_jp", JAPANESE, "Japanese"),
            ("gb18030", "gb18030", CHINESE, "simplified Chinese"),
            ("big5", "big5", TRADITIONAL, "traditional Chinese"),
            ("koi8-r", "koi8_r", RUSSIAN, "Russian"),
            ("windows-1252", "cp1252", WESTERN, "French and German")):
        text(name + ".txt", sample.encode(codec),
             "%s in %s, no BOM" % (note, name), sample)

    rng = random.Random(99)
    blob = bytearray(rng.randrange(256) for _ in range(4096))
    blob[0] = 0  # never a magic number
    blob[100:104] = b"\0\0\0\0"
    write("text/binary-with-nul.txt", bytes(blob))
    record("text/binary-with-nul.txt", "none",
           "error:not a supported document type", None,
           "4 KiB random bytes with NULs, named .txt")


# ---------------------------------------------------------------- 5. corrupt

def make_corrupt():
    def bad(name, kind, error, data, note):
        write("corrupt/" + name, data)
        record("corrupt/" + name, kind, "error:" + error, None, note)

    for ext in ("jpg", "png", "pdf"):
        bad("empty." + ext, "none", "empty file", b"", "0 bytes")
    jpg = read("jpeg/photo-baseline.jpg")
    write("corrupt/truncated.jpg", jpg[:len(jpg) * 4 // 10])
    record("corrupt/truncated.jpg", "jpeg", "ok", (1024, 768),
           "first 40% of photo-baseline.jpg: partial image (libjpeg warns)")
    bad("truncated-header.jpg", "jpeg", "truncated jpeg data", jpg[:300],
        "first 300 bytes of photo-baseline.jpg, cut inside DHT")
    rng = random.Random(1234)  # libjpeg: "Unsupported marker type 0xf1"
    bad("garbage-after-soi.jpg", "jpeg", "corrupt jpeg data",
        jpg[:20] + bytes(rng.randrange(256) for _ in range(2048)),
        "SOI and JFIF APP0, then 2 KiB random bytes")

    png = read("png/rgb8.png")
    chunks = png_chunks(png)
    pos, _, payload = next(c for c in chunks if c[1] == b"IDAT")
    crc_at = pos + 8 + len(payload)
    flipped = bytearray(png)
    flipped[crc_at] ^= 0xFF
    bad("bad-crc.png", "png", "corrupt png data", bytes(flipped),
        "rgb8.png with a wrong IDAT CRC")
    broken = bytearray(payload)
    broken[2] = 0x07  # first deflate block: BFINAL=1, BTYPE=11 (reserved)
    fixed = png[:pos] + png_chunk(b"IDAT", bytes(broken)) + png[crc_at + 4:]
    bad("bad-zlib.png", "png", "corrupt png data", fixed,
        "rgb8.png, invalid deflate block type in IDAT, CRC correct")
    bad("truncated.png", "png", "truncated png data", png[:len(png) * 6 // 10],
        "first 60% of rgb8.png")
    bad("bad-signature.png", "none", "not a supported document type",
        b"\x88" + png[1:], "rgb8.png with first signature byte changed")
    bad("huge-dimensions.png", "png", "exceeds the 100-megapixel limit",
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 20000, 20000, 8, 6, 0, 0, 0))
        + png_chunk(b"IDAT", zlib.compress(bytes(1 + 4 * 20000), 9))
        + png_chunk(b"IEND", b""),
        "IHDR 20000x20000 RGBA (400 MP), one row of data")

    garbage = bytes(random.Random(77).randrange(256) for _ in range(3000))
    for word in (b"obj", b"xref", b"trailer", b"startxref"):
        assert word not in garbage
    bad("malformed.pdf", "pdf", "malformed pdf", b"%PDF-1.4\n" + garbage,
        "PDF header then random bytes, no objects, xref or trailer")
    pdf = PDF()
    pdf.add(b"<< /Type /Catalog /Pages 2 0 R >>")
    pdf.add(b"<< /Type /Pages /Kids [] /Count 0 >>")
    bad("no-pages.pdf", "pdf", "malformed pdf", pdf.bytes(1),
        "valid structure, empty page tree")
    blob = bytearray(random.Random(5).randrange(256) for _ in range(1024))
    blob[0], blob[7] = 0x13, 0
    bad("unknown.bin", "none", "not a supported document type", bytes(blob),
        "1 KiB random bytes with NULs")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        info = zipfile.ZipInfo("hello.txt", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        z.writestr(info, PLAIN)
    bad("zip-as-pdf.pdf", "none", "not a supported document type",
        buf.getvalue(), "a ZIP archive named .pdf")


# ---------------------------------------------------------------- 6. samples

def screenshot(w=800, h=500):
    """RGBA 'window' with a soft shadow on a transparent background."""
    rows = []
    x0, y0, x1, y1, rad = 30, 20, w - 30, h - 40, 14

    def inside(x, y, grow=0.0):
        cx = min(max(x, x0 + rad), x1 - rad)
        cy = min(max(y, y0 + rad), y1 - rad)
        return math.hypot(x - cx, y - cy) - rad - grow

    for y in range(h):
        row = bytearray()
        for x in range(w):
            d = inside(x + 0.5, y + 0.5)
            if d > 0.5:
                shadow = inside(x + 0.5, y - 9.5, 4)
                a = max(0, min(90, int(90 - shadow * 5)))
                row += bytes((0, 0, 0, a))
                continue
            cov = int(255 * min(1.0, 0.5 - d))
            if y < y0 + 36:
                c = (226, 226, 230)
                dots = ((255, 95, 87), (254, 188, 46), (40, 200, 64))
                for i, dot in enumerate(dots):
                    if math.hypot(x - (x0 + 22 + 22 * i), y - (y0 + 18)) < 6.5:
                        c = dot
            elif x < x0 + 180:  # sidebar with menu items
                c = (243, 244, 247)
                item = (y - y0 - 60) // 32
                if (y - y0 - 60) % 32 < 12 and y > y0 + 50 and \
                        x0 + 20 < x < x0 + 150 - item * 37 % 70:
                    c = (170, 175, 185)
            else:  # lines of 'text' around a picture
                c = (255, 255, 255)
                line = (y - y0 - 60) // 22
                if (y - y0 - 60) % 22 < 8 and y0 + 50 < y < y0 + 280 and \
                        x0 + 210 < x < x1 - 40 - line * 53 % 220:
                    c = (60, 64, 72)
                if y0 + 290 < y < y0 + 420 and x0 + 210 < x < x0 + 560:
                    c = (70 + (x - x0) // 4, 130, 220 - (y - y0 - 290))
            row += bytes(c + (cov,))
        rows.append(bytes(row))
    return rows


def report_pdf():
    page1 = text_lines(60, 770, 26, ["Quarterly Garden Report"])
    page1 += text_lines(60, 735, 11, [
        "Community allotment, spring season. Prepared by the volunteers.",
        "", "Harvest in kilograms per bed:"])
    bars = [(b"0.30 0.60 0.30", 180), (b"0.85 0.45 0.20", 260),
            (b"0.95 0.75 0.20", 120), (b"0.40 0.45 0.80", 300),
            (b"0.70 0.30 0.50", 210)]
    for i, (colour, height) in enumerate(bars):
        page1 += colour + b" rg %d 300 60 %d re f\n" % (90 + i * 90, height)
    page1 += b"0 g 70 300 m 540 300 l S\n"
    page1 += text_lines(60, 260, 11, [
        "Beds 2 and 4 did best thanks to the new compost. Bed 3 lost part of",
        "its crop to slugs in April; copper tape is planned for next season.",
        "Water use fell by a fifth after the rain barrels were installed."])
    page2 = text_lines(60, 770, 18, ["Plans for the summer"])
    page2 += text_lines(60, 740, 11, [
        "1. Sow beans and courgettes in beds 1 and 3.",
        "2. Repair the shed roof before the July storms.",
        "3. Open day on the first Saturday of August, with lemonade.",
        "4. Share surplus tomatoes with the school kitchen."])
    page2 += b"0.9 0.9 0.92 rg 60 420 475 180 re f 0 g\n"
    tasks = [("Task", "Owner"), ("Watering rota", "Sam and Priya"),
             ("Seed order", "Jonas"), ("Newsletter", "Mei")]
    page2 += text_lines(75, 580, 11, [t for t, _ in tasks])
    page2 += text_lines(260, 580, 11, [o for _, o in tasks])
    return make_pdf_file([((595, 842), 0, page1), ((595, 842), 0, page2)])


def make_samples():
    def sample(name, kind, size, note, src=None, data=None):
        if src:
            data = read(src)
        write("samples/" + name, data)
        record("samples/" + name, kind, "ok", size, note)

    sample("screenshot.png", "png", (800, 500), "demo: RGBA window screenshot",
           data=encode_png(800, 500, 6, 8, screenshot()))
    sample("report.pdf", "pdf", fit_page(595, 842),
           "demo: two-page A4 report with a bar chart", data=report_pdf())
    sample("README.txt", "text", (724, 1024), "demo: README-like text",
           data=README.encode())
    sample("japanese.txt", "text", (724, 1024),
           "demo: copy of japanese-utf8.txt", src="text/japanese-utf8.txt")
    sample("rotated.pdf", "pdf", fit_page(792, 612),
           "demo: copy of rotate-90.pdf", src="pdf/rotate-90.pdf")
    sample("exif-rotated.jpg", "jpeg", (600, 400),
           "demo: copy of orient-6.jpg", src="orientation/orient-6.jpg")


# ---------------------------------------------------------------- main

def main(only=()):
    """Makes every group, or with `only` (names from GROUPS on the command line) those groups
    alone, whose rows then replace theirs in the manifest (the others' rows are kept)."""
    global TMP
    with tempfile.TemporaryDirectory() as TMP:
        # keep the previous encrypted PDFs: see encrypt_letter()
        os.mkdir(os.path.join(TMP, "previous"))
        for name in ("encrypted-user.pdf", "owner-only.pdf"):
            if os.path.exists(os.path.join(ROOT, "pdf", name)):
                shutil.copy(os.path.join(ROOT, "pdf", name),
                            os.path.join(TMP, "previous"))
        for group in only or GROUPS:
            shutil.rmtree(os.path.join(ROOT, group), ignore_errors=True)
        makers = [make_png, make_jpeg, make_orientation, make_pdf, make_text, make_corrupt, make_samples,
                  make_collision, make_hostile, make_colour, make_webp, make_gif, make_tiff, make_heif, make_svg,
                  make_media, make_office, make_raw, make_ebook, make_comics, make_bitmaps, make_paintings, make_iwork, make_blender, make_mobi, make_icns, make_pam, make_qoi,
                  make_jxl, make_psd, make_postscript, make_djvu, make_xps, make_fonts, make_metafiles, make_carried, make_jpeg2000, make_visio, make_xpm,
                  make_rasters, make_compressed]
        for maker in makers:
            if not only or maker.__name__[len("make_"):] in only:
                maker()
    rows = sorted(MANIFEST)
    assert len({r[0] for r in rows}) == len(rows), "duplicate manifest path"
    manifest = os.path.join(ROOT, "assets.tsv")
    if only:
        made = {r[0] for r in rows}
        with open(manifest) as f:
            kept = [tuple(line.rstrip("\n").split("\t")) for line in f.readlines()[1:]]
        rows = sorted([r for r in kept if r[0] not in made] + rows)
    with open(manifest, "w", newline="\n") as f:
        f.write("path\tkind\toutcome\twidth\theight\tnote\n")
        for row in rows:
            assert all("\t" not in c and "\n" not in c for c in row)
            f.write("\t".join(row) + "\n")
    print("wrote %d assets" % len(rows))


# ---------------------------------------------------------------- bitmaps

def halves_rows(w, h):
    """Rows, top first, of a w x h picture red above and blue below (RGB): its way up is plain."""
    return [bytes((220, 30, 30) if y < h // 2 else (30, 40, 220)) * w for y in range(h)]


def tga(w, h, rows, top_first, rle=False):
    """A true-colour Targa (24-bit BGR) of `rows` (top first), stored top first or bottom first
    as its descriptor says (bit 5), run-length encoded (type 10) or not (type 2)."""
    stored = rows if top_first else rows[::-1]
    body = b""
    for row in stored:
        pixels = [row[i:i + 3][::-1] for i in range(0, len(row), 3)]
        if not rle:
            body += b"".join(pixels)
            continue
        index = 0
        while index < len(pixels):  # runs of the same pixel, at most 128
            run = 1
            while index + run < len(pixels) and run < 128 and pixels[index + run] == pixels[index]:
                run += 1
            body += bytes([0x80 | (run - 1)]) + pixels[index]
            index += run
    header = bytes([0, 0, 10 if rle else 2, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + struct.pack("<HH", w, h)
    return header + bytes([24, 0x20 if top_first else 0]) + body


def tga_footer(attributes):
    """A TGA 2.0 extension area (495 bytes, its attributes type last) and footer, for a file whose
    pixels end at `start`: returned as a function of `start`."""
    def footer(start):
        extension = struct.pack("<H", 495) + b"\0" * 492 + bytes([attributes])
        return extension + struct.pack("<II", start, 0) + b"TRUEVISION-XFILE.\0"
    return footer


def bmp_top_down(w, h, rows):
    """A 24-bit Windows 3 bitmap whose height is negative: its rows stored top first."""
    stride = (w * 3 + 3) & ~3
    pixels = b"".join(bytes(b for i in range(0, len(r), 3) for b in r[i:i + 3][::-1]).ljust(stride, b"\0")
                      for r in rows)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + 40 + len(pixels), 0, 0, 54) + info + pixels


def make_bitmaps():
    """BMP, ICO, CUR, Targa and Netpbm documents: ImageMagick's BMP and Netpbm variants, and
    files written here where its writer is wrong (it marks Targa rows as stored bottom first while
    it stores them top first) or has no option (top-down BMP, a cursor, damaged files)."""
    w, h = 40, 30
    halves = os.path.join(TMP, "halves.ppm")
    ppm(halves, w, h, halves_rows(w, h))
    rgba = os.path.join(ROOT, "png", "rgba8.png")
    for name, options, note in [
            ("v3.bmp", ["BMP3:"], "Windows 3 header (40 bytes), 24-bit, rows bottom first"),
            ("os2.bmp", ["BMP2:"], "OS/2 1.x header (12 bytes)"),
            ("rle8.bmp", ["-type", "Palette", "-compress", "RLE", "BMP3:"], "256 colours, RLE8")]:
        run(CONVERT, halves, *options[:-1], options[-1] + out("bitmaps/" + name))
        ok_image("bitmaps/" + name, "bmp", w, h, "red above blue, %dx%d: %s" % (w, h, note))
    run(CONVERT, rgba, "BMP:" + out("bitmaps/v5-alpha.bmp"))
    ok_image("bitmaps/v5-alpha.bmp", "bmp", 200, 150, "png/rgba8.png as a 32-bit BMP with alpha (Windows 5 header)")
    for subtype in ("ARGB4444", "ARGB1555"):
        name = "bitmaps/%s.bmp" % subtype.lower()
        run(CONVERT, rgba, "-define", "bmp:subtype=" + subtype, "BMP:" + out(name))
        ok_image(name, "bmp", 200, 150, "png/rgba8.png as a 16-bit %s BMP: its alpha through the header's mask" % subtype)
    write("bitmaps/top-down.bmp", bmp_top_down(w, h, halves_rows(w, h)))
    ok_image("bitmaps/top-down.bmp", "bmp", w, h, "red above blue, 24-bit, negative height: rows top first")
    for name, top_first, rle, note in [("bottom-first.tga", False, False, "rows bottom first (descriptor 0)"),
                                       ("top-first.tga", True, False, "rows top first (descriptor 0x20)"),
                                       ("rle.tga", False, True, "run-length encoded, rows bottom first")]:
        write("bitmaps/" + name, tga(w, h, halves_rows(w, h), top_first, rle))
        ok_image("bitmaps/" + name, "tga", w, h, "red above blue, 24-bit Targa, " + note)
    run(CONVERT, rgba, "-define", "icon:auto-resize=256,48,16", out("bitmaps/icon.ico"))
    ok_image("bitmaps/icon.ico", "ico", 256, 256, "png/rgba8.png at 16, 48 (bitmaps) and 256 (PNG): the 256 is drawn")
    run(CONVERT, rgba, "-define", "icon:auto-resize=48,16", out("bitmaps/small.ico"))
    ok_image("bitmaps/small.ico", "ico", 48, 48, "png/rgba8.png at 16 and 48, bitmaps only: the 48 is drawn")
    cursor = bytearray(read("bitmaps/small.ico"))
    cursor[2] = 2
    write("bitmaps/pointer.cur", bytes(cursor))
    ok_image("bitmaps/pointer.cur", "cur", 48, 48, "bitmaps/small.ico marked a cursor (type 2)")
    lying = bytearray(read("bitmaps/small.ico"))
    count = struct.unpack_from("<H", lying, 4)[0]
    for index in range(count):
        if lying[6 + 16 * index] == 48:
            lying[6 + 16 * index] = lying[6 + 16 * index + 1] = 64
    write("bitmaps/lying-directory.ico", bytes(lying))
    record("bitmaps/lying-directory.ico", "ico", "error:its directory lists a 64x64 picture that is 48x48", None,
           "bitmaps/small.ico whose directory says its 48x48 picture is 64x64")
    # Targa layouts gdk-pixbuf's loader and ImageMagick's writer do not cover, written here.
    sides = [bytes((220, 30, 30) * (w // 2) + (30, 40, 220) * (w - w // 2)) for _ in range(h)]
    mirrored = [b"".join(row[i:i + 3][::-1] for i in range(len(row) - 3, -1, -3)) for row in sides]
    write("bitmaps/right-first.tga", bytes([0, 0, 2] + [0] * 9) + struct.pack("<HH", w, h) + bytes([24, 0x30])
          + b"".join(mirrored))
    ok_image("bitmaps/right-first.tga", "tga", w, h, "red left of blue, 24-bit Targa, each row stored right "
             "pixel first (descriptor 0x30)")
    def argb1555(x, y):
        r, g, b = (220, 30, 30) if y < h // 2 else (30, 40, 220)
        return struct.pack("<H", (0 if x >= w - 8 else 0x8000) | (r >> 3) << 10 | (g >> 3) << 5 | b >> 3)
    write("bitmaps/argb1555.tga", bytes([0, 0, 2] + [0] * 9) + struct.pack("<HH", w, h) + bytes([16, 0x21])
          + b"".join(argb1555(x, y) for y in range(h) for x in range(w)))
    ok_image("bitmaps/argb1555.tga", "tga", w, h, "red above blue, 16-bit Targa with an alpha bit (descriptor "
             "0x21): the last 8 columns clear")
    body = b"".join(row[i:i + 3][::-1] + b"\0" for row in halves_rows(w, h) for i in range(0, len(row), 3))
    start = 18 + len(body)
    write("bitmaps/unused-alpha.tga", bytes([0, 0, 2] + [0] * 9) + struct.pack("<HH", w, h) + bytes([32, 0x28])
          + body + tga_footer(2)(start))
    ok_image("bitmaps/unused-alpha.tga", "tga", w, h, "red above blue, 32-bit Targa whose alpha bytes are 0 and "
             "whose TGA 2.0 extension area says the alpha is not to be used: drawn opaque")
    whole = read("bitmaps/rle.tga")
    write("bitmaps/cut-rle.tga", whole[:len(whole) - 20])
    record("bitmaps/cut-rle.tga", "tga", "error:truncated", None, "bitmaps/rle.tga without its last 20 bytes")
    for name, options, note in [("plain.pbm", ["-monochrome", "-compress", "none"], "plain PBM (P1)"),
                                ("plain.pgm", ["-colorspace", "gray", "-compress", "none"], "plain PGM (P2)"),
                                ("binary.ppm", [], "binary PPM (P6)"),
                                ("deep.pgm", ["-colorspace", "gray", "-depth", "16"], "16-bit binary PGM (P5)")]:
        run(CONVERT, halves, *options, out("bitmaps/" + name))
        ok_image("bitmaps/" + name, "pnm", w, h, "red above blue as a " + note)
    for name, options, note in [("odd.pbm", [], "binary PBM (P4), rows padded to 5 bytes"),
                                ("odd-plain.pbm", ["-compress", "none"], "plain PBM (P1)")]:
        run(CONVERT, halves, "-crop", "37x%d+0+0" % h, "+repage", "-monochrome", *options, out("bitmaps/" + name))
        ok_image("bitmaps/" + name, "pnm", 37, h, "red above blue, 37 wide, as a " + note)
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), out("bitmaps/rgb8.ppm"))
    ok_image("bitmaps/rgb8.ppm", "pnm", 200, 150, "png/rgb8.png as a binary PPM (P6)")
    whole = read("bitmaps/rgb8.ppm")
    write("bitmaps/cut.ppm", whole[:len(whole) // 2])
    record("bitmaps/cut.ppm", "pnm", "error:truncated", None, "bitmaps/rgb8.ppm cut in half")
    # Ten bits: a sample a column, 25 steps of 1000 apart, big-endian; the last column past the
    # largest sample.
    tenbit = b"".join(struct.pack(">H", 1200 if x == w - 1 else 25 * x) for x in range(w)) * h
    write("bitmaps/tenbit.pgm", b"P5\n# ten bits\n%d %d\n1000\n" % (w, h) + tenbit)
    ok_image("bitmaps/tenbit.pgm", "pnm", w, h, "a binary PGM of largest sample 1000: 25 times the column, "
             "the last column 1200")
    whole = read("bitmaps/v3.bmp")
    write("bitmaps/truncated.bmp", whole[:len(whole) // 2])
    record("bitmaps/truncated.bmp", "bmp", "error:truncated bmp data", None, "bitmaps/v3.bmp cut in half")
    huge = bytearray(whole[:54])
    struct.pack_into("<ii", huge, 18, 100000, 100000)
    write("bitmaps/huge.bmp", bytes(huge) + b"\0" * 4096)
    record("bitmaps/huge.bmp", "bmp", "error:exceeds the 100-megapixel limit", None,
           "a Windows 3 header declaring 100000x100000 pixels, 4 KiB of data")


# ---------------------------------------------------------------- paintings

def painting_zip(mimetype, entries):
    """A ZIP package as OpenRaster and Krita write them: `mimetype` first, stored, then
    `entries` ((name, bytes), deflated), every date fixed."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        for name, data, method in [("mimetype", mimetype.encode(), zipfile.ZIP_STORED)] + [
                (name, data, zipfile.ZIP_DEFLATED) for name, data in entries]:
            info = zipfile.ZipInfo(name, date_time=(2024, 5, 17, 10, 30, 0))
            info.compress_type = method
            package.writestr(info, data)
    return buffer.getvalue()


def xcf_rle_channel(data):
    """One channel's bytes as XCF's run-length code: runs of 3 or more as a count and the byte
    (127 and a 16-bit count past 127), others as they are (256 - n, or 128 and a 16-bit count)."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        run = 1
        while i + run < n and data[i + run] == data[i] and run < 32768:
            run += 1
        if run >= 3:
            out += bytes([run - 1, data[i]]) if run <= 127 else bytes([127]) + struct.pack(">H", run) + bytes([data[i]])
            i += run
            continue
        start = i
        while i < n and not (i + 2 < n and data[i] == data[i + 1] == data[i + 2]) and i - start < 32768:
            i += 1
        count = i - start
        out += (bytes([256 - count]) if count <= 127 else bytes([128]) + struct.pack(">H", count)) + data[start:i]
    return bytes(out)


def xcf(version, w, h, layers, compression, base=0, colormap=None, precision=None):
    """A GIMP file as its format describes it: header (a precision from version 4; 64-bit offsets
    from 11), the compression and colour map properties, then each layer (top first: dicts of
    name, w, h, type, bpp, data interleaved, and x, y, opacity, visible, mode, group, path, mask:
    mask_bpp bytes a pixel, 1 unless said, applied) with its hierarchy, one level and its 64x64 tiles stored (0),
    run-length encoded (1) or zlib (2), and its mask's channel after them."""
    wide = version >= 11
    pointer, size = (">Q", 8) if wide else (">I", 4)
    tag = b"file" if version == 0 else b"v%03d" % version
    head = b"gimp xcf " + tag + b"\0" + struct.pack(">III", w, h, base)
    if version >= 4:
        head += struct.pack(">I", precision if precision is not None else (150 if version >= 7 else 0))
    props = b""
    if colormap:
        props += struct.pack(">III", 1, 4 + len(colormap), len(colormap) // 3) + colormap
    props += struct.pack(">II", 17, 1) + bytes([compression]) + struct.pack(">II", 0, 0)
    at = len(head) + len(props) + size * (len(layers) + 2)
    blobs, offsets = [], []
    for layer in layers:
        lw, lh, bpp = layer["w"], layer["h"], layer.get("bpp", 0)
        name = layer["name"].encode() + b"\0"
        lprops = struct.pack(">III", 6, 4, layer.get("opacity", 255))
        lprops += struct.pack(">III", 8, 4, 1 if layer.get("visible", True) else 0)
        lprops += struct.pack(">IIii", 15, 8, layer.get("x", 0), layer.get("y", 0))
        lprops += struct.pack(">III", 7, 4, layer.get("mode", 0))
        if layer.get("group"):
            lprops += struct.pack(">II", 29, 0)
        if layer.get("mask") is not None:
            lprops += struct.pack(">III", 11, 4, 1)
        if layer.get("path") is not None:
            lprops += struct.pack(">II", 30, 4 * len(layer["path"])) + b"".join(struct.pack(">I", i) for i in layer["path"])
        lprops += struct.pack(">II", 0, 0)
        layer_head = struct.pack(">IIII", lw, lh, layer["type"], len(name)) + name + lprops
        hierarchy_at = at + len(layer_head) + 2 * size

        def pixels_at(hierarchy_at, data, bpp):
            """A hierarchy at `hierarchy_at` of `data` (bpp bytes a pixel): itself, its level, its tiles."""
            level_at = hierarchy_at + 12 + 2 * size
            tiles = []
            for ty in range(0, lh, 64):
                for tx in range(0, lw, 64):
                    tw, th = min(64, lw - tx), min(64, lh - ty)
                    tile = b"".join(data[((ty + y) * lw + tx) * bpp:((ty + y) * lw + tx + tw) * bpp] for y in range(th))
                    tiles.append(tile if compression == 0 else zlib.compress(tile) if compression == 2 else
                                 b"".join(xcf_rle_channel(tile[c::bpp]) for c in range(bpp)))
            level = struct.pack(">II", lw, lh)
            tile_at = level_at + 8 + size * (len(tiles) + 1)
            for encoded in tiles:
                level += struct.pack(pointer, tile_at)
                tile_at += len(encoded)
            level += struct.pack(pointer, 0)
            hierarchy = struct.pack(">III", lw, lh, bpp) + struct.pack(pointer, level_at) + struct.pack(pointer, 0)
            return hierarchy + level + b"".join(tiles)
        pixels = pixels_at(hierarchy_at, layer["data"], bpp)
        mask = b""
        if layer.get("mask") is not None:
            mask_at = hierarchy_at + len(pixels)
            name = b"Mask\0"
            channel = struct.pack(">III", lw, lh, len(name)) + name + struct.pack(">II", 0, 0)
            mask = channel + struct.pack(pointer, mask_at + len(channel) + size)
            mask += pixels_at(mask_at + len(mask), layer["mask"], layer.get("mask_bpp", 1))
        mask_pointer = struct.pack(pointer, hierarchy_at + len(pixels) if mask else 0)
        blob = layer_head + struct.pack(pointer, hierarchy_at) + mask_pointer + pixels + mask
        offsets.append(at)
        blobs.append(blob)
        at += len(blob)
    table = b"".join(struct.pack(pointer, o) for o in offsets) + struct.pack(pointer, 0) * 2
    return head + props + table + b"".join(blobs)


def over(below, above, opacity):
    """`above` (RGBA bytes) laid over `below` at `opacity` of 255, GIMP's normal mode with
    straight alpha, rounded as XCFDecoder rounds."""
    out = bytearray(below)
    for i in range(0, len(above), 4):
        alpha = above[i + 3] * opacity // 255
        if alpha == 0:
            continue
        under = below[i + 3] * (255 - alpha) // 255
        total = alpha + under
        for c in range(3):
            out[i + c] = (above[i + c] * alpha + below[i + c] * under + total // 2) // total
        out[i + 3] = total
    return bytes(out)


def make_paintings():
    """OpenRaster and Krita paintings, ZIPs written here as the formats describe them, with
    png/rgba8.png as their merged image and a 64x48 copy as their thumbnail."""
    merged = read("png/rgba8.png")
    small_path = os.path.join(TMP, "painting-thumbnail.png")
    magick(os.path.join(ROOT, "png", "rgba8.png"), "-resize", "64x48", small_path)
    with open(small_path, "rb") as f:
        small = f.read()
    stack = (b'<?xml version="1.0" encoding="UTF-8"?>\n<image w="200" h="150"><stack>'
             b'<layer name="background" src="data/layer0.png"/></stack></image>\n')
    write("paintings/merged.ora", painting_zip("image/openraster", [
        ("stack.xml", stack), ("data/layer0.png", merged), ("Thumbnails/thumbnail.png", small),
        ("mergedimage.png", merged)]))
    ok_image("paintings/merged.ora", "ora", 200, 150,
             "OpenRaster: stack.xml, one layer, a 64x48 thumbnail and png/rgba8.png as mergedimage.png: drawn from it")
    write("paintings/thumbnail-only.ora", painting_zip("image/openraster", [
        ("stack.xml", stack), ("data/layer0.png", merged), ("Thumbnails/thumbnail.png", small)]))
    ok_image("paintings/thumbnail-only.ora", "ora", 64, 48,
             "OpenRaster of an older writer, without mergedimage.png: drawn from its 64x48 thumbnail, with a warning")
    write("paintings/painting.kra", painting_zip("application/x-krita", [
        ("maindoc.xml", b'<?xml version="1.0" encoding="UTF-8"?>\n<DOC syntaxVersion="2"><IMAGE width="200" '
                        b'height="150" mime="application/x-kra"/></DOC>\n'),
        ("preview.png", small), ("mergedimage.png", merged)]))
    ok_image("paintings/painting.kra", "kra", 200, 150,
             "Krita: maindoc.xml, a 64x48 preview.png and png/rgba8.png as mergedimage.png: drawn from it")
    write("paintings/empty.ora", painting_zip("image/openraster", [("stack.xml", stack)]))
    record("paintings/empty.ora", "ora", "error:neither a merged image nor a thumbnail", None,
           "OpenRaster holding stack.xml only")
    # GIMP files, written here as the format describes them: rgb8.png under an 80x60 piece of
    # rgba8.png at (100, 70), stored run-length encoded in version 0 (ImageMagick's reading is
    # the reference) and zlib-compressed in version 11 with the piece at half opacity, a hidden
    # layer and a hidden group's layer above (the composition done here); a gray and an indexed
    # image; deeper precisions; a cut one and one whose header claims 100000x100000.
    rgb = magick_pixels("png/rgb8.png", "rgb")
    rgba = magick_pixels("png/rgba8.png", "rgba")
    piece = b"".join(rgba[(y * 200 + 40) * 4:(y * 200 + 120) * 4] for y in range(30, 90))
    background = dict(name="Background", w=200, h=150, type=0, bpp=3, data=rgb)
    top = dict(name="Piece", w=80, h=60, type=1, bpp=4, data=piece, x=100, y=70)
    write("paintings/layers.xcf", xcf(0, 200, 150, [top, background], 1))
    ok_image("paintings/layers.xcf", "xcf", 200, 150, "a version 0 GIMP file, run-length encoded: a piece of rgba8.png over rgb8.png")
    run(CONVERT, out("paintings/layers.xcf"), "-background", "none", "-flatten", "-strip",
        "-define", "png:exclude-chunk=all", out("paintings/layers-xcf.png"))
    record("paintings/layers-xcf.png", "png", "ok", fit_image(200, 150), "ImageMagick's reading of layers.xcf, flattened")
    red = bytes([255, 0, 0, 255]) * (50 * 40)
    hidden = dict(name="Hidden", w=50, h=40, type=1, bpp=4, data=red, visible=False)
    group = dict(name="Group", w=1, h=1, type=1, bpp=4, data=bytes(4), group=True, visible=False, path=[0])
    in_group = dict(name="In the hidden group", w=50, h=40, type=1, bpp=4, data=red, x=10, y=10, path=[0, 0])
    half = dict(top, opacity=128, path=[1])
    write("paintings/layers-zlib.xcf", xcf(11, 200, 150, [hidden, group, in_group, half, dict(background, path=[2])], 2))
    ok_image("paintings/layers-zlib.xcf", "xcf", 200, 150,
             "a version 11 GIMP file, zlib: the piece at half opacity over rgb8.png; a hidden layer and a hidden group's layer above")

    def piece_over_background(opacity, width_kept=80):
        """The piece laid over rgb8.png at (100, 70) at `opacity`, its columns past `width_kept`
        masked out: a PNG."""
        canvas = bytearray(b"".join(rgb[i:i + 3] + b"\xff" for i in range(0, len(rgb), 3)))
        for y in range(60):
            row = (70 + y) * 200 + 100
            layer = bytearray(piece[y * 320:(y + 1) * 320])
            for x in range(width_kept, 80):
                layer[x * 4 + 3] = 0
            canvas[row * 4:(row + 80) * 4] = over(canvas[row * 4:(row + 80) * 4], layer, opacity)
        return encode_png(200, 150, 6, 8, [canvas[y * 800:(y + 1) * 800] for y in range(150)])
    write("paintings/layers-zlib-xcf.png", piece_over_background(128))
    record("paintings/layers-zlib-xcf.png", "png", "ok", fit_image(200, 150), "layers-zlib.xcf composed here")
    # The piece again, through a mask that keeps its left half.
    half_mask = bytes(255 if x < 40 else 0 for y in range(60) for x in range(80))
    write("paintings/masked.xcf", xcf(10, 200, 150, [dict(top, mask=half_mask), background], 2))
    ok_image("paintings/masked.xcf", "xcf", 200, 150, "the piece over rgb8.png through a mask keeping its left half (version 10, zlib)")
    write("paintings/masked-xcf.png", piece_over_background(255, width_kept=40))
    record("paintings/masked-xcf.png", "png", "ok", fit_image(200, 150), "masked.xcf composed here")
    # Layer modes: eight 40x30 pieces of rgba8.png over rgb8.png, each in a mode (GIMP's numbers:
    # multiply, screen, overlay, difference, darken only, lighten only, hard light, and HSV hue,
    # drawn as normal with a warning); ImageMagick's compose operators of the same names are the
    # reference.
    small = b"".join(rgba[(y * 200 + 60) * 4:(y * 200 + 100) * 4] for y in range(40, 70))
    small_path = os.path.join(TMP, "xcf-piece.png")
    with open(small_path, "wb") as f:
        f.write(encode_png(40, 30, 6, 8, [small[y * 160:(y + 1) * 160] for y in range(30)]))
    modes = [(30, "Multiply"), (31, "Screen"), (23, "Overlay"), (32, "Difference"), (35, "Darken"), (36, "Lighten"),
             (44, "HardLight"), (37, "Over")]
    spots = [(5 + 50 * (i % 4), 5 + 60 * (i // 4)) for i in range(len(modes))]
    pieces = [dict(name="Mode %d" % mode, w=40, h=30, type=1, bpp=4, data=small, x=x, y=y, mode=mode)
              for (mode, _), (x, y) in zip(modes, spots)]
    write("paintings/modes.xcf", xcf(11, 200, 150, list(reversed(pieces)) + [background], 2))
    ok_image("paintings/modes.xcf", "xcf", 200, 150,
             "pieces of rgba8.png over rgb8.png in multiply, screen, overlay, difference, darken, lighten, hard light and HSV hue")
    arguments = [os.path.join(ROOT, "png", "rgb8.png")]
    for (_, compose), (x, y) in zip(modes, spots):
        arguments += [small_path, "-geometry", "+%d+%d" % (x, y), "-compose", compose, "-composite"]
    run(CONVERT, *arguments, "-strip", "-define", "png:exclude-chunk=all", out("paintings/modes-xcf.png"))
    record("paintings/modes-xcf.png", "png", "ok", fit_image(200, 150), "ImageMagick's composition of modes.xcf")
    gray = magick_pixels("png/rgb8.png", "gray", "-colorspace", "gray")
    write("paintings/gray.xcf", xcf(3, 200, 150, [dict(name="Gray", w=200, h=150, type=2, bpp=1, data=gray)], 1, base=1))
    ok_image("paintings/gray.xcf", "xcf", 200, 150, "a gray GIMP file (version 3, run-length encoded) of rgb8.png")
    run(CONVERT, out("paintings/gray.xcf"), "-strip", "-define", "png:exclude-chunk=all", out("paintings/gray-xcf.png"))
    record("paintings/gray-xcf.png", "png", "ok", fit_image(200, 150), "ImageMagick's reading of gray.xcf")
    palette = bytes([0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 255])
    indices = bytes((x // 50 + y // 75) % 4 for y in range(150) for x in range(200))
    write("paintings/indexed.xcf", xcf(0, 200, 150, [dict(name="Indexed", w=200, h=150, type=4, bpp=1, data=indices)],
                                      0, base=2, colormap=palette))
    ok_image("paintings/indexed.xcf", "xcf", 200, 150, "an indexed GIMP file, stored: four colours in 50x75 blocks")
    # Deeper precisions, each the same picture as an 8-bit file above: every channel widened to
    # big-endian 16-bit integers (sRGB-encoded, run-length encoded per byte), linear 32-bit floats,
    # linear halves through the mask, sRGB-encoded 64-bit floats of the gray image; and rgb8.png
    # in 8-bit linear, its reference encoded here.
    def widened(data, pack, colour=lambda value: value / 255, channels=0):
        """`data`'s bytes packed by `pack` from 0-1 values: colour ones through `colour`, each
        `channels`th (alpha, or a mask's every byte with `channels` 1) scaled only."""
        return b"".join(struct.pack(pack, (value / 255) if channels and i % channels == channels - 1 else colour(value))
                        for i, value in enumerate(data))

    def linear(value):
        value /= 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    def sixteen(layer):
        return dict(layer, bpp=layer["bpp"] * 2, data=widened(layer["data"], ">H", lambda v: v * 257))
    write("paintings/deep16.xcf", xcf(11, 200, 150, [sixteen(top), sixteen(background)], 1, precision=250))
    ok_image("paintings/deep16.xcf", "xcf", 200, 150,
             "layers.xcf in 16-bit sRGB-encoded integers (precision 250), run-length encoded a byte plane at a time")
    write("paintings/float-linear.xcf", xcf(11, 200, 150, [
        dict(top, bpp=16, data=widened(piece, ">f", linear, channels=4)),
        dict(background, bpp=12, data=widened(rgb, ">f", linear))], 2, precision=600))
    ok_image("paintings/float-linear.xcf", "xcf", 200, 150, "layers.xcf in linear 32-bit floats (precision 600), zlib")
    write("paintings/half-linear.xcf", xcf(7, 200, 150, [
        dict(top, bpp=8, data=widened(piece, ">e", linear, channels=4), mask=widened(half_mask, ">e", channels=1), mask_bpp=2),
        dict(background, bpp=6, data=widened(rgb, ">e", linear))], 0, precision=500))
    ok_image("paintings/half-linear.xcf", "xcf", 200, 150,
             "masked.xcf in linear 16-bit floats (precision 500, version 7), its mask too, stored")
    write("paintings/double-gray.xcf", xcf(11, 200, 150, [dict(name="Gray", w=200, h=150, type=2, bpp=8,
                                                                data=widened(gray, ">d"))], 2, base=1, precision=750))
    ok_image("paintings/double-gray.xcf", "xcf", 200, 150, "gray.xcf in sRGB-encoded 64-bit floats (precision 750), zlib")
    linear8 = bytes(round(linear(v) * 255) for v in rgb)
    write("paintings/linear8.xcf", xcf(11, 200, 150, [dict(background, data=linear8)], 2, precision=100))
    ok_image("paintings/linear8.xcf", "xcf", 200, 150, "rgb8.png in 8-bit linear integers (precision 100), zlib")

    def srgb(value):
        value /= 255
        value = value * 12.92 if value <= 0.0031308 else 1.055 * value ** (1 / 2.4) - 0.055
        return round(value * 255)
    encoded = bytes(srgb(v) for v in linear8)
    write("paintings/linear8-xcf.png", encode_png(200, 150, 2, 8, [encoded[y * 600:(y + 1) * 600] for y in range(150)]))
    record("paintings/linear8-xcf.png", "png", "ok", fit_image(200, 150), "linear8.xcf's values on the sRGB curve, here")
    write("paintings/unknown-precision.xcf", xcf(11, 4, 4, [dict(name="Deep", w=4, h=4, type=0, bpp=6, data=bytes(96))],
                                                 2, precision=400))
    record("paintings/unknown-precision.xcf", "xcf", "error:unsupported", None,
           "a GIMP file naming precision 400, which no version 11 writes: refused")
    write("paintings/deep-mismatch.xcf", xcf(11, 4, 4, [dict(name="Deep", w=4, h=4, type=0, bpp=3, data=bytes(48))],
                                             2, precision=250))
    record("paintings/deep-mismatch.xcf", "xcf", "error:unsupported", None,
           "a 16-bit GIMP file whose layer says 3 bytes a pixel: refused")
    # GIMP's compressed saving: layers-zlib.xcf gzip, bzip2 and xz-compressed whole; one cut in
    # half; and a bomb: a GIMP header and 600 MB of zeros in 1 kB of bzip2.
    plain = read("paintings/layers-zlib.xcf")
    write("paintings/layers.xcf.gz", gzip.compress(plain, mtime=0))
    write("paintings/layers.xcf.bz2", bz2.compress(plain))
    write("paintings/layers.xcf.xz", lzma.compress(plain))
    for name in ["layers.xcf.gz", "layers.xcf.bz2", "layers.xcf.xz"]:
        ok_image("paintings/" + name, "xcf", 200, 150, "layers-zlib.xcf, compressed whole as GIMP saves it")
    write("paintings/cut.xcf.gz", read("paintings/layers.xcf.gz")[:len(read("paintings/layers.xcf.gz")) // 2])
    record("paintings/cut.xcf.gz", "xcf", "error:corrupt", None, "layers.xcf.gz cut in half")
    bomb = bz2.BZ2Compressor()
    chunks = [bomb.compress(plain[:30])] + [bomb.compress(bytes(1 << 20)) for _ in range(600)]
    write("paintings/bomb.xcf.bz2", b"".join(chunks) + bomb.flush())
    record("paintings/bomb.xcf.bz2", "xcf", "error:memory", None,
           "a GIMP header and 600 MB of zeros, bzip2: refused past the 512 MB a compressed file may take")
    whole = read("paintings/layers.xcf")
    write("paintings/cut.xcf", whole[:len(whole) // 2])
    record("paintings/cut.xcf", "xcf", "error:truncated", None, "layers.xcf cut in half")
    write("paintings/huge.xcf", xcf(0, 100000, 100000, [], 1))
    record("paintings/huge.xcf", "xcf", "error:exceeds the 100-megapixel limit", None, "a GIMP file claiming 100000x100000 pixels")


# ---------------------------------------------------------------- iwork

def iwork_zip(entries):
    """An iWork file as Pages, Keynote and Numbers save one since 2013: a ZIP of `entries`
    ((name, bytes)), deflated, every date fixed."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 5, 17, 10, 30, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            package.writestr(info, data)
    return buffer.getvalue()


def make_iwork():
    """Pages, Keynote and Numbers files laid out as iWork writes them (the IWA archives are
    placeholders: only the listing and the preview are read), each carrying
    jpeg/photo-baseline.jpg (1600x1200) as its preview."""
    preview = read("jpeg/photo-baseline.jpg")
    small_path = os.path.join(TMP, "iwork-web.jpg")
    magick(os.path.join(ROOT, "jpeg", "photo-baseline.jpg"), "-resize", "400x300", small_path)
    with open(small_path, "rb") as f:
        small = f.read()
    iwa = b"\0" * 64
    common = [("Index/Document.iwa", iwa), ("Metadata/Properties.plist", b"bplist00"),
              ("preview-web.jpg", small)]
    write("iwork/letter.pages", iwork_zip(common + [("preview.jpg", preview)]))
    ok_image("iwork/letter.pages", "pages", 1600, 1200, "Pages: Index/Document.iwa and preview.jpg (the photo)")
    write("iwork/deck.zip", iwork_zip(common + [("Index/Slide-1.iwa", iwa), ("Index/MasterSlide-1.iwa", iwa),
                                                ("preview.jpg", preview)]))
    ok_image("iwork/deck.zip", "key", 1600, 1200,
             "Keynote named .zip: told by its Index/Slide entries; drawn from preview.jpg")
    write("iwork/budget.numbers", iwork_zip(common + [("Index/CalculationEngine.iwa", iwa),
                                                      ("preview.jpg", preview)]))
    ok_image("iwork/budget.numbers", "numbers", 1600, 1200, "Numbers: drawn from preview.jpg")
    write("iwork/old.pages", iwork_zip([("index.xml", b"<sl:document/>"), ("QuickLook/Thumbnail.jpg", small)]))
    ok_image("iwork/old.pages", "pages", 400, 300, "iWork '09 Pages: index.xml and QuickLook/Thumbnail.jpg")
    write("iwork/locked.numbers", iwork_zip(common + [(".iwph", b"a hint"), ("Index/CalculationEngine.iwa", iwa)]))
    record("iwork/locked.numbers", "numbers", "error:needs a password", None,
           "Numbers saved with a password: its hint entry .iwph, no preview")


# ---------------------------------------------------------------- blender

def blend_file(test_block, large=False, big_endian=False):
    """A Blender file of a few blocks, as Blender lays them out: a render-settings block, the
    thumbnail `test_block` (width, height, RGBA rows bottom first; None for none), a global block
    and the end. `large`: Blender 5's header and 64-bit block headers; otherwise
    `BLENDER-v300`, 8-byte pointers."""
    order = ">" if big_endian else "<"

    def block(code, data):
        if large:
            return struct.pack(order + "4siQqq", code, 0, 0x7F0000, len(data), 1) + data
        return struct.pack(order + "4siQii", code, len(data), 0x7F0000, 0, 1) + data

    header = b"BLENDER17-01v0500" if large else b"BLENDER-" + (b"V" if big_endian else b"v") + b"300"
    body = block(b"REND", bytes(72))
    if test_block is not None:
        body += block(b"TEST", test_block)
    body += block(b"GLOB", bytes(1024)) + block(b"DNA1", bytes(256)) + block(b"ENDB", b"")
    return header + body


def blend_thumbnail(w, h, big_endian=False):
    """A TEST block's data: w x h RGBA, red above blue, rows bottom first."""
    rows = [bytes((220, 30, 30, 255) if y < h // 2 else (30, 40, 220, 255)) * w for y in range(h)]
    return struct.pack((">" if big_endian else "<") + "ii", w, h) + b"".join(reversed(rows))


def make_blender():
    """Blender files written here from the layout of their blocks, each carrying a 128x96
    thumbnail red above blue: stored, gzip and Zstandard compressed (the zstd tool), Blender 5's
    header, big-endian, without a thumbnail, and with a thumbnail block cut short."""
    thumb = blend_thumbnail(128, 96)
    write("blender/scene.blend", blend_file(thumb))
    ok_image("blender/scene.blend", "blend", 128, 96, "BLENDER-v300 with a 128x96 TEST block, red above blue")
    write("blender/gzip.blend", gzip.compress(blend_file(thumb), mtime=0))
    ok_image("blender/gzip.blend", "blend", 128, 96, "scene.blend gzip-compressed, as Blender 2.x saved with compression")
    raw = os.path.join(TMP, "zstd.blend")
    with open(raw, "wb") as f:
        f.write(blend_file(thumb))
    run("zstd", "-q", "-19", "-f", raw, "-o", out("blender/zstd.blend"))
    ok_image("blender/zstd.blend", "blend", 128, 96, "scene.blend Zstandard-compressed (zstd -19), as Blender 3+ saves")
    write("blender/blender5.blend", blend_file(thumb, large=True))
    ok_image("blender/blender5.blend", "blend", 128, 96, "Blender 5's header BLENDER17-01v0500 and 64-bit block headers")
    write("blender/big-endian.blend", blend_file(blend_thumbnail(128, 96, True), big_endian=True))
    ok_image("blender/big-endian.blend", "blend", 128, 96, "BLENDER-V300: big-endian, as PowerPC Macs saved")
    write("blender/no-thumbnail.blend", blend_file(None))
    record("blender/no-thumbnail.blend", "blend", "error:saved without a thumbnail", None, "no TEST block")
    whole = blend_file(thumb)
    cut = whole.index(b"TEST") + 24 + 8 + 128 * 4 * 40
    write("blender/cut.blend", whole[:cut])
    record("blender/cut.blend", "blend", "error:truncated", None, "scene.blend cut inside its thumbnail")


# ---------------------------------------------------------------- mobi

def mobi_book(title, author, images, cover=None, thumbnail=None, exth=True):
    """A Mobipocket book as the MOBI format lays one out: a Palm database (type BOOK, creator
    MOBI) whose record 0 holds the PalmDOC header, a MOBI header (232 bytes), an EXTH header
    (author 100, title 503, cover offset 201, thumbnail offset 202) and the full name; then one
    text record, then `images` (bytes each), the first image record's index in the MOBI header."""
    records_exth = [(100, author.encode()), (503, title.encode())]
    if cover is not None:
        records_exth.append((201, struct.pack(">I", cover)))
    if thumbnail is not None:
        records_exth.append((202, struct.pack(">I", thumbnail)))
    exth_body = b"".join(struct.pack(">II", kind, 8 + len(value)) + value for kind, value in records_exth)
    exth_block = b"EXTH" + struct.pack(">II", 12 + len(exth_body), len(records_exth)) + exth_body if exth else b""
    name = title.encode()
    first_image = 2
    mobi = bytearray(232)
    mobi[0:4] = b"MOBI"
    struct.pack_into(">III", mobi, 4, 232, 2, 65001)  # header length, type (book), UTF-8
    name_offset = 16 + 232 + len(exth_block)
    struct.pack_into(">II", mobi, 84 - 16, name_offset, len(name))
    struct.pack_into(">I", mobi, 108 - 16, first_image)
    struct.pack_into(">I", mobi, 128 - 16, 0x40 if exth else 0)
    palmdoc = struct.pack(">HHIHHHH", 1, 0, 5, 1, 4096, 0, 0)
    record0 = palmdoc + bytes(mobi) + exth_block + name + b"\0\0"
    records = [record0, b"Hello"] + list(images)
    start = 78 + 8 * len(records) + 2
    offsets = []
    for record in records:
        offsets.append(start)
        start += len(record)
    header = bytearray(78)
    header[0:len(name[:31])] = name[:31]
    header[60:68] = b"BOOKMOBI"
    struct.pack_into(">H", header, 76, len(records))
    listing = b"".join(struct.pack(">IBBH", offset, 0, 0, index) for index, offset in enumerate(offsets))
    return bytes(header) + listing + b"\0\0" + b"".join(records)


def make_mobi():
    """Mobipocket books written here from the format's layout: the cover named by EXTH, the first
    image when nothing is named, and damaged books."""
    photo = read("jpeg/photo-baseline.jpg")
    small_path = os.path.join(TMP, "mobi-thumb.jpg")
    magick(os.path.join(ROOT, "jpeg", "photo-baseline.jpg"), "-resize", "160x120", small_path)
    with open(small_path, "rb") as f:
        small = f.read()
    write("mobi/cover.mobi", mobi_book("A Book of Tests", "Ada Example", [small, photo], cover=1, thumbnail=0))
    ok_image("mobi/cover.mobi", "mobi", 1600, 1200,
             "MOBI whose EXTH names image 1 (the 1600x1200 photo) as its cover and image 0 (160x120) as its thumbnail")
    write("mobi/no-exth.azw3", mobi_book("Plain", "Nobody", [small, photo], exth=False))
    ok_image("mobi/no-exth.azw3", "mobi", 160, 120, "no EXTH header: the first image record (160x120) is drawn")
    write("mobi/no-images.mobi", mobi_book("Words Only", "Ada Example", []))
    record("mobi/no-images.mobi", "mobi", "error:no cover picture", None, "a book with no image records")
    whole = mobi_book("Cut", "Ada Example", [small, photo], cover=1)
    write("mobi/cut.mobi", whole[:90])
    record("mobi/cut.mobi", "mobi", "error:truncated mobipocket", None, "cover.mobi cut inside its record list")
    lying = bytearray(whole)
    struct.pack_into(">I", lying, 78 + 8 * 3, len(whole) + 100)  # image 1 starts past the end
    write("mobi/lying-offsets.mobi", bytes(lying))
    record("mobi/lying-offsets.mobi", "mobi", "error:not in order inside the file", None,
           "cover.mobi whose record list puts its last record past the end of the file")


# ---------------------------------------------------------------- icns

def icns_file(entries, declared_extra=0):
    """A macOS icon file: `icns`, its length, then `entries` ((type, data))."""
    body = b"".join(kind + struct.pack(">I", 8 + len(data)) + data for kind, data in entries)
    return b"icns" + struct.pack(">I", 8 + len(body) + declared_extra) + body


def make_icns():
    """macOS icon files written here from the format's layout: PNG pictures of 128 and 256
    pixels (png/rgba8.png stretched square), the older RLE-packed 16-pixel picture with its mask,
    JPEG 2000 alone (a whole picture, and the start of one), and a file cut short."""
    pngs = {}
    for side in (128, 256):
        path = os.path.join(TMP, "icns-%d.png" % side)
        magick(os.path.join(ROOT, "png", "rgba8.png"), "-resize", "%dx%d!" % (side, side), path)
        with open(path, "rb") as f:
            pngs[side] = f.read()
    write("icns/modern.icns", icns_file([(b"ic07", pngs[128]), (b"ic08", pngs[256])]))
    ok_image("icns/modern.icns", "icns", 256, 256, "PNG pictures of 128 (ic07) and 256 (ic08): the 256 is drawn")
    # is32: each channel of 16x16 packed in runs; a literal run is a byte n < 128, then n + 1 bytes.
    def packed(values):
        out = b""
        for start in range(0, len(values), 128):
            chunk = values[start:start + 128]
            out += bytes([len(chunk) - 1]) + chunk
        return out
    red = bytes([220] * 128 + [30] * 128)
    green = bytes([30] * 128 + [40] * 128)
    blue = bytes([30] * 128 + [220] * 128)
    write("icns/legacy.icns", icns_file([(b"is32", packed(red) + packed(green) + packed(blue)),
                                         (b"s8mk", bytes([255] * 256))]))
    ok_image("icns/legacy.icns", "icns", 16, 16, "the older is32 picture (16x16, red above blue) and its s8mk mask")
    jp2 = os.path.join(TMP, "icns-512.jp2")
    run(CONVERT, os.path.join(ROOT, "png", "rgba8.png"), "-resize", "512x512!", jp2)
    with open(jp2, "rb") as f:
        write("icns/jpeg2000-only.icns", icns_file([(b"ic09", f.read())]))
    ok_image("icns/jpeg2000-only.icns", "icns", 512, 512, "one ic09 entry: a 512-pixel JPEG 2000 (ImageMagick's)")
    write("icns/jpeg2000-broken.icns", icns_file([(b"ic10", bytes.fromhex("0000000c6a5020200d0a870a") + bytes(64))]))
    record("icns/jpeg2000-broken.icns", "icns", "error:jpeg 2000", None,
           "one ic10 entry holding only the start of a JPEG 2000")
    write("icns/cut.icns", icns_file([(b"ic08", pngs[256])])[:40])
    record("icns/cut.icns", "icns", "error:truncated", None, "modern.icns's 256 picture cut after 40 bytes")


# ---------------------------------------------------------------- pam

def make_pam():
    """PAM (P7) images written by ImageMagick: RGB with alpha, 16-bit gray; and one cut short."""
    run(CONVERT, os.path.join(ROOT, "png", "rgba8.png"), "PAM:" + out("pam/rgba.pam"))
    ok_image("pam/rgba.pam", "pam", 200, 150, "png/rgba8.png as PAM, TUPLTYPE RGB_ALPHA")
    run(CONVERT, os.path.join(ROOT, "png", "rgba8.png"), "-alpha", "off", "-colorspace", "gray", "-depth", "16",
        "PAM:" + out("pam/gray16.pam"))
    ok_image("pam/gray16.pam", "pam", 200, 150, "png/rgba8.png in 16-bit gray, TUPLTYPE GRAYSCALE, MAXVAL 65535")
    whole = read("pam/rgba.pam")
    write("pam/cut.pam", whole[:len(whole) // 2])
    record("pam/cut.pam", "pam", "error:truncated", None, "rgba.pam cut in half")


# ---------------------------------------------------------------- JPEG XL

def cjxl(source, rel, *options):
    run("cjxl", source, out(rel), "--num_threads=0", *options, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


def make_jxl():
    """JPEG XL pictures encoded by libjxl's cjxl from the project's other assets: lossy and
    lossless, alpha, gray, a JPEG recompressed with its orientation, a
    Display P3 profile, an animation, HDR in PQ and HLG made from media/hdr-reference.png's
    pixels, and one cut short."""
    png = lambda name: os.path.join(ROOT, "png", name)
    cjxl(png("rgb8.png"), "jxl/photo.jxl", "-d", "1")
    ok_image("jxl/photo.jxl", "jxl", 200, 150, "png/rgb8.png, lossy (distance 1, XYB), a bare codestream")
    cjxl(png("rgba8.png"), "jxl/rgba.jxl", "-d", "0")
    ok_image("jxl/rgba.jxl", "jxl", 200, 150, "png/rgba8.png, lossless")
    gray = os.path.join(TMP, "gray.png")
    run(CONVERT, png("rgb8.png"), "-colorspace", "gray", gray)
    cjxl(gray, "jxl/gray.jxl", "-d", "1")
    ok_image("jxl/gray.jxl", "jxl", 200, 150, "png/rgb8.png in gray, lossy")
    cjxl(os.path.join(ROOT, "orientation", "orient-6.jpg"), "jxl/orient-6.jxl", "--lossless_jpeg=1")
    ok_image("jxl/orient-6.jxl", "jxl", 600, 400,
             "orientation/orient-6.jpg recompressed losslessly: orientation 6 in the codestream, its Exif kept")
    cjxl(os.path.join(ROOT, "colour", "display-p3.png"), "jxl/display-p3.jxl", "-d", "0")
    ok_image("jxl/display-p3.jxl", "jxl", 1536, 1024, "colour/display-p3.png, lossless, its ICC profile kept")
    cjxl(os.path.join(ROOT, "gif", "animated.gif"), "jxl/animation.jxl", "-d", "0")
    ok_image("jxl/animation.jxl", "jxl", 320, 240, "gif/animated.gif's frames: the first is the thumbnail")
    w, h, rgb = read_ppm_of(os.path.join(ROOT, "media", "hdr-reference.png"))
    for transfer, space in (("pq", "RGB_D65_202_Rel_PeQ"), ("hlg", "RGB_D65_202_Rel_HLG")):
        deep = os.path.join(TMP, transfer + ".ppm")
        with open(deep, "wb") as f:
            f.write(b"P6\n%d %d\n65535\n" % (w, h))
            f.write(b"".join(struct.pack(">HHH", *(rnd(65535 * v) for v in pixel))
                             for pixel in hdr_pixels(rgb, w, h, transfer)))
        cjxl(deep, "jxl/%s.jxl" % transfer, "-d", "1", "-x", "color_space=" + space)
        ok_image("jxl/%s.jxl" % transfer, "jxl", w, h,
                 "media/hdr-reference.png's pixels in BT.2100 %s (SDR white at 203 cd/m2), 16-bit, lossy"
                 % transfer.upper())
    whole = read("jxl/photo.jxl")
    write("jxl/cut.jxl", whole[:len(whole) // 2])
    record("jxl/cut.jxl", "jxl", "error:truncated", None, "photo.jxl cut in half")


def read_ppm_of(path):
    """The width, height and 8-bit RGB samples of the picture at `path`, read by ImageMagick."""
    ppm = os.path.join(TMP, "read.ppm")
    run(CONVERT, path, "-depth", "8", "-strip", ppm)
    return read_ppm(ppm)


# ---------------------------------------------------------------- Photoshop

def psd_resource(number, data):
    """One image resource: `8BIM`, its ID, an empty name, its length and data padded to even."""
    return b"8BIM" + struct.pack(">HHI", number, 0, len(data)) + data + b"\0" * (len(data) % 2)


def psd_file(w, h, mode, depth, planes, resources=b""):
    """A PSD of one raw (uncompressed) composite: `planes`, each channel's rows in turn; no layers."""
    return (b"8BPS" + struct.pack(">H", 1) + bytes(6) + struct.pack(">HIIHH", len(planes), h, w, depth, mode)
            + struct.pack(">I", 0) + struct.pack(">I", len(resources)) + resources + struct.pack(">I", 0)
            + struct.pack(">H", 0) + b"".join(planes))


def srgb_to_lab(rgb):
    """An 8-bit sRGB pixel as CIELAB (D50, Bradford-adapted from sRGB's D65)."""
    r, g, b = (srgb_to_linear(v / 255) for v in rgb)
    x = 0.4360747 * r + 0.3850649 * g + 0.1430804 * b
    y = 0.2225045 * r + 0.7168786 * g + 0.0606169 * b
    z = 0.0139322 * r + 0.0971045 * g + 0.7141733 * b

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = f(x / 0.9642), f(y), f(z / 0.8249)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def make_psd():
    """Photoshop documents: ImageMagick's (RGB, PackBits and raw, alpha, 16-bit, gray, indexed,
    CMYK with and without a profile, a PSB), and composites written here for what ImageMagick
    does not write (Lab, 1-bit bitmap, 32-bit linear light, a file saved without a composite
    but with a thumbnail, and without either), and one cut short."""
    rgb8, rgba8 = os.path.join(ROOT, "png", "rgb8.png"), os.path.join(ROOT, "png", "rgba8.png")
    made = [("rgb.psd", [rgb8], "png/rgb8.png, PackBits"),
            ("raw.psd", [rgb8, "-compress", "none"], "png/rgb8.png, uncompressed"),
            ("rgba.psd", [rgba8], "png/rgba8.png: its transparency in the composite's fourth channel"),
            ("rgb16.psd", [rgb8, "-depth", "16"], "png/rgb8.png, 16 bits a sample"),
            ("gray.psd", [rgb8, "-colorspace", "gray"], "png/rgb8.png in gray"),
            ("indexed.psd", [rgb8, "-colors", "16", "-type", "palette"], "png/rgb8.png in 16 colours, indexed"),
            ("cmyk.psd", [rgb8, "-colorspace", "cmyk"], "png/rgb8.png in CMYK, no profile"),
            ("cmyk-profiled.psd", [rgb8, "-profile", os.path.join(ICC_DIR, "sRGB.icc"), "-profile",
                                   os.path.join(ICC_DIR, "ghostscript", "default_cmyk.icc")],
             "png/rgb8.png converted into ghostscript's CMYK SWOP profile, which it carries")]
    for name, args, note in made:
        run(CONVERT, *args, out("psd/" + name))
        ok_image("psd/" + name, "psd", 200, 150, note)
    run(CONVERT, rgba8, "PSB:" + out("psd/rgba.psb"))
    ok_image("psd/rgba.psb", "psd", 200, 150, "png/rgba8.png as a PSB (the large document format)")
    w, h, rgb = read_ppm_of(rgb8)
    pixels = [rgb[3 * i:3 * i + 3] for i in range(w * h)]
    lab = [srgb_to_lab(p) for p in pixels]
    planes = [bytes(rnd(v[0] * 255 / 100) for v in lab), bytes(rnd(v[1]) + 128 for v in lab),
              bytes(rnd(v[2]) + 128 for v in lab)]
    write("psd/lab.psd", psd_file(w, h, 9, 8, planes))
    ok_image("psd/lab.psd", "psd", w, h, "png/rgb8.png's pixels in CIELAB (D50), 8 bits")
    linear = [bytes(b"".join(struct.pack(">f", srgb_to_linear(p[c] / 255)) for p in pixels)) for c in range(3)]
    write("psd/float32.psd", psd_file(w, h, 3, 32, linear))
    ok_image("psd/float32.psd", "psd", w, h, "png/rgb8.png's pixels as 32-bit floats of linear light")
    bits = subprocess.run([CONVERT, rgb8, "-monochrome", "pbm:-"], check=True, capture_output=True).stdout
    write("psd/bitmap.psd", psd_file(w, h, 0, 1, [bits[-((w + 7) // 8 * h):]]))
    ok_image("psd/bitmap.psd", "psd", w, h, "png/rgb8.png in 1-bit black and white (ImageMagick's PBM bits)")
    # Saved without a composite: VersionInfo's hasRealMergedData is 0, the composite is white.
    version = struct.pack(">IB", 1, 0) + bytes(8)
    white = [b"\xff" * (w * h)] * 3
    jpeg = subprocess.run([CONVERT, rgb8, "-resize", "160x120", "-quality", "90", "jpg:-"], check=True,
                          capture_output=True).stdout
    thumbnail = struct.pack(">IIIIIIHH", 1, 160, 120, 160 * 3, 160 * 3 * 120, len(jpeg), 24, 1) + jpeg
    write("psd/no-composite.psd",
          psd_file(w, h, 3, 8, white, psd_resource(1057, version) + psd_resource(1036, thumbnail)))
    ok_image("psd/no-composite.psd", "psd", 160, 120,
             "saved without a composite (VersionInfo), a 160x120 thumbnail resource of png/rgb8.png: drawn from it")
    write("psd/no-composite-no-thumbnail.psd", psd_file(w, h, 3, 8, white, psd_resource(1057, version)))
    record("psd/no-composite-no-thumbnail.psd", "psd", "error:without a composite image", None,
           "saved without a composite and without a thumbnail: refused in one line")
    huge = psd_file(30000, 30000, 3, 8, [b"", b"", b""])
    write("psd/huge.psd", huge + b"\0" * 64)
    record("psd/huge.psd", "psd", "error:exceeds the 100-megapixel limit", None,
           "a header of 30000x30000 and no pixels: refused before a row is read")
    whole = read("psd/rgb.psd")
    write("psd/cut.psd", whole[:len(whole) * 2 // 3])
    record("psd/cut.psd", "psd", "error:truncated", None, "rgb.psd cut at two thirds")


# ---------------------------------------------------------------- PostScript

# Where the PostScript and XPS documents that name a file outside themselves name it: a folder
# of its own (the office documents' LINKED_MEDIA is watched by other tests), which the renderer
# tests (OutsideReferencesTests) fill and watch.
OUTSIDE_FOLDER = "/tmp/glance-outside-references"

HALVES_PS = """%%!PS-Adobe-3.0
%%%%BoundingBox: 0 0 300 200
%%%%Pages: 2
%%%%EndComments
%%%%Page: 1 1
%s
%%%%Page: 2 2
0 1 0 setrgbcolor 0 0 300 200 rectfill
showpage
%%%%EOF
"""
# Red above blue on a 300x200 box whose lower left corner is (x, y).
HALVES_DRAWING = """1 0 0 setrgbcolor %(x)d %(top)d 300 100 rectfill
0 0 1 setrgbcolor %(x)d %(y)d 300 100 rectfill
(drawn) print"""


def undated(rel):
    """Takes the %%CreationDate line out of a PostScript program a tool wrote, so that the file
    is the same every run."""
    dated = read(rel)
    write(rel, b"\n".join(line for line in dated.split(b"\n") if not line.startswith(b"%%CreationDate")))


def make_postscript():
    """PostScript programs written here (red above blue, two pages), EPS (its box away from the
    origin, no showpage; Ghostscript's eps2write of the PostScript; a DOS binary EPS), one
    without a BoundingBox, and hostile ones: reading a file, running a file, a loop."""
    write("postscript/halves.ps", (HALVES_PS % (HALVES_DRAWING % {"x": 0, "y": 0, "top": 100} + "\nshowpage"))
          .encode())
    ok_image("postscript/halves.ps", "ps", 1024, 683, "red above blue on a 300x200 page, then a green page")
    eps = ("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 100 50 400 250\n%%EndComments\n"
           + HALVES_DRAWING % {"x": 100, "y": 50, "top": 150} + "\n%%EOF\n").encode()
    write("postscript/offset.eps", eps)
    ok_image("postscript/offset.eps", "eps", 1024, 683, "red above blue in a box from (100, 50), no showpage")
    run("gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=eps2write", "-dLastPage=1",
        "-sOutputFile=" + out("postscript/eps2write.eps"), os.path.join(ROOT, "postscript", "halves.ps"),
        stdout=subprocess.DEVNULL)
    undated("postscript/eps2write.eps")
    ok_image("postscript/eps2write.eps", "eps", 1024, 683, "halves.ps's first page by Ghostscript's eps2write")
    # A DOS binary EPS: its 30-byte header, the PostScript section, then a (junk) TIFF preview.
    preview = b"II*\0" + bytes(60)
    header = struct.pack("<4sIIIIIIH", b"\xc5\xd0\xd3\xc6", 30, len(eps), 0, 0, 30 + len(eps), len(preview), 0xFFFF)
    write("postscript/dos-binary.eps", header + eps + preview)
    ok_image("postscript/dos-binary.eps", "eps", 1024, 683, "offset.eps in a DOS binary EPS, after its header")
    # Paper from the comments, as printing programs write them. cairo (GTK's Print to File):
    # A4 in %%DocumentMedia, a %%BoundingBox of where the text is.
    run("pdftocairo", "-ps", os.path.join(ROOT, "pdf", "a4-two-pages.pdf"), out("postscript/cairo.ps"))
    undated("postscript/cairo.ps")
    ok_image("postscript/cairo.ps", "ps", 724, 1024,
             "pdf/a4-two-pages.pdf by pdftocairo: A4 in %%DocumentMedia, a %%BoundingBox of the text alone")
    # Ghostscript's ps2write of pages of two sizes: the %%BoundingBox holds both, each
    # %%PageBoundingBox its own page.
    two_sizes = os.path.join(TMP, "two-sizes.ps")
    with open(two_sizes, "w") as f:
        f.write("%!PS\n<< /PageSize [300 200] >> setpagedevice\n"
                + HALVES_DRAWING % {"x": 0, "y": 0, "top": 100} + "\nshowpage\n"
                + "<< /PageSize [200 300] >> setpagedevice 0 1 0 setrgbcolor 0 0 200 300 rectfill showpage\n")
    run("gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=ps2write",
        "-sOutputFile=" + out("postscript/ps2write.ps"), two_sizes, stdout=subprocess.DEVNULL)
    undated("postscript/ps2write.ps")
    ok_image("postscript/ps2write.ps", "ps", 1024, 683,
             "a 300x200 page (red above blue) then a 200x300 one (green) by Ghostscript's ps2write")
    write("postscript/paper-sizes.ps", b"%!PS-Adobe-2.0\n%%DocumentPaperSizes: a4\n%%BoundingBox: 72 72 200 200\n"
          b"%%Pages: 1\n%%EndComments\n%%Page: 1 1\n0 0 1 setrgbcolor 0 0 595 421 rectfill showpage\n")
    ok_image("postscript/paper-sizes.ps", "ps", 724, 1024,
             "A4 by %%DocumentPaperSizes (dvips' comment), a smaller %%BoundingBox; its lower half blue")
    # A %%Pages of two billion over two marked pages, the first holding a figure with its own
    # %%Page comment (between %%BeginDocument and %%EndDocument): two pages.
    write("postscript/included.ps", ("%!PS-Adobe-3.0\n%%BoundingBox: 0 0 300 200\n%%Pages: 2000000000\n"
                                      "%%EndComments\n%%Page: 1 1\n%%BeginDocument: figure.eps\n"
                                      "%!PS-Adobe-3.0 EPSF-3.0\n%%Page: 1 1\n%%PageMedia: huge\n%%EndDocument\n"
                                      + HALVES_DRAWING % {"x": 0, "y": 0, "top": 100} + "\nshowpage\n"
                                      "%%Page: 2 2\n0 1 0 setrgbcolor 0 0 300 200 rectfill showpage\n%%EOF\n").encode())
    ok_image("postscript/included.ps", "ps", 1024, 683,
             "two pages marked, %%Pages says two billion, page 1 includes a figure with its own %%Page")
    write("postscript/no-box.ps", b"%!PS\n0 0 1 setrgbcolor 0 0 612 396 rectfill showpage\n")
    ok_image("postscript/no-box.ps", "ps", 791, 1024, "no BoundingBox: a US Letter page, its lower half blue")
    write("postscript/bare-header.ps", b"%!\n% Only the two characters every PostScript file starts with.\n"
          b"0 0 1 setrgbcolor 0 0 612 396 rectfill showpage\n")
    ok_image("postscript/bare-header.ps", "ps", 791, 1024, "no-box.ps starting with `%!` alone, as hand-written programs do")
    # A %%Pages no document has, and a box of a 10^-300th of a point: no count, no box.
    write("postscript/absurd-header.ps", b"%!PS-Adobe-3.0\n%%Pages: 99999999999999999999\n"
          b"%%HiResBoundingBox: 0 0 1e-300 1e-300\n%%EndComments\n0 0 1 setrgbcolor 0 0 612 396 rectfill showpage\n")
    ok_image("postscript/absurd-header.ps", "ps", 791, 1024,
             "%%Pages of 10^20 (it trapped the renderer) and a box of 1e-300 points: one page, US Letter")
    # A box of infinite width (its corners at -1e308 and 1e308): no box, drawn on US Letter.
    write("postscript/infinite-box.eps", b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: -1e308 -1e308 1e308 1e308\n"
          b"0 0 1 setrgbcolor 0 0 612 396 rectfill\n")
    ok_image("postscript/infinite-box.eps", "eps", 791, 1024,
             "an EPS whose BoundingBox is 1e308 wide each way: no box a page can have, so US Letter")
    write("postscript/reads-file.ps", b"%!PS\n(/etc/passwd) (r) file 100 string readstring pop print showpage\n")
    record("postscript/reads-file.ps", "ps", "error:asks for a file outside itself", None,
           "opens /etc/passwd: refused by -dSAFER")
    write("postscript/runs-file.ps", b"%!PS\n(/etc/hostname) run showpage\n")
    record("postscript/runs-file.ps", "ps", "error:asks for a file outside itself", None,
           "runs /etc/hostname: refused by -dSAFER")
    write("postscript/runs-linked.ps", ("%%!PS\n(%s/outside.png) run showpage\n" % OUTSIDE_FOLDER).encode())
    record("postscript/runs-linked.ps", "ps", "error:asks for a file outside itself", None,
           "runs OUTSIDE_FOLDER's outside.png: refused by -dSAFER before it is opened (the renderer tests watch it)")
    write("postscript/nothing.ps", b"%!PS\n1 2 add pop\n")
    record("postscript/nothing.ps", "ps", "error:showed no page", None, "a program that shows no page")
    write("postscript/usage.ps", b"%!PS\n(\n   *** usage: gs -sFile=NAME usage.ps\n) print flush quit\n")
    record("postscript/usage.ps", "ps", "error:showed no page; it printed: *** usage: gs -sfile=name usage.ps", None,
           "a utility that prints its usage after a blank line and quits: the line is in the error")
    # Compressed, as preprint archives served them (mtime 0: the same bytes every time).
    write("postscript/halves.ps.gz", gzip.compress(read("postscript/halves.ps"), mtime=0))
    ok_image("postscript/halves.ps.gz", "ps", 1024, 683, "halves.ps gzip-compressed: drawn as halves.ps is")
    write("postscript/offset.eps.gz", gzip.compress(read("postscript/offset.eps"), mtime=0))
    ok_image("postscript/offset.eps.gz", "eps", 1024, 683, "offset.eps gzip-compressed")
    bomb = b"%!PS-Adobe-3.0\n%%BoundingBox: 0 0 100 100\n" + b" " * (300 << 20) + b"showpage\n"
    write("postscript/bomb.ps.gz", gzip.compress(bomb, compresslevel=9, mtime=0))
    record("postscript/bomb.ps.gz", "ps", "error:needs more than 256 mb", None,
           "300 MB of a PostScript program (spaces) gzip-compressed to 300 kB: refused, never handed to Ghostscript")


# ---------------------------------------------------------------- DjVu

def make_djvu():
    """DjVu documents made by DjVuLibre's tools: a photo page (c44, IW44), a bitonal page (cjb2,
    JB2), the two bundled (djvm), the photo turned by its orientation flag (djvused), an
    indirect document's index (djvmcvt: its pages are files beside it, refused), one cut short."""
    ppm = os.path.join(TMP, "photo.ppm")
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), ppm)
    run("c44", "-dpi", "100", ppm, out("djvu/photo.djvu"))
    ok_image("djvu/photo.djvu", "djvu", 200, 150, "png/rgb8.png by c44 (IW44 wavelets), 100 dpi")
    pbm = os.path.join(TMP, "bits.pbm")
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), "-monochrome", pbm)
    run("cjb2", "-dpi", "300", pbm, out("djvu/bitonal.djvu"))
    ok_image("djvu/bitonal.djvu", "djvu", 200, 150, "png/rgb8.png in black and white by cjb2 (JB2), 300 dpi")
    # djvm names each page by the name it is given: relative names, in the scratch folder.
    for name in ("photo.djvu", "bitonal.djvu"):
        shutil.copy(out("djvu/" + name), os.path.join(TMP, name))
    run("djvm", "-c", "book.djvu", "photo.djvu", "bitonal.djvu", cwd=TMP)
    shutil.copy(os.path.join(TMP, "book.djvu"), out("djvu/book.djvu"))
    ok_image("djvu/book.djvu", "djvu", 200, 150, "photo.djvu then bitonal.djvu, bundled by djvm")
    shutil.copy(out("djvu/photo.djvu"), out("djvu/turned.djvu"))
    run("djvused", "-e", "select 1; set-rotation 1", "-s", out("djvu/turned.djvu"))
    ok_image("djvu/turned.djvu", "djvu", 150, 200, "photo.djvu with its orientation flag: turned a quarter left")
    indirect = os.path.join(TMP, "indirect")
    os.makedirs(indirect)
    run("djvmcvt", "-i", "book.djvu", indirect, "index.djvu", cwd=TMP)
    shutil.copy(os.path.join(indirect, "index.djvu"), out("djvu/indirect.djvu"))
    record("djvu/indirect.djvu", "djvu", "error:indirect djvu document", None,
           "book.djvu's index as an indirect document (djvmcvt -i): its pages are other files, refused")
    whole = read("djvu/photo.djvu")
    write("djvu/cut.djvu", whole[:len(whole) // 4])
    record("djvu/cut.djvu", "djvu", "error:truncated", None, "photo.djvu cut at a quarter")


# ---------------------------------------------------------------- XPS

def make_xps():
    """XPS prints made by Ghostscript's xpswrite from postscript/halves.ps on 300x200 pages (the
    same bytes as OpenXPS by name), one whose page asks for an image outside the package (by an
    absolute file URI), and one cut short."""
    run("gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=xpswrite", "-dDEVICEWIDTHPOINTS=300",
        "-dDEVICEHEIGHTPOINTS=200", "-dFIXEDMEDIA", "-sOutputFile=" + out("xps/halves.xps"),
        os.path.join(ROOT, "postscript", "halves.ps"), stdout=subprocess.DEVNULL)
    # xpswrite writes the page as 400x266 (1/96 inch): 1024x681.
    ok_image("xps/halves.xps", "xps", 1024, 681, "halves.ps by xpswrite: red above blue, then a green page")
    shutil.copy(out("xps/halves.xps"), out("xps/halves.oxps"))
    ok_image("xps/halves.oxps", "oxps", 1024, 681, "halves.xps named as OpenXPS")
    outside = ('<Path Data="M 0,0 H 100 V 100 H 0 Z"><Path.Fill><ImageBrush ImageSource="file:///etc/hostname" '
               'Viewbox="0,0,10,10" ViewboxUnits="Absolute" Viewport="0,0,100,100" ViewportUnits="Absolute"/>'
               '</Path.Fill></Path></Canvas>')

    def with_first_page_ending(rel, ending):
        """halves.xps with its first page's closing `</Canvas>` replaced by `ending`, as `rel`."""
        with zipfile.ZipFile(out("xps/halves.xps")) as source, \
                zipfile.ZipFile(out(rel), "w", zipfile.ZIP_DEFLATED) as target:
            for info in source.infolist():
                data = source.read(info.filename)
                if info.filename == "Documents/1/Pages/1.fpage":
                    data = data.replace(b"</Canvas>", ending.encode(), 1)
                target.writestr(zipfile.ZipInfo(info.filename, date_time=(2026, 1, 1, 0, 0, 0)), data)

    with_first_page_ending("xps/outside-image.xps", outside)
    record("xps/outside-image.xps", "xps", "either", None,
           "halves.xps whose first page fills a square with an image at file:///etc/hostname: never read")
    linked = outside.replace("file:///etc/hostname", "file://%s/outside.png" % OUTSIDE_FOLDER)
    with_first_page_ending("xps/linked-image.xps", linked)
    record("xps/linked-image.xps", "xps", "either", None,
           "halves.xps whose first page fills a square with OUTSIDE_FOLDER's outside.png: never read")
    whole = read("xps/halves.xps")
    write("xps/cut.xps", whole[:len(whole) // 2])
    record("xps/cut.xps", "none", "error:corrupt xps data", None,
           "halves.xps cut in half: no ZIP directory, so its bytes say nothing; an XPS by its name, refused by libgxps")


# ---------------------------------------------------------------- fonts

# The fonts' creation and modification date: 2026-12-04, seconds since 1904 (the head table's).
FONT_DATE = 3879407801
FONT_LATIN = "Aa The quick brown fox jumps over the lazy dog 0123456789 Glance Test Sans Regular TFCJKW"
FONT_CJK = "\u6c38\u5b57\u6c38\u548c\u4e5d\u5e74\u5c81\u5728\u7678\u4e11"


def glyph_name(character):
    """A glyph's name as fonts name it: the letter or digit itself, else uniXXXX."""
    return character if character.isascii() and character.isalnum() else "uni%04X" % ord(character)


def glyph_width(code):
    """The advance of the glyph of code point `code` in the fonts made here."""
    return 500 + code % 7 * 40


def glyph_boxes(code):
    """The glyph of code point `code` in the fonts made here: a box of its own width and height
    with a bar across it placed by the code point, as rectangles (x0, y0, x1, y1)."""
    width, top, bar = glyph_width(code), 500 + code % 5 * 60, 150 + code % 11 * 30
    return [(60, 0, width - 60, 60), (60, 0, 120, top), (width - 120, 0, width - 60, top),
            (60, top - 60, width - 60, top), (60, bar, width - 60, bar + 50)]


def build_type1(characters, family):
    """A PostScript Type 1 font made here with fontTools' t1Lib, of build_font's glyphs (named
    by the letter, else uniXXXX, which FreeType maps to Unicode): its bytes as PFB and as PFA."""
    from fontTools import t1Lib
    from fontTools.misc.psCharStrings import T1CharString
    characters = sorted(set(characters) - {" "})
    def name_of(c):
        return c if c.isascii() and c.isalpha() else "uni%04X" % ord(c)
    strings = {}
    for name, code in [(".notdef", 0), ("space", 32)] + [(name_of(c), ord(c)) for c in characters]:
        program, at = [0, glyph_width(code), "hsbw"], (0, 0)
        for (x0, y0, x1, y1) in (glyph_boxes(code) if code > 32 else []):
            program += [x0 - at[0], y0 - at[1], "rmoveto", 0, y1 - y0, "rlineto", x1 - x0, 0, "rlineto",
                        0, y0 - y1, "rlineto", "closepath"]
            at = (x0, y0)
        strings[name] = T1CharString(program=program + ["endchar"])
        strings[name].compile()
    encoding = [".notdef"] * 256
    encoding[32] = "space"
    for c in characters:
        if ord(c) < 256:
            encoding[ord(c)] = name_of(c)
    font = object.__new__(t1Lib.T1Font)  # made, not read: no file to start from
    font.encoding = "ascii"
    font.font = {
        "FontInfo": {"version": "1.0", "FullName": family, "FamilyName": family, "Weight": "Regular",
                     "ItalicAngle": 0, "isFixedPitch": False, "UnderlinePosition": -100, "UnderlineThickness": 50},
        "FontName": family.replace(" ", ""), "Encoding": encoding, "PaintType": 0, "FontType": 1,
        "FontMatrix": [0.001, 0, 0, 0.001, 0, 0], "FontBBox": [0, 0, 1000, 1000],
        "Private": {"BlueValues": [], "lenIV": 4, "password": 5839, "MinFeature": [16, 16], "RD": t1Lib.RD_value,
                    "ND": t1Lib.ND_values[0], "NP": t1Lib.PD_values[0], "OtherSubrs": t1Lib.hintothers,
                    "Subrs": [T1CharString(bytecode=b) for b in t1Lib.std_subrs]},
        "CharStrings": strings,
    }
    return font


def build_font(path, characters, family, cff=False):
    """A font made here with fontTools' FontBuilder: a glyph per character, each a box of its own
    width and height with a bar across it placed by its code point (so that different
    characters draw differently), a name table naming `family`; TrueType outlines, or CFF."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.t2CharStringPen import T2CharStringPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    characters = sorted(set(characters) - {" "})
    names = [".notdef", "space"] + [glyph_name(c) for c in characters]
    builder = FontBuilder(1000, isTTF=not cff)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({32: "space", **{ord(c): glyph_name(c) for c in characters}})
    outlines, metrics = {}, {}
    for name, code in [(".notdef", 0), ("space", 32)] + [(glyph_name(c), ord(c)) for c in characters]:
        width = glyph_width(code)
        pen = T2CharStringPen(width, None) if cff else TTGlyphPen(None)
        if name != "space":
            for (x0, y0, x1, y1) in glyph_boxes(code):
                pen.moveTo((x0, y0))
                pen.lineTo((x0, y1))
                pen.lineTo((x1, y1))
                pen.lineTo((x1, y0))
                pen.closePath()
        outlines[name] = pen.getCharString() if cff else pen.glyph()
        metrics[name] = (width, 60)
    if cff:
        builder.setupCFF(family.replace(" ", ""), {"FullName": family}, outlines, {})
    else:
        builder.setupGlyf(outlines)
    builder.setupHorizontalMetrics(metrics)
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": family, "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=800, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    # A fixed date (FontBuilder's default is now), so that the same fontTools makes the same bytes.
    builder.font["head"].created = builder.font["head"].modified = FONT_DATE
    builder.save(path)


def bdf_font(family):
    """A BDF font of the printable ASCII characters, each a 6x10 cell whose rows draw its code's
    bits (a frame, then the code's six low bits as a bar each), so every glyph differs."""
    lines = ["STARTFONT 2.1", "FONT -glance-%s-medium-r-normal--10-100-75-75-c-60-iso10646-1" % family.replace(" ", ""),
             "SIZE 10 75 75", "FONTBOUNDINGBOX 6 10 0 -2", "STARTPROPERTIES 6",
             'FAMILY_NAME "%s"' % family, 'WEIGHT_NAME "Medium"', "FONT_ASCENT 8", "FONT_DESCENT 2",
             'CHARSET_REGISTRY "ISO10646"', 'CHARSET_ENCODING "1"', "ENDPROPERTIES", "CHARS 95"]
    for code in range(32, 127):
        rows = [0x00] if code == 32 else [0xFC]
        if code != 32:
            rows += [0x84 | (0x78 if code >> bit & 1 else 0) for bit in range(6)] + [0xFC]
        rows += [0x00] * (10 - len(rows))
        lines += ["STARTCHAR U+%04X" % code, "ENCODING %d" % code, "SWIDTH 600 0", "DWIDTH 6 0",
                  "BBX 6 10 0 -2", "BITMAP"] + ["%02X" % row for row in rows] + ["ENDCHAR"]
    return ("\n".join(lines + ["ENDFONT"]) + "\n").encode()


def make_fonts():
    """Fonts made here (build_font, build_type1): Latin in TrueType, CFF, WOFF, WOFF2 and Type 1
    (PFB, PFA); a CJK font (which
    also covers Latin); a symbol font without letters; X11 bitmap fonts (BDF, PCF, PCF by gzip);
    a collection of two; one cut short and one whose glyph data is scrambled."""
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.ttCollection import TTCollection
    build_font(out("fonts/latin.ttf"), FONT_LATIN, "Glance Test Sans")
    ok_image("fonts/latin.ttf", "ttf", 1024, 1024, "a TrueType font made here covering a Latin sample and its name")
    build_font(out("fonts/latin-cff.otf"), FONT_LATIN, "Glance Test Sans", cff=True)
    ok_image("fonts/latin-cff.otf", "otf", 1024, 1024, "latin.ttf's glyphs as CFF outlines (OpenType, OTTO)")
    for flavor in ("woff", "woff2"):
        # recalcTimestamp off: saving would stamp the head table with the time again.
        font = TTFont(out("fonts/latin.ttf"), recalcTimestamp=False)
        font.flavor = flavor
        font.save(out("fonts/latin." + flavor))
        ok_image("fonts/latin." + flavor, flavor, 1024, 1024, "latin.ttf as %s" % flavor.upper())
    type1 = build_type1(FONT_LATIN, "Glance Test Sans")
    type1.saveAs(out("fonts/latin.pfb"), "PFB")
    ok_image("fonts/latin.pfb", "type1", 1024, 1024, "latin.ttf's glyphs as a PostScript Type 1 font, binary (PFB)")
    type1.saveAs(out("fonts/latin.pfa"), "OTHER")
    ok_image("fonts/latin.pfa", "type1", 1024, 1024, "latin.pfb as ASCII (PFA)")
    build_font(out("fonts/cjk.ttf"), FONT_LATIN + FONT_CJK, "Glance Test Hei")
    ok_image("fonts/cjk.ttf", "ttf", 1024, 1024, "a font covering Latin and a kanji sample: the kanji are drawn")
    long_name = "Glance Test Sans With A Name Too Long For The Sheet"
    build_font(out("fonts/long-name.ttf"), FONT_LATIN + long_name, long_name)
    ok_image("fonts/long-name.ttf", "ttf", 1024, 1024, "a family name wider than the sheet at its size: drawn smaller")
    build_font(out("fonts/symbols.ttf"), "".join(chr(c) for c in range(0x2600, 0x2618)), "Glance Test Symbols")
    ok_image("fonts/symbols.ttf", "ttf", 1024, 1024, "24 symbols (U+2600...) and no letters: its own characters drawn")
    build_font(out("fonts/symbols-ascii.ttf"), "!#%&()+,./0123456789" + "".join(chr(c) for c in range(0x2600, 0x2618)),
               "Glance Test Signs")
    ok_image("fonts/symbols-ascii.ttf", "ttf", 1024, 1024,
             "ASCII punctuation and digits, and 24 symbols (U+2600...): the symbols drawn, not the punctuation")
    # X11's bitmap fonts: a BDF written here (each printable ASCII character a 6x10 cell with its
    # code's bits as rows, so that every glyph differs), the same by bdftopcf as PCF, and that
    # gzip-compressed as X ships its fonts.
    write("fonts/bitmap.bdf", bdf_font("Glance Test Bitmap"))
    ok_image("fonts/bitmap.bdf", "bdf", 1024, 1024, "a BDF bitmap font of the printable ASCII characters, 6x10")
    run("bdftopcf", "-o", out("fonts/bitmap.pcf"), out("fonts/bitmap.bdf"))
    ok_image("fonts/bitmap.pcf", "pcf", 1024, 1024, "bitmap.bdf by bdftopcf: the same sheet")
    write("fonts/bitmap.pcf.gz", gzip.compress(read("fonts/bitmap.pcf"), mtime=0))
    ok_image("fonts/bitmap.pcf.gz", "pcf", 1024, 1024, "bitmap.pcf gzip-compressed, as X's fonts are kept")
    collection = TTCollection()
    collection.fonts = [TTFont(out("fonts/latin.ttf"), recalcTimestamp=False),
                        TTFont(out("fonts/cjk.ttf"), recalcTimestamp=False)]
    collection.save(out("fonts/pair.ttc"))
    ok_image("fonts/pair.ttc", "ttc", 1024, 1024, "latin.ttf and cjk.ttf in one collection: the first drawn")
    whole = read("fonts/latin.ttf")
    write("fonts/cut.ttf", whole[:200])
    record("fonts/cut.ttf", "ttf", "error:corrupt font data", None, "latin.ttf cut at 200 bytes: its tables are missing")
    # The glyph table, by the font's table directory: every seventh byte changed.
    raw = bytearray(whole)
    for i in range(struct.unpack(">H", whole[4:6])[0]):
        tag, _, offset, length = struct.unpack(">4sIII", whole[12 + 16 * i:28 + 16 * i])
        if tag == b"glyf":
            for at in range(offset, offset + length, 7):
                raw[at] = (raw[at] * 31 + 17) % 256
    write("fonts/scrambled.ttf", bytes(raw))
    record("fonts/scrambled.ttf", "ttf", "either", None, "latin.ttf with every seventh byte of its glyph data changed")


# ---------------------------------------------------------------- metafiles

def make_metafiles():
    """EMF and WMF drawings exported by LibreOffice from an SVG written here (red above blue,
    300x200), drawn back by LibreOffice in the office renderers; one cut short. Their size is
    LibreOffice's (the drawing's bounds, found by painting), so the manifest does not fix it."""
    work = os.path.join(TMP, "metafiles")
    os.makedirs(work)
    svg = os.path.join(work, "halves.svg")
    with open(svg, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="0 0 300 200">'
                '<rect width="300" height="100" fill="#ff0000"/><rect y="100" width="300" height="100" '
                'fill="#0000ff"/></svg>')
    for kind in ("emf", "wmf"):
        made = soffice_convert(svg, kind, work)
        shutil.copy(made, out("metafiles/halves." + kind))
        record("metafiles/halves." + kind, kind, "ok", None, "an SVG of red above blue exported by LibreOffice")
    whole = read("metafiles/halves.emf")
    write("metafiles/cut.emf", whole[:100])
    record("metafiles/cut.emf", "emf", "error:drew nothing", None,
           "halves.emf cut after its header: LibreOffice draws nothing of it, said in one line")


# ---------------------------------------------------------------- visio

VISIO_MAIN = "http://schemas.microsoft.com/office/visio/2012/main"
VISIO_RELATIONSHIPS = "http://schemas.microsoft.com/visio/2010/relationships/"
PACKAGE_RELATIONSHIPS = "http://schemas.openxmlformats.org/package/2006/relationships"


def visio_box(shape_id, x, y, w, h, fill, text):
    """A Visio shape: a filled rectangle w x h inches centred at (x, y) (from the page's bottom
    left), with its text."""
    cells = "".join('<Cell N="%s" V="%s"/>' % (n, v) for n, v in (
        ("PinX", x), ("PinY", y), ("Width", w), ("Height", h), ("LocPinX", w / 2), ("LocPinY", h / 2),
        ("LineWeight", 0.03), ("FillPattern", 1), ("FillForegnd", fill)))
    corners = [(0, 0), (w, 0), (w, h), (0, h), (0, 0)]
    rows = "".join('<Row T="%s" IX="%d"><Cell N="X" V="%s"/><Cell N="Y" V="%s"/></Row>'
                   % ("MoveTo" if i == 0 else "LineTo", i + 1, cx, cy) for i, (cx, cy) in enumerate(corners))
    return ('<Shape ID="%d" Type="Shape">%s<Section N="Geometry" IX="0">%s</Section><Text>%s</Text></Shape>'
            % (shape_id, cells, rows, text))


def visio_package(pages):
    """A Visio drawing (.vsdx) written from the format's published part layout: `pages` is a list
    of (width, height in inches, shapes' XML)."""
    def relationships(items):
        return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="%s">%s'
                '</Relationships>' % (PACKAGE_RELATIONSHIPS, "".join(
                    '<Relationship Id="rId%d" Type="%s%s" Target="%s"/>' % (i + 1, VISIO_RELATIONSHIPS, kind, target)
                    for i, (kind, target) in enumerate(items))))
    overrides = ['<Override PartName="/visio/document.xml" ContentType="application/vnd.ms-visio.drawing.main+xml"/>',
                 '<Override PartName="/visio/pages/pages.xml" ContentType="application/vnd.ms-visio.pages+xml"/>']
    overrides += ['<Override PartName="/visio/pages/page%d.xml" ContentType="application/vnd.ms-visio.page+xml"/>'
                  % (i + 1) for i in range(len(pages))]
    types = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/'
             'package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-'
             'package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>%s</Types>'
             % "".join(overrides))
    listing = "".join(
        '<Page ID="%d" NameU="Page-%d" Name="Page-%d"><PageSheet><Cell N="PageWidth" V="%s"/>'
        '<Cell N="PageHeight" V="%s"/></PageSheet><Rel r:id="rId%d"/></Page>' % (i, i + 1, i + 1, w, h, i + 1)
        for i, (w, h, _) in enumerate(pages))
    namespaces = 'xmlns="%s" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"' % VISIO_MAIN
    entries = [
        ("[Content_Types].xml", types.encode()),
        ("_rels/.rels", relationships([("document", "visio/document.xml")]).encode()),
        ("visio/document.xml", ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><VisioDocument %s/>'
                                % namespaces).encode()),
        ("visio/_rels/document.xml.rels", relationships([("pages", "pages/pages.xml")]).encode()),
        ("visio/pages/pages.xml", ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Pages %s>%s</Pages>'
                                   % (namespaces, listing)).encode()),
        ("visio/pages/_rels/pages.xml.rels",
         relationships([("page", "page%d.xml" % (i + 1)) for i in range(len(pages))]).encode()),
    ]
    for i, (_, _, shapes) in enumerate(pages):
        entries.append(("visio/pages/page%d.xml" % (i + 1), (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><PageContents %s><Shapes>%s</Shapes>'
            '</PageContents>' % (namespaces, shapes)).encode()))
    return entries


def compound_file(streams):
    """A minimal OLE2 compound file (version 3, 512-byte sectors) holding `streams` [(name,
    data)], each at least 4096 bytes (in ordinary sectors, not the mini stream): sector 0 the FAT,
    sector 1 the directory (at most three streams), then the streams' sectors."""
    end, free, fat_sector = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD
    assert 1 <= len(streams) <= 3
    fat, body, placed = [fat_sector, end], b"", []
    for name, data in streams:
        assert len(data) >= 4096
        data += bytes(-len(data) % 512)
        first, count = len(fat), len(data) // 512
        fat += [first + i + 1 for i in range(count - 1)] + [end]
        placed.append((name, first, len(data)))
        body += data
    assert len(fat) <= 128, "one FAT sector"
    fat += [free] * (128 - len(fat))

    def entry(name, kind, right, child, start, size):
        encoded = (name + "\0").encode("utf-16-le")
        return (encoded.ljust(64, b"\0") + struct.pack("<HBB", len(encoded), kind, 1)
                + struct.pack("<III", free, right, child) + bytes(16 + 4 + 16)
                + struct.pack("<IQ", start, size))

    # The root's child is the first stream; each stream's right sibling the next.
    directory = entry("Root Entry", 5, free, 1, end, 0) + b"".join(
        entry(name, 2, index + 2 if index + 1 < len(placed) else free, free, first, size)
        for index, (name, first, size) in enumerate(placed))
    directory = directory.ljust(512, b"\0")
    header = (bytes.fromhex("D0CF11E0A1B11AE1") + bytes(16) + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
              + bytes(6) + struct.pack("<IIIIIIIII", 0, 1, 1, 0, 4096, end, 0, end, 0)
              + struct.pack("<I", 0) + struct.pack("<I", free) * 108)
    assert len(header) == 512
    return header + struct.pack("<128I", *fat) + directory + body


def make_visio():
    """Visio drawings (.vsdx), written here from the format's part layout (no Visio runs here),
    drawn by LibreOffice's Draw (its libvisio import) in the office renderers: a landscape Letter
    page of two filled boxes, and a second, portrait page of one."""
    first = visio_box(1, 3, 5, 4, 2, "#CC2222", "Start") + visio_box(2, 8, 3, 3, 3, "#2244CC", "End")
    second = visio_box(1, 4.25, 5.5, 5, 5, "#22AA44", "Only")
    write_zip("visio/flow.vsdx", visio_package([(11, 8.5, first), (8.5, 11, second)]))
    # LibreOfficeKit's import gives each page the larger side of the largest page, square (its
    # --convert-to keeps the page's own), so the manifest does not fix the size.
    record("visio/flow.vsdx", "vsdx", "ok", None, "two pages: Letter landscape with a red and a blue box, then "
           "Letter portrait with a green one; written here from the VSDX part layout")
    # A Visio 2003-2010 file's container with an empty drawing in its VisioDocument stream (no
    # tool here writes the binary format): told from other compound files and drawn by
    # LibreOffice's libvisio import as a blank Letter page.
    header = b"Visio (TM) Drawing\r\n".ljust(0x1A, b"\0") + bytes([11])
    write("visio/empty-drawing.vsd", compound_file([("VisioDocument", header.ljust(4096, b"\0"))]))
    # A Publisher 98 to 2010 file's container (no tool here writes the format): its Contents and
    # EscherStm streams tell it from other compound files; there is nothing in them to draw.
    write("visio/no-pages.pub", compound_file([("Contents", bytes(4096)), ("EscherStm", bytes(4096))]))
    record("visio/no-pages.pub", "pub", "error:corrupt publisher document", None,
           "hand-written compound file: Contents and EscherStm streams of zeros; LibreOffice opens nothing")
    record("visio/empty-drawing.vsd", "vsd", "ok", None,
           "hand-written compound file: a VisioDocument stream of a Visio 11 header and zeros (a blank page)")


# ---------------------------------------------------------------- carried previews

def make_carried():
    """Files that carry their own preview, written here after the layouts the formats are known
    by (no SketchUp or InDesign runs here): a SketchUp model (its UTF-16 header, then a PNG
    preview among other bytes), an InDesign document (its GUID, then an XMP packet whose
    xmpGImg:image is a JPEG in base64 with &#xA; line breaks), a Sketch document (a ZIP whose first
    picture is not its preview); each also without its preview."""
    header = b"\xff\xfe\xff\x0e" + "SketchUp Model".encode("utf-16-le")
    version = b"\xff\xfe\xff\x0a" + "{21.0.339}".encode("utf-16-le")
    filler = bytes((i * 53 + 7) % 251 for i in range(3000))
    png = read("png/rgb8.png")
    write("carried/model.skp", header + version + filler + png + filler)
    ok_image("carried/model.skp", "skp", 200, 150, "a SketchUp header, then png/rgb8.png as its preview")
    write("carried/no-preview.skp", header + version + filler)
    record("carried/no-preview.skp", "skp", "error:carries no preview picture", None, "a SketchUp header and no PNG")
    guid = bytes([0x06, 0x06, 0xED, 0xF5, 0xD8, 0x1D, 0x46, 0xE5, 0xBD, 0x31, 0xEF, 0xE7, 0xFE, 0x74, 0xB7, 0x1D])
    jpeg = subprocess.run([CONVERT, os.path.join(ROOT, "png", "rgb8.png"), "-quality", "90", "jpg:-"], check=True,
                          capture_output=True).stdout
    encoded = base64.b64encode(jpeg).decode()
    lines = "&#xA;".join(encoded[i:i + 76] for i in range(0, len(encoded), 76))
    xmp = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description><xmp:PageInfo><rdf:Seq><rdf:li>'
           '<xmpGImg:format>JPEG</xmpGImg:format><xmpGImg:image>' + lines + '</xmpGImg:image></rdf:li></rdf:Seq>'
           '</xmp:PageInfo></rdf:Description></rdf:RDF></x:xmpmeta>').encode()
    write("carried/layout.indd", guid + bytes(4080) + filler + xmp + filler)
    ok_image("carried/layout.indd", "indd", 200, 150, "an InDesign GUID, then an XMP page thumbnail of png/rgb8.png")
    write("carried/no-thumbnail.indd", guid + bytes(4080) + filler)
    record("carried/no-thumbnail.indd", "indd", "error:carries no page thumbnail", None, "an InDesign GUID, no XMP")
    # A Sketch document: a ZIP of JSON, its bitmaps, and the preview Sketch writes with each save.
    texture = subprocess.run([CONVERT, "-size", "64x64", "xc:#00a000", "-strip", "-define", "png:exclude-chunk=all", "png:-"], check=True,
                             capture_output=True).stdout

    def sketch(entries):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as package:
            for name, data in entries:
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                package.writestr(info, data)
        return buffer.getvalue()
    body = [("images/texture.png", texture), ("document.json", b'{"_class":"document","pages":[]}'),
            ("meta.json", b'{"app":"com.bohemiancoding.sketch3","appVersion":"99"}'), ("user.json", b"{}"),
            ("pages/0A1B2C3D.json", b'{"_class":"page","name":"Page 1"}')]
    write("carried/design.sketch", sketch(body + [("previews/preview.png", png)]))
    ok_image("carried/design.sketch", "sketch", 200, 150,
             "a Sketch document (a green bitmap listed first) with png/rgb8.png as previews/preview.png")
    write("carried/no-preview.sketch", sketch(body))
    record("carried/no-preview.sketch", "sketch", "error:carries no preview picture", None,
           "design.sketch without its preview: not drawn as its bitmap")
    # An Affinity document: its signature and sections (zeros here), its preview stored as a PNG
    # among them, then the compressed document (random bytes here); and one without the preview.
    sections = b"\x00\xffKA" + struct.pack("<I", 10) + b"nsrP#Inf" + bytes(48)
    noise = random.Random(3).randbytes(4096)
    write("carried/poster.afdesign", sections + b"Thmb" + png + noise)
    ok_image("carried/poster.afdesign", "affinity", 200, 150,
             "Affinity's signature and sections, png/rgb8.png stored as its preview, then 4 KiB of other bytes")
    write("carried/no-preview.afphoto", sections + noise)
    record("carried/no-preview.afphoto", "affinity", "error:carries no preview picture", None,
           "poster.afdesign without its preview")
    # A Procreate artwork: a layer's tile and the time-lapse listed first, Document.archive (a
    # binary property list's start here) and the canvas's picture in QuickLook/.
    artwork = [("0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0/0~0.chunk", bytes(256)),
               ("video/segments/segment-1.mp4", read("media/one-frame.mp4")),
               ("Document.archive", b"bplist00" + bytes(32))]
    write("carried/artwork.procreate", sketch(artwork + [("QuickLook/Thumbnail.png", png)]))
    ok_image("carried/artwork.procreate", "procreate", 200, 150,
             "a Procreate artwork (a tile and a time-lapse listed first) with png/rgb8.png as QuickLook/Thumbnail.png")
    write("carried/no-thumbnail.procreate", sketch(artwork))
    record("carried/no-thumbnail.procreate", "procreate", "error:carries no preview picture", None,
           "artwork.procreate without its thumbnail")
    # A Figma local copy: the binary canvas, an image of the design listed first, its thumbnail.
    figma = [("images/5f3a9c0e1d2b", texture), ("canvas.fig", b"fig-kiwi" + struct.pack("<I", 15) + bytes(64)),
             ("meta.json", b'{"client_meta":{},"file_name":"Design"}')]
    write("carried/design.fig", sketch(figma + [("thumbnail.png", png)]))
    ok_image("carried/design.fig", "fig", 200, 150,
             "a Figma local copy (an image of the design listed first) with png/rgb8.png as thumbnail.png")


# ---------------------------------------------------------------- JPEG 2000

def jp2_with_profile(data, profile):
    """A JP2 file whose header box's colr box is replaced by one carrying the ICC `profile`."""
    def boxes(blob):
        at = 0
        while at + 8 <= len(blob):
            size, kind = struct.unpack(">I4s", blob[at:at + 8])
            yield kind, blob[at:at + size]
            at += size
    rebuilt = b""
    for kind, box in boxes(data):
        if kind == b"jp2h":
            inner = b"".join(part if name != b"colr" else
                             struct.pack(">I4sBBB", 11 + len(profile), b"colr", 2, 0, 0) + profile
                             for name, part in boxes(box[8:]))
            box = struct.pack(">I4s", 8 + len(inner), b"jp2h") + inner
        rebuilt += box
    return rebuilt


def make_jpeg2000():
    """JPEG 2000 pictures written by ImageMagick (OpenJPEG): a JP2 of png/rgba8.png with alpha, a
    bare codestream of png/rgb8.png in gray, a large JP2 (its finer levels skipped for a
    thumbnail), a Display P3 one with its profile, and one cut short."""
    run(CONVERT, os.path.join(ROOT, "png", "rgba8.png"), "-define", "jp2:quality=0", out("jpeg2000/rgba.jp2"))
    ok_image("jpeg2000/rgba.jp2", "jp2", 200, 150, "png/rgba8.png as a lossless JP2, with alpha")
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), "-colorspace", "gray", "J2K:" + out("jpeg2000/gray.j2k"))
    ok_image("jpeg2000/gray.j2k", "j2k", 200, 150, "png/rgb8.png in gray as a bare codestream")
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), "-resize", "3200x2400!", out("jpeg2000/large.jp2"))
    ok_image("jpeg2000/large.jp2", "jp2", 3200, 2400, "png/rgb8.png stretched to 3200x2400: decoded halved once")
    # ImageMagick tags its JP2 as sRGB (an enumerated colr box): the Display P3 profile goes in a
    # colr box of method 2 (restricted ICC) instead, in the header box.
    run(CONVERT, os.path.join(ROOT, "colour", "display-p3.png"), "-strip", out("jpeg2000/display-p3.jp2"))
    profile = icc_rgb_profile("Display P3 (Glance test)", [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)],
                              (0.3127, 0.3290))
    write("jpeg2000/display-p3.jp2", jp2_with_profile(read("jpeg2000/display-p3.jp2"), profile))
    ok_image("jpeg2000/display-p3.jp2", "jp2", 1536, 1024,
             "colour/display-p3.png's pixels with its Display P3 profile in a colr box (method 2)")
    whole = read("jpeg2000/large.jp2")
    write("jpeg2000/cut.jp2", whole[:len(whole) // 3])
    record("jpeg2000/cut.jp2", "jp2", "either", None, "large.jp2 cut at a third: drawn from what is there, or refused")


# ---------------------------------------------------------------- qoi

def qoi_encode(w, h, channels, pixels):
    """QOI of `pixels` (rows of RGB or RGBA bytes), encoded as the format's specification
    describes: runs, the index of 64 seen pixels, small differences, the luma difference, and
    whole pixels."""
    out = bytearray(b"qoif" + struct.pack(">IIBB", w, h, channels, 0))
    index = [(0, 0, 0, 0)] * 64
    previous, run, count = (0, 0, 0, 255), 0, w * h

    def signed(value):
        return (value + 128) % 256 - 128

    for i in range(count):
        px = tuple(pixels[i * channels:(i + 1) * channels]) + ((255,) if channels == 3 else ())
        if px == previous:
            run += 1
            if run == 62 or i == count - 1:
                out.append(0xC0 | (run - 1))
                run = 0
            continue
        if run:
            out.append(0xC0 | (run - 1))
            run = 0
        slot = (px[0] * 3 + px[1] * 5 + px[2] * 7 + px[3] * 11) % 64
        if index[slot] == px:
            out.append(slot)
        else:
            index[slot] = px
            if px[3] == previous[3]:
                dr, dg, db = (signed(px[c] - previous[c]) for c in range(3))
                if -3 < dr < 2 and -3 < dg < 2 and -3 < db < 2:
                    out.append(0x40 | (dr + 2) << 4 | (dg + 2) << 2 | (db + 2))
                elif -33 < dg < 32 and -9 < dr - dg < 8 and -9 < db - dg < 8:
                    out += bytes([0x80 | (dg + 32), (dr - dg + 8) << 4 | (db - dg + 8)])
                else:
                    out += bytes([0xFE, px[0], px[1], px[2]])
            else:
                out += bytes([0xFF, *px])
        previous = px
    return bytes(out) + bytes(7) + b"\x01"


def make_qoi():
    """QOI pictures encoded here (qoi_encode) from the pixels ImageMagick reads out of
    png/rgba8.png and png/rgb8.png, and one cut short."""
    for name, source, channels, kind in [("rgba.qoi", "rgba8.png", 4, "rgba"), ("rgb.qoi", "rgb8.png", 3, "rgb")]:
        pixels = subprocess.run([CONVERT, os.path.join(ROOT, "png", source), "-depth", "8", kind + ":-"],
                                check=True, capture_output=True).stdout
        write("qoi/" + name, qoi_encode(200, 150, channels, pixels))
        ok_image("qoi/" + name, "qoi", 200, 150, "png/%s's pixels as QOI (%d channels)" % (source, channels))
    whole = read("qoi/rgba.qoi")
    write("qoi/cut.qoi", whole[:len(whole) // 2])
    record("qoi/cut.qoi", "qoi", "error:truncated", None, "rgba.qoi cut in half")


# ---------------------------------------------------------------- rasters: PCX, SGI, Sun raster

def magick_pixels(source, kind, *args):
    """The pixels ImageMagick reads out of TestAssets' `source`, as `kind` (rgb, rgba, gray)."""
    return subprocess.run([CONVERT, os.path.join(ROOT, source), *args, "-depth", "8", kind + ":-"],
                          check=True, capture_output=True).stdout


def pcx_runs(line):
    """A PCX row's bytes run-length encoded: runs of up to 63, and a lone byte of 11xxxxxx as a run of 1."""
    out = bytearray()
    index = 0
    while index < len(line):
        run = 1
        while index + run < len(line) and run < 63 and line[index + run] == line[index]:
            run += 1
        if run > 1 or line[index] >= 0xC0:
            out += bytes([0xC0 | run, line[index]])
        else:
            out.append(line[index])
        index += run
    return bytes(out)


def pcx(w, h, bits, planes, lines, palette16=b""):
    """A PCX of `lines` (each row's planes, already packed), run-length encoded, version 5."""
    line = (w * bits + 7) // 8
    line += line % 2
    head = struct.pack("<BBBBHHHHHH", 0x0A, 5, 1, bits, 0, 0, w - 1, h - 1, 72, 72)
    head += palette16.ljust(48, b"\0") + b"\0" + bytes([planes]) + struct.pack("<HH", line, 1)
    head = head.ljust(128, b"\0")
    body = b"".join(pcx_runs(b"".join(plane.ljust(line, b"\0") for plane in row)) for row in lines)
    return head + body


def pack_bits(bits):
    """Bits (0 or 1), most significant first, as bytes."""
    return bytes(sum(bit << (7 - i) for i, bit in enumerate(bits[j:j + 8])) for j in range(0, len(bits), 8))


def sun_runs(data):
    """Sun raster run-length encoding: 80 n v for n + 1 copies of v (n < 256), 80 00 for a lone 80."""
    out = bytearray()
    index = 0
    while index < len(data):
        run = 1
        while index + run < len(data) and run < 256 and data[index + run] == data[index]:
            run += 1
        if run > 2 or data[index] == 0x80:
            out += bytes([0x80, run - 1, data[index]]) if run > 1 or data[index] != 0x80 else b"\x80\x00"
        else:
            out += bytes([data[index]]) * run
        index += run
    return bytes(out)


def sun(w, h, depth, kind, rows, colour_map=b""):
    """A Sun raster of `rows` (each already packed and padded to 16 bits); kind 2 run-length encodes."""
    body = b"".join(rows)
    if kind == 2:
        body = sun_runs(body)
    return struct.pack(">8I", 0x59A66A95, w, h, depth, len(body), kind, 1 if colour_map else 0,
                       len(colour_map)) + colour_map + body


def fits_file(cards, samples):
    """A FITS file: `cards` ((keyword, value) in order; END added), padded to 2880-byte blocks,
    then `samples` (bytes, big-endian as FITS has them) padded the same way."""
    text = "".join(("%-8s= %20s" % (key, value)).ljust(80) for key, value in cards) + "END".ljust(80)
    head = text.encode("ascii")
    head += b" " * (-len(head) % 2880)
    return head + samples + bytes(-len(samples) % 2880)


def make_fits_pictures():
    """FITS pictures a telescope and an astrophotography camera write: a 16-bit star field (dark
    background, unsigned through BZERO, rows from the bottom, a bright bar in the first stored
    rows), a 32-bit float gradient stored top-down with DATAMIN and DATAMAX, an 8-bit RGGB mosaic
    (red on the left, blue on the right), a cut one, a table with no image and a huge header."""
    rng = random.Random(7)
    w, h = 160, 120
    field = [1200 + rng.randint(-30, 30) for _ in range(w * h)]
    for sx, sy in ((20, 30), (80, 60), (130, 90), (50, 100), (140, 20)):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                field[(sy + dy) * w + sx + dx] = 60000
    for y in range(4):  # stored first: the bottom rows on screen
        for x in range(w):
            field[y * w + x] = 50000
    samples = b"".join(struct.pack(">h", v - 32768) for v in field)
    write("rasters/stars.fits", fits_file([("SIMPLE", "T"), ("BITPIX", 16), ("NAXIS", 2), ("NAXIS1", w),
                                           ("NAXIS2", h), ("BZERO", 32768), ("BSCALE", 1)], samples))
    ok_image("rasters/stars.fits", "fits", w, h,
             "a 16-bit star field: background 1200 +-30, five stars of 60000, rows 0-3 (the bottom) 50000")
    gradient = b"".join(struct.pack(">f", x / (w - 1) * 10 - 15) for y in range(h) for x in range(w))
    for y in range(4):  # the first stored rows, on top here: bright
        gradient = gradient[:y * w * 4] + struct.pack(">f", -5.0) * w + gradient[(y + 1) * w * 4:]
    write("rasters/gradient.fits", fits_file([("SIMPLE", "T"), ("BITPIX", -32), ("NAXIS", 2), ("NAXIS1", w),
                                              ("NAXIS2", h), ("BZERO", "1.0D1"), ("DATAMIN", -5.0),
                                              ("DATAMAX", 5.0), ("ROWORDER", "'TOP-DOWN'")], gradient))
    ok_image("rasters/gradient.fits", "fits", w, h,
             "32-bit floats from -15 on the left to -5 on the right plus a BZERO of 10 (written 1.0D1, as FORTRAN "
             "does), top-down, rows 0-3 at 5")
    cell = {"R": (200, 0), "G": (0, 0), "B": (0, 200)}  # (on the left, on the right)
    mosaic = bytearray()
    for y in range(h):
        for x in range(w):
            colour = "RGGB"[(y % 2) * 2 + x % 2]
            mosaic.append(cell[colour][0 if x < w // 2 else 1])
    write("rasters/mosaic.fits", fits_file([("SIMPLE", "T"), ("BITPIX", 8), ("NAXIS", 2), ("NAXIS1", w),
                                            ("NAXIS2", h), ("BAYERPAT", "'RGGB'"), ("ROWORDER", "'TOP-DOWN'")],
                                           bytes(mosaic)))
    ok_image("rasters/mosaic.fits", "fits", w // 2, h // 2, "an 8-bit RGGB mosaic, red on the left and blue on the right")
    whole = read("rasters/stars.fits")
    write("rasters/cut.fits", whole[:len(whole) // 2])
    record("rasters/cut.fits", "fits", "error:truncated", None, "stars.fits cut in half")
    write("rasters/table.fits", fits_file([("SIMPLE", "T"), ("BITPIX", 8), ("NAXIS", 0), ("EXTEND", "T")], b""))
    record("rasters/table.fits", "fits", "error:unsupported", None, "a primary header of no image (its tables would follow)")
    write("rasters/huge.fits", fits_file([("SIMPLE", "T"), ("BITPIX", 16), ("NAXIS", 2), ("NAXIS1", 65535),
                                          ("NAXIS2", 65535)], bytes(4096)))
    record("rasters/huge.fits", "fits", "error:exceeds the 100-megapixel limit", None,
           "a header declaring 65535x65535 pixels, 4 KiB of data")


def dds_header(w, h, four_cc, dxgi=None):
    """A DDS header of one w x h block-compressed picture named by `four_cc` (and, for `DX10`, its
    DXGI format's header after it)."""
    head = b"DDS " + struct.pack("<7I", 124, 0x1 | 0x2 | 0x4 | 0x1000, h, w, 0, 0, 0) + bytes(44)
    head += struct.pack("<2I", 32, 0x4) + four_cc + bytes(20) + struct.pack("<I", 0x1000) + bytes(16)
    return head + (struct.pack("<5I", dxgi, 3, 0, 1, 0) if dxgi is not None else b"")


def bc_channel_blocks(w, h, channels):
    """Each channel of `channels` (w*h values, rows top first) as 8-byte blocks of one interpolated
    channel, a block's channels one after another (BC4: one, BC5: red then green): its largest and
    smallest value the ends, eight levels, each pixel the nearest (edges repeat the last pixel)."""
    out = bytearray()
    for by in range(0, h, 4):
        for bx in range(0, w, 4):
            for values in channels:
                block = [values[min(by + p // 4, h - 1) * w + min(bx + p % 4, w - 1)] for p in range(16)]
                a0, a1 = max(block), min(block)
                levels = [a0, a1] + ([((7 - i) * a0 + i * a1) // 7 for i in range(1, 7)] if a0 > a1 else [a0] * 6)
                bits = 0
                for p, v in enumerate(block):
                    bits |= min(range(8), key=lambda i: abs(levels[i] - v)) << (3 * p)
                out += bytes([a0, a1]) + bits.to_bytes(6, "little")
    return bytes(out)


def pillow_pixels(rel, mode="RGB"):
    """The pixels (`mode`: RGB or RGBA) Pillow reads out of TestAssets' `rel` (Debian's
    python3-pil; the interpreter that has it)."""
    code = ("import sys; from PIL import Image; "
            "sys.stdout.buffer.write(Image.open(sys.argv[1]).convert(sys.argv[2]).tobytes())")
    for python in (sys.executable, "/usr/bin/python3"):
        done = subprocess.run([python, "-c", code, os.path.join(ROOT, rel), mode], capture_output=True)
        if done.returncode == 0:
            return done.stdout
    raise RuntimeError("Pillow (python3-pil) is needed to read " + rel)


def bc7_mode6_blocks(w, h, rgba):
    """`rgba` (w*h*4 bytes, rows top first) as BC7 blocks of mode 6 (one subset, endpoints of 7 bits
    and a P-bit a channel, 4-bit indices): each block's smallest and largest value of each channel
    as its endpoints (even, P-bits 0), each pixel's index its projection on the line between them;
    edges repeat the last pixel."""
    out = bytearray()
    for by in range(0, h, 4):
        for bx in range(0, w, 4):
            block = [rgba[4 * (min(by + p // 4, h - 1) * w + min(bx + p % 4, w - 1)):][:4] for p in range(16)]
            ends = [[min(px[c] for px in block) & 0xFE for c in range(4)],
                    [max(px[c] for px in block) & 0xFE for c in range(4)]]
            span = [ends[1][c] - ends[0][c] for c in range(4)]
            length = sum(d * d for d in span)
            indices = [0 if length == 0 else max(0, min(15, round(15 * sum((px[c] - ends[0][c]) * span[c]
                                                                             for c in range(4)) / length)))
                       for px in block]
            if indices[0] >= 8:  # the anchor's top bit is implied 0: the other way round
                ends.reverse()
                indices = [15 - i for i in indices]
            bits, at = 1 << 6, 7
            for c in range(4):
                for end in ends:
                    bits |= (end[c] >> 1) << at
                    at += 7
            at += 2  # P-bits 0
            for p, index in enumerate(indices):
                bits |= index << at
                at += 3 if p == 0 else 4
            out += bits.to_bytes(16, "little")
    return bytes(out)


def bc7_random_blocks(count, seed):
    """`count` BC7 blocks of random bits, block i of mode i % 8."""
    rng = random.Random(seed)
    out = bytearray()
    for i in range(count):
        mode = i % 8
        bits = ((rng.getrandbits(128) << (mode + 1)) | 1 << mode) & ((1 << 128) - 1)
        out += bits.to_bytes(16, "little")
    return bytes(out)


def make_compressed():
    """Documents kept compressed whole: text/latin-utf8.txt's words by gzip, xz, Zstandard and
    bzip2 (named, and not), as rotated logs and packages' changelogs are, one cut short, a long
    log; a PDF by gzip and by bzip2, an SVG by xz; a PNG by gzip (not drawn)."""
    source = read("text/latin-utf8.txt")
    for name, tool in [("changelog.gz", ["gzip", "-n", "-9"]), ("notes.txt.xz", ["xz", "-9"]),
                       ("notes.txt.zst", ["zstd", "-q", "-19"]), ("notes.txt.bz2", ["bzip2", "-9"]),
                       ("notes.bz2", ["bzip2", "-9"])]:
        write("compressed/" + name, subprocess.run(tool + ["-c"], input=source, check=True,
                                                   capture_output=True).stdout)
    for name, how in [("changelog.gz", "gzip, told by what it decompresses to"),
                      ("notes.txt.xz", "xz"), ("notes.txt.zst", "Zstandard"),
                      ("notes.txt.bz2", "bzip2, named text under its .bz2")]:
        record("compressed/" + name, "text", "ok", (724, 1024), "text/latin-utf8.txt by " + how)
    record("compressed/notes.bz2", "none", "error:not a supported document type", None,
           "text/latin-utf8.txt by bzip2, not named text: a .bz2 is not decompressed to sniff it")
    whole = read("compressed/changelog.gz")
    write("compressed/cut.log.gz", whole[:len(whole) * 2 // 3])
    record("compressed/cut.log.gz", "text", "ok", (724, 1024), "changelog.gz cut at two thirds: what it holds is drawn")
    lines = b"".join(b"2026-12-07 10:%02d:%02d host glance[42]: drew document %06d in 12 ms\n" % (i // 60 % 60, i % 60, i)
                     for i in range(40000))
    write("compressed/long.log.zst", subprocess.run(["zstd", "-q", "-19", "-c"], input=lines, check=True,
                                                    capture_output=True).stdout)
    record("compressed/long.log.zst", "text", "ok", (724, 1024),
           "a log of 40,000 lines (2.7 MB) by Zstandard: only its first megabyte and a byte are decompressed")
    write("compressed/report.pdf.gz", subprocess.run(["gzip", "-n", "-c"], input=read("pdf/letter.pdf"), check=True,
                                                     capture_output=True).stdout)
    record("compressed/report.pdf.gz", "pdf", "ok", (791, 1024),
           "pdf/letter.pdf by gzip: drawn from a decompressed copy, as the PDF")
    write("compressed/report.pdf.bz2", subprocess.run(["bzip2", "-c"], input=read("pdf/letter.pdf"), check=True,
                                                      capture_output=True).stdout)
    record("compressed/report.pdf.bz2", "pdf", "ok", (791, 1024),
           "pdf/letter.pdf by bzip2, named a PDF under its .bz2")
    write("compressed/drawing.svg.xz", lzma.compress(read("svg/shapes.svg")))
    record("compressed/drawing.svg.xz", "svg", "ok", (1024, 768),
           "svg/shapes.svg by xz: drawn from a decompressed copy, as the SVG")
    bomb = bz2.BZ2Compressor()
    chunks = [bomb.compress(b"%PDF-1.4\n")] + [bomb.compress(bytes(1 << 20)) for _ in range(600)]
    write("compressed/bomb.pdf.bz2", b"".join(chunks) + bomb.flush())
    record("compressed/bomb.pdf.bz2", "none", "error:memory", None,
           "a PDF header and 600 MB of zeros, bzip2: refused past the 512 MB a compressed document may take")
    write("compressed/picture.png.gz", subprocess.run(["gzip", "-n", "-c"], input=read("png/rgb8.png"), check=True,
                                                      capture_output=True).stdout)
    record("compressed/picture.png.gz", "none", "error:a compressed png", None,
           "png/rgb8.png by gzip: not drawn (no picture format is kept so), and says what it is")


def make_rasters():
    """PCX, SGI, Sun raster, X window dump, DDS, FITS and WBMP pictures of png/rgb8.png and png/rgba8.png (200x150): as ImageMagick
    writes them (24-bit, 32-bit, a 256-colour map; SGI run-length encoded), and the layouts it does
    not write, encoded here from the pixels it reads (1-bit and four-plane EGA PCX, a 16-bit stored
    SGI, 1-bit and run-length encoded Sun rasters), each with a PNG of the pixels it must come out
    as; a cut file of each and a header claiming 65535x65535 pixels."""
    w, h = 200, 150
    for ext, kind, name in (("pcx", "pcx", "PCX"), ("sgi", "sgi", "SGI"), ("ras", "ras", "Sun raster")):
        magick(os.path.join(ROOT, "png", "rgb8.png"), out("rasters/rgb." + ext))
        ok_image("rasters/rgb." + ext, kind, w, h, "png/rgb8.png as ImageMagick writes a 24-bit " + name)
        magick(os.path.join(ROOT, "png", "rgba8.png"), out("rasters/rgba." + ext))
        ok_image("rasters/rgba." + ext, kind, w, h, "png/rgba8.png as ImageMagick writes a " + name + " with alpha")
        whole = read("rasters/rgb." + ext)
        write("rasters/cut." + ext, whole[:len(whole) // 2])
        record("rasters/cut." + ext, kind, "error:truncated", None, "rgb." + ext + " cut in half")
    # Colour maps: 16 colours in a 256-entry map (PCX), a map of three planes (Sun).
    magick(os.path.join(ROOT, "png", "rgb8.png"), "-colors", "16", "-type", "palette", out("rasters/palette.pcx"))
    ok_image("rasters/palette.pcx", "pcx", w, h, "png/rgb8.png in 16 colours, 8 bits and the 256-colour map at the end")
    magick(os.path.join(ROOT, "png", "rgb8.png"), "-colors", "16", "-type", "palette", out("rasters/palette.ras"))
    ok_image("rasters/palette.ras", "ras", w, h, "png/rgb8.png in 16 colours, 8 bits and a colour map")
    magick(os.path.join(ROOT, "png", "rgb8.png"), "-colorspace", "gray", out("rasters/gray.sgi"))
    ok_image("rasters/gray.sgi", "sgi", w, h, "png/rgb8.png in gray, one channel")
    # Black and white: ImageMagick's threshold of rgb8.png, then packed here.
    magick(os.path.join(ROOT, "png", "rgb8.png"), "-colorspace", "gray", "-threshold", "50%", "-type", "bilevel",
           out("rasters/mono.png"))
    record("rasters/mono.png", "png", "ok", fit_image(w, h), "the reference of mono.pcx and mono.ras")
    mono = [1 if v > 127 else 0 for v in magick_pixels("rasters/mono.png", "gray")]
    rows = [mono[y * w:(y + 1) * w] for y in range(h)]
    write("rasters/mono.pcx", pcx(w, h, 1, 1, [[pack_bits(row)] for row in rows]))
    ok_image("rasters/mono.pcx", "pcx", w, h, "mono.png as a 1-bit PCX (set bits white)")
    sun_rows = [pack_bits([1 - bit for bit in row]).ljust((w + 15) // 16 * 2, b"\0") for row in rows]
    write("rasters/mono.ras", sun(w, h, 1, 1, sun_rows))
    ok_image("rasters/mono.ras", "ras", w, h, "mono.png as a 1-bit Sun raster (set bits black)")
    # EGA: 16 colours, each a bit in four planes, the colours in the header.
    magick(os.path.join(ROOT, "png", "rgb8.png"), "-colors", "16", "+dither", out("rasters/sixteen.png"))
    record("rasters/sixteen.png", "png", "ok", fit_image(w, h), "the reference of ega.pcx")
    pixels = magick_pixels("rasters/sixteen.png", "rgb")
    colours = sorted({pixels[i:i + 3] for i in range(0, len(pixels), 3)})
    assert len(colours) <= 16
    index = {c: i for i, c in enumerate(colours)}
    lines = []
    for y in range(h):
        row = [index[pixels[(y * w + x) * 3:(y * w + x) * 3 + 3]] for x in range(w)]
        lines.append([pack_bits([(i >> plane) & 1 for i in row]) for plane in range(4)])
    write("rasters/ega.pcx", pcx(w, h, 1, 4, lines, b"".join(colours)))
    ok_image("rasters/ega.pcx", "pcx", w, h, "sixteen.png as four planes of 1 bit, the colours in the header (EGA)")
    # DCX, multi-page PCX: palette.pcx (its colour map at its page's end) then mono.pcx; one whose
    # table is empty, one whose page lies past its end.
    pages = [read("rasters/palette.pcx"), read("rasters/mono.pcx")]
    table = 4 + 4 * (len(pages) + 1)
    write("rasters/pages.dcx", struct.pack("<III", 987654321, table, table + len(pages[0])) + struct.pack("<I", 0)
          + b"".join(pages))
    ok_image("rasters/pages.dcx", "dcx", w, h, "palette.pcx and mono.pcx as the two pages of a DCX: the first drawn")
    write("rasters/no-pages.dcx", struct.pack("<II", 987654321, 0))
    record("rasters/no-pages.dcx", "dcx", "error:holds no page", None, "a DCX whose page table is empty")
    write("rasters/page-past-end.dcx", struct.pack("<III", 987654321, 1 << 20, 0) + pages[1])
    record("rasters/page-past-end.dcx", "dcx", "error:outside the file", None, "a DCX whose first page lies past its end")
    # Sun raster, run-length encoded 24-bit (blue first).
    rgb = magick_pixels("png/rgb8.png", "rgb")
    bgr_rows = [b"".join(rgb[i:i + 3][::-1] for i in range(y * w * 3, (y + 1) * w * 3, 3)) for y in range(h)]
    write("rasters/rle.ras", sun(w, h, 24, 2, bgr_rows))
    ok_image("rasters/rle.ras", "ras", w, h, "png/rgb8.png as a run-length encoded 24-bit Sun raster, blue first")
    # SGI, 16 bits a sample, stored (not run-length encoded), channel planes bottom row first.
    deep = subprocess.run([CONVERT, os.path.join(ROOT, "png", "rgb16.png"), "-depth", "16", "-endian", "MSB", "rgb:-"],
                          check=True, capture_output=True).stdout
    w16, h16 = 200, 150
    planes = b""
    for channel in range(3):
        for y in reversed(range(h16)):
            planes += b"".join(deep[(y * w16 + x) * 6 + channel * 2:(y * w16 + x) * 6 + channel * 2 + 2]
                               for x in range(w16))
    head = struct.pack(">HBBHHHHII", 474, 0, 2, 3, w16, h16, 3, 0, 65535).ljust(512, b"\0")
    write("rasters/deep.sgi", head + planes)
    ok_image("rasters/deep.sgi", "sgi", w16, h16, "png/rgb16.png's samples as a stored 16-bit SGI")
    rounded = bytes(((deep[i] << 8 | deep[i + 1]) + 128) // 257 for i in range(0, len(deep), 2))
    subprocess.run([CONVERT, "-size", "%dx%d" % (w16, h16), "-depth", "8", "rgb:-", "-strip",
                    "-define", "png:exclude-chunk=all", out("rasters/deep.png")], input=rounded, check=True)
    record("rasters/deep.png", "png", "ok", fit_image(w16, h16),
           "the reference of deep.sgi: its samples rounded to 8 bits ((v + 128) / 257)")
    # X window dumps as ImageMagick writes them: 24-bit direct colour, and a colour map of 16-bit
    # components (which ImageMagick reads truncated to 8 bits, Glance and netpbm rounded).
    magick(os.path.join(ROOT, "png", "rgb8.png"), out("rasters/rgb.xwd"))
    ok_image("rasters/rgb.xwd", "xwd", w, h, "png/rgb8.png as ImageMagick writes an X window dump (24-bit)")
    magick(os.path.join(ROOT, "png", "rgb8.png"), "-colors", "84", "-type", "palette", out("rasters/palette.xwd"))
    ok_image("rasters/palette.xwd", "xwd", w, h, "png/rgb8.png in 84 colours, 8 bits and a colour map")
    magick(out("rasters/palette.xwd"), out("rasters/palette-xwd.png"))
    record("rasters/palette-xwd.png", "png", "ok", fit_image(w, h),
           "ImageMagick's reading of palette.xwd (its map's components truncated to 8 bits)")
    whole = read("rasters/rgb.xwd")
    write("rasters/cut.xwd", whole[:len(whole) // 2])
    record("rasters/cut.xwd", "xwd", "error:truncated", None, "rgb.xwd cut in half")
    write("rasters/huge.xwd", whole[:16] + struct.pack(">II", 65535, 65535) + whole[24:48]
          + struct.pack(">I", 65535 * 3) + whole[52:101] + bytes(4096))
    record("rasters/huge.xwd", "xwd", "error:exceeds the 100-megapixel limit", None,
           "rgb.xwd's header declaring 65535x65535 pixels, 4 KiB of data")
    # DirectDraw surfaces as ImageMagick writes them (block-compressed BC1, BC2 and BC3, and
    # uncompressed), each with ImageMagick's reading of it; BC3 again behind a DX10 header.
    for name, source, compression in (("bc1", "rgb8.png", "dxt1"), ("bc2", "rgba8.png", "dxt3"),
                                      ("bc3", "rgba8.png", "dxt5"), ("plain", "rgba8.png", "none")):
        magick(os.path.join(ROOT, "png", source), "-define", "dds:compression=" + compression,
               "-define", "dds:mipmaps=0", out("rasters/%s.dds" % name))
        ok_image("rasters/%s.dds" % name, "dds", w, h, "png/%s as ImageMagick writes a DDS (%s)" % (source, compression))
        magick(out("rasters/%s.dds" % name), out("rasters/%s-dds.png" % name))
        record("rasters/%s-dds.png" % name, "png", "ok", fit_image(w, h), "ImageMagick's reading of %s.dds" % name)
    # A 4x4 BC1 block of black and white ends (c0 <= c1: three colours and transparent), the
    # header saying it has alpha: black, white, their middle, transparent, then white.
    head = bytearray(read("rasters/bc1.dds")[:128])
    head[12:20] = struct.pack("<II", 4, 4)
    head[80:84] = struct.pack("<I", 0x4 | 0x1)
    indices = 0 | 1 << 2 | 2 << 4 | 3 << 6 | sum(1 << (2 * p) for p in range(4, 16))
    write("rasters/bc1-alpha.dds", bytes(head) + struct.pack("<HHI", 0x0000, 0xFFFF, indices))
    ok_image("rasters/bc1-alpha.dds", "dds", 4, 4, "one BC1 block in its three-colour mode with alpha: black, white, gray, clear")
    # Uncompressed 24-bit rows padded to 4 bytes, the header's pitch saying so: 3x2 pixels.
    head = bytearray(read("rasters/plain.dds")[:128])
    head[8:24] = struct.pack("<IIII", 0x1 | 0x2 | 0x4 | 0x8 | 0x1000, 2, 3, 12)
    head[80:108] = struct.pack("<7I", 0x40, 0, 24, 0xFF0000, 0xFF00, 0xFF, 0)
    rows = bytes([0, 0, 255, 0, 255, 0, 255, 0, 0, 9, 9, 9]) + bytes([255, 255, 255, 0, 0, 0, 128, 128, 128, 9, 9, 9])
    write("rasters/padded.dds", bytes(head) + rows)
    ok_image("rasters/padded.dds", "dds", 3, 2, "3x2 24-bit pixels (red, green, blue; white, black, gray), rows padded to 12 bytes")
    bc3 = read("rasters/bc3.dds")
    dx10 = bc3[:84] + b"DX10" + bc3[88:128] + struct.pack("<5I", 77, 3, 0, 1, 0) + bc3[128:]
    write("rasters/dx10.dds", dx10)
    ok_image("rasters/dx10.dds", "dds", w, h, "bc3.dds behind a DX10 header (DXGI format 77, BC3)")
    # BC4 and BC5, which ImageMagick neither writes nor reads: png/rgb8.png's red (BC4) and red
    # and green (BC5) encoded here (each block's largest and smallest value as its ends, each
    # pixel the nearest of the eight levels between), with Pillow's reading of each.
    red_green = magick_pixels("png/rgb8.png", "rgb")
    channels = [[red_green[3 * i + c] for i in range(w * h)] for c in (0, 1)]
    write("rasters/bc4.dds", dds_header(w, h, b"ATI1") + bc_channel_blocks(w, h, channels[:1]))
    ok_image("rasters/bc4.dds", "dds", w, h, "png/rgb8.png's red as BC4 (ATI1), within a level of it")
    write("rasters/bc5.dds", dds_header(w, h, b"DX10", dxgi=83) + bc_channel_blocks(w, h, channels))
    ok_image("rasters/bc5.dds", "dds", w, h, "png/rgb8.png's red and green as BC5 behind a DX10 header (DXGI 83)")
    for name in ("bc4", "bc5"):
        pixels = pillow_pixels("rasters/%s.dds" % name)
        write("rasters/%s-dds.png" % name, encode_png(w, h, 2, 8, [pixels[y * w * 3:(y + 1) * w * 3] for y in range(h)]))
        record("rasters/%s-dds.png" % name, "png", "ok", fit_image(w, h), "Pillow's reading of %s.dds (RGB)" % name)
    write("rasters/bc5-signed.dds", dds_header(4, 4, b"DX10", dxgi=84) + bytes(16))
    record("rasters/bc5-signed.dds", "dds", "error:unsupported", None, "a signed BC5 block (DXGI 84): refused")
    # BC7: png/rgba8.png in mode 6 (encoded here), and blocks of random bits in every mode (and
    # none), each with Pillow's reading (RGBA).
    rgba = magick_pixels("png/rgba8.png", "rgba")
    write("rasters/bc7.dds", dds_header(w, h, b"DX10", dxgi=98) + bc7_mode6_blocks(w, h, rgba))
    ok_image("rasters/bc7.dds", "dds", w, h, "png/rgba8.png as BC7 mode 6 behind a DX10 header (DXGI 98)")
    write("rasters/bc7-modes.dds", dds_header(w, h, b"DX10", dxgi=99) + bc7_random_blocks(50 * 38, 7))
    ok_image("rasters/bc7-modes.dds", "dds", w, h, "BC7 blocks of random bits in each of the eight modes (DXGI 99)")
    # A block of no mode (its first byte 0): transparent black, as Direct3D's specification has it
    # (Pillow reads it opaque).
    write("rasters/bc7-reserved.dds", dds_header(4, 4, b"DX10", dxgi=98) + bytes([0]) + bytes(range(1, 16)))
    ok_image("rasters/bc7-reserved.dds", "dds", 4, 4, "one BC7 block of no mode: transparent black")
    for name in ("bc7", "bc7-modes"):
        pixels = pillow_pixels("rasters/%s.dds" % name, "RGBA")
        write("rasters/%s-dds.png" % name, encode_png(w, h, 6, 8, [pixels[y * w * 4:(y + 1) * w * 4] for y in range(h)]))
        record("rasters/%s-dds.png" % name, "png", "ok", fit_image(w, h), "Pillow's reading of %s.dds (RGBA)" % name)
    write("rasters/bc6h.dds", dds_header(4, 4, b"DX10", dxgi=95) + bytes(16))
    record("rasters/bc6h.dds", "dds", "error:unsupported", None, "a BC6H block (DXGI 95): refused")
    write("rasters/cut.dds", bc3[:len(bc3) // 2])
    record("rasters/cut.dds", "dds", "error:truncated", None, "bc3.dds cut in half")
    write("rasters/huge.dds", bc3[:12] + struct.pack("<II", 65535, 65535) + bc3[20:128] + bytes(4096))
    record("rasters/huge.dds", "dds", "error:exceeds the 100-megapixel limit", None,
           "bc3.dds's header declaring 65535x65535 pixels, 4 KiB of data")
    # A wireless bitmap of mono.png as ImageMagick writes it (set bits white), and cut short.
    magick(out("rasters/mono.png"), out("rasters/mono.wbmp"))
    ok_image("rasters/mono.wbmp", "wbmp", w, h, "mono.png as ImageMagick writes a WBMP")
    whole = read("rasters/mono.wbmp")
    write("rasters/cut.wbmp", whole[:len(whole) // 2])
    record("rasters/cut.wbmp", "wbmp", "error:truncated", None, "mono.wbmp cut in half")
    # FITS: ImageMagick's 8-bit RGB, and the rest written here (fits_file).
    magick(os.path.join(ROOT, "png", "rgb8.png"), out("rasters/rgb.fits"))
    ok_image("rasters/rgb.fits", "fits", w, h, "png/rgb8.png as ImageMagick writes a FITS (8 bits, three planes)")
    make_fits_pictures()
    # Headers that claim 65535x65535 pixels, with a little data.
    huge = struct.pack("<BBBBHHHHHH", 0x0A, 5, 1, 8, 0, 0, 65534, 65534, 72, 72) + bytes(49) + bytes([3])
    write("rasters/huge.pcx", (huge + struct.pack("<HH", 65535, 1)).ljust(128, b"\0") + bytes(4096))
    record("rasters/huge.pcx", "pcx", "error:exceeds the 100-megapixel limit", None,
           "a header declaring 65535x65535 pixels, 4 KiB of data")
    write("rasters/huge.sgi", struct.pack(">HBBHHHH", 474, 1, 1, 3, 65535, 65535, 3).ljust(512, b"\0") + bytes(4096))
    record("rasters/huge.sgi", "sgi", "error:exceeds the 100-megapixel limit", None,
           "a header declaring 65535x65535 pixels, 4 KiB of data")
    write("rasters/huge.ras", struct.pack(">8I", 0x59A66A95, 65535, 65535, 24, 0, 1, 0, 0) + bytes(4096))
    record("rasters/huge.ras", "ras", "error:exceeds the 100-megapixel limit", None,
           "a header declaring 65535x65535 pixels, 4 KiB of data")


# ---------------------------------------------------------------- xpm

XPM_CHARACTERS = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in '"\\')


def xpm_encode(name, w, h, pixels, comment=""):
    """An XPM 3 file of `pixels` (RGB bytes, row by row): a #RRGGBB colour table, as few
    characters a pixel as its colours allow."""
    colours = sorted({pixels[i:i + 3] for i in range(0, len(pixels), 3)})
    cpp = 1
    while len(XPM_CHARACTERS) ** cpp < len(colours):
        cpp += 1

    def code(index):
        out = ""
        for _ in range(cpp):
            out = XPM_CHARACTERS[index % len(XPM_CHARACTERS)] + out
            index //= len(XPM_CHARACTERS)
        return out
    codes = {colour: code(i) for i, colour in enumerate(colours)}
    lines = ['"%d %d %d %d",' % (w, h, len(colours), cpp)]
    lines += ['"%s c #%02X%02X%02X",' % (codes[c], c[0], c[1], c[2]) for c in colours]
    for y in range(h):
        row = pixels[y * w * 3:(y + 1) * w * 3]
        lines.append('"' + "".join(codes[row[x * 3:x * 3 + 3]] for x in range(w)) + '"' + ("," if y < h - 1 else ""))
    return ("/* XPM */\n%sstatic char *%s[] = {\n/* width height colours characters */\n" % (comment, name)
            + "\n".join(lines) + "\n};\n").encode()


def xbm_encode(name, w, h, bits, shorts=False):
    """An X bitmap of `bits` (rows of 0/1, 1 black): X11's chars, or X10's shorts."""
    per = 16 if shorts else 8
    numbers = []
    for row in bits:
        for start in range(0, w, per):
            value = 0
            for bit, on in enumerate(row[start:start + per]):
                value |= on << bit
            numbers.append(value)
    text = "#define %s_width %d\n#define %s_height %d\n#define %s_x_hot 1\n#define %s_y_hot 1\n" % (
        name, w, name, h, name, name)
    text += "static %s %s_bits[] = {\n" % ("short" if shorts else "unsigned char", name)
    form = "0x%04x" if shorts else "0x%02x"
    for i in range(0, len(numbers), 12):
        text += "   " + ", ".join(form % n for n in numbers[i:i + 12]) + ("," if i + 12 < len(numbers) else "") + "\n"
    return (text + "};\n").encode()


XPM_ICON = b"""/* XPM */
/* a 4x3 icon: each colour a way XPM names one */
static char * icon_xpm[] = {
"4 3 6 2",
/* colours */
"  c None",
".. c light grey m white",
"rx c #f00",
"o+ g4 black c #00000000FFFF",
"#. s background c gray50",
"aa m black",
/* pixels */
"  ..rxo+",
"#.aa  ..",
"o+o+rx#."};
"""


def make_xpm():
    """X11 pixmaps and bitmaps, written here: png/rgb8.png's pixels as an XPM (its #RRGGBB table),
    a small icon of named colours and a transparent corner, one cut short; a 37x21 bitmap of
    stripes as X11's chars and X10's shorts, with ImageMagick's reading of it as a PNG, and one
    cut short."""
    pixels = subprocess.run([CONVERT, os.path.join(ROOT, "png", "rgb8.png"), "-depth", "8", "rgb:-"],
                            check=True, capture_output=True).stdout
    write("xpm/rgb8.xpm", xpm_encode("rgb8", 200, 150, pixels, "/* png/rgb8.png's pixels */\n"))
    ok_image("xpm/rgb8.xpm", "xpm", 200, 150, "png/rgb8.png's pixels as an XPM with a #RRGGBB colour table")
    write("xpm/named.xpm", XPM_ICON)
    ok_image("xpm/named.xpm", "xpm", 4, 3, "a 4x3 icon, two characters a pixel: None, light grey, #f00, a 16-bit "
             "blue, gray50, a mono-only black, and comments between the strings")
    whole = read("xpm/rgb8.xpm")
    write("xpm/cut.xpm", whole[:len(whole) // 2])
    record("xpm/cut.xpm", "xpm", "error:truncated", None, "rgb8.xpm cut in half")
    bits = [[1 if (x // 3 + y // 2) % 2 == 0 or x == y else 0 for x in range(37)] for y in range(21)]
    write("xpm/stripes.xbm", xbm_encode("stripes", 37, 21, bits))
    ok_image("xpm/stripes.xbm", "xbm", 37, 21, "37x21 stripes and a diagonal as X11's unsigned chars (rows padded)")
    write("xpm/stripes-x10.xbm", xbm_encode("stripes", 37, 21, bits, shorts=True))
    ok_image("xpm/stripes-x10.xbm", "xbm", 37, 21, "the same bits as X10's shorts")
    subprocess.run([CONVERT, "xbm:" + os.path.join(ROOT, "xpm", "stripes.xbm"), "-type", "Grayscale",
                    os.path.join(ROOT, "xpm", "stripes-imagemagick.png")], check=True)
    ok_image("xpm/stripes-imagemagick.png", "png", 37, 21, "ImageMagick's reading of stripes.xbm")
    whole = read("xpm/stripes.xbm")
    write("xpm/cut.xbm", whole[:len(whole) * 2 // 3])
    record("xpm/cut.xbm", "xbm", "error:truncated", None, "stripes.xbm cut at two thirds")


# ---------------------------------------------------------------- collision

def crc32_of(data):
    return zlib.crc32(data) & 0xFFFFFFFF


def collision_pair():
    """Two texts of one length, with equal CRC-32 and Adler-32, and different bytes.

    Adler-32 sums the bytes (A) and the bytes weighted by their distance from the end (B). A
    "quad" edit, +1 at i, -1 at i+k, -1 at j, +1 at j+k, leaves both sums as they were. CRC-32 is
    linear over GF(2) for a fixed length: each quad changes it by a fixed XOR mask. With more
    quads than the mask has bits, some non-empty subset of them XORs to zero (Gaussian
    elimination finds it); applying that subset changes the text and neither checksum."""
    base = bytearray(b"m" * 4096)  # 'm' can go to 'n' or 'l': all stay printable
    for line in range(63, len(base), 64):
        base[line] = 0x0A
    k = 2
    quads = []
    position = 0
    while len(quads) < 48:
        i, j = position, position + 16
        if all(base[p] == ord("m") for p in (i, i + k, j, j + k)):
            quads.append((i, j))
        position += 80
    zero = crc32_of(bytes(len(base)))
    masks = []
    for i, j in quads:
        edited = bytearray(base)
        edited[i] += 1
        edited[i + k] -= 1
        edited[j] -= 1
        edited[j + k] += 1
        delta = bytes(a ^ b for a, b in zip(base, edited))
        masks.append(crc32_of(delta) ^ zero)
    # Gaussian elimination over GF(2), tracking which quads make up each row.
    rows = [(mask, 1 << index) for index, mask in enumerate(masks)]
    pivots = {}
    subset = None
    for mask, members in rows:
        for bit in reversed(range(32)):
            if not mask >> bit & 1:
                continue
            if bit in pivots:
                mask ^= pivots[bit][0]
                members ^= pivots[bit][1]
            else:
                pivots[bit] = (mask, members)
                break
        if mask == 0:
            subset = members
            break
    assert subset
    second = bytearray(base)
    for index, (i, j) in enumerate(quads):
        if subset >> index & 1:
            second[i] += 1
            second[i + k] -= 1
            second[j] -= 1
            second[j + k] += 1
    first, second = bytes(base), bytes(second)
    assert first != second and len(first) == len(second)
    assert crc32_of(first) == crc32_of(second)
    assert zlib.adler32(first) == zlib.adler32(second)
    return first, second


def make_hostile():
    """Files for the hostile-input tests, outside the manifest (they need a worker's limits)."""
    # A page with one 9000x9000 grey image: poppler draws it through a full-size cairo surface
    # (324 MB), which a worker under --memory-limit 200 cannot allocate; the page must fail, not
    # come out blank. Zlib packs the uniform pixels to a few dozen KB.
    side = 9000
    packer = zlib.compressobj(9)
    row = bytes([0x40]) * side
    data = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (side, side, len(data))
        + data + b"\nendstream",
    ]
    content = b"q 500 0 0 600 56 96 cm /Im1 Do Q"
    objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    pdf = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        pdf += b"%010d 00000 n \n" % offset
    pdf += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    write("hostile/huge-image.pdf", bytes(pdf))
    # Found by `make fuzz` (fuzz-pdf), kept byte for byte: a MediaBox 1e90 points wide, whose
    # size once trapped the renderer converting it to whole points.
    write("hostile/huge-mediabox.pdf", HUGE_MEDIABOX_PDF)
    record("hostile/huge-mediabox.pdf", "pdf", "error:malformed pdf", None,
           "found by fuzz-pdf: MediaBox 1e90 points wide, once a trap in the renderer")


HUGE_MEDIABOX_PDF = (
    b'%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<!/Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [6 0 R] /Coun\n6 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1000333333333333333333333333333333333333333333333333333333333333333333333333333333333333 100] 00 n \ntrailer\n<< /Size 7 /Root 1 0 R /Info 4 0 R >>\nstartxref\n600\n%\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00DFKai-SB\x00\x00\x00\x00\x00%EOF\n'
)


def make_collision():
    first, second = collision_pair()
    write("collision/first.txt", first)
    write("collision/second.txt", second)
    for rel in ("collision/first.txt", "collision/second.txt"):
        record(rel, "text", "ok", (724, 1024), "same size, CRC-32 and Adler-32 as its pair; other bytes")


# ---------------------------------------------------------------- texts

SENTENCES = [
    "The kettle clicked off just as the rain started again.",
    "Most people in the village walk to the bakery before eight.",
    "A good map is worth more than a fast car on these roads.",
    "She kept the receipts in a shoebox under the stairs.",
    "The library opens late on Thursdays, so we usually go then.",
    "Tomatoes ripen faster on the windowsill than in the garden.",
    "He fixed the bicycle chain with a paper clip and some patience.",
    "Our neighbours grow more courgettes than they could ever eat.",
    "The train was ten minutes late, which nobody found surprising.",
    "We painted the fence blue, and then the gate, and then the shed.",
    "Every winter the pond freezes for about a week.",
    "The cat sleeps on the warmest chair in the house, whichever it is.",
    "A list on the fridge says what still needs to be bought.",
    "The market sells cheese, honey, eggs and very strong coffee.",
    "Nobody remembers who planted the apple tree by the post office.",
    "The bus driver waves at every child on the pavement.",
]

PLAIN = """Shopping list for the weekend
Bread, butter and a dozen eggs.
Apples for the school lunches.
Call the plumber about the kitchen tap.
Return the library books before Saturday.
"""

LATIN = """A café on the corner

Every morning the café on the corner opens at seven. The owner, a cheerful
woman from Zürich, writes the day's specials on a chalkboard: crème brûlée,
jalapeño omelette, and a piña colada smoothie that nobody ever orders.

Regulars have their habits. The retired teacher reads Le Monde and drinks a
café au lait; the student from São Paulo orders a double espresso and works
on her résumé. A naïve tourist once asked for "just a normal coffee" and
received a lecture on the façade of the old cathedral instead.

In winter the windows steam up and the smell of cinnamon fills the street.
“It's the best spot in town,” says the postman — and he should know… He
visits every café within two kilometres (about 1¼ miles) each day.

Æsop, Ørsted, Ångström, Dvořák, Łódź, Ñuñoa, Þórshöfn: names on the menu board.
"""

TABS = ("Item\tQuantity\tPrice\tAisle\n"
        "Apples\t6\t2.40\tFruit\n"
        "Bread\t1\t1.95\tBakery\n"
        "Cheddar\t1\t4.10\tDairy\n"
        "Eggs\t12\t3.20\tDairy\n"
        "Rice\t2\t1.80\tDry goods\n"
        "Tea\t1\t2.75\tDrinks\n"
        "\tTotal\t16.20\t\n")

MIXED = """Greetings in several scripts

English: Hello, how are you today?
Deutsch: Grüße aus Köln, schönes Wetter heute.
Русский: Привет, как дела?
Ελληνικά: Γειά σου, τι κάνεις;
日本語: こんにちは、お元気ですか。
中文: 你好，今天天气很好。
한국어: 안녕하세요, 반갑습니다.
עברית: שלום, מה שלומך?
Music outside the BMP: 𝄞 and a smile 😀.
"""

RUSSIAN = """Утро в городе

Каждое утро я встаю в семь часов и завариваю крепкий чай. Пока чайник
закипает, я смотрю в окно на тихую улицу. Зимой за окном ещё темно, а летом
солнце уже светит прямо на кухонный стол.

После завтрака я иду на работу пешком. Дорога занимает двадцать минут и
проходит через небольшой парк. В парке всегда много людей: кто-то гуляет с
собакой, кто-то бегает, а пожилые соседи кормят голубей хлебом.

По субботам мы с семьёй ездим на рынок. Там продают свежие овощи, фрукты,
мёд и домашний сыр. Дети любят выбирать яблоки, а я обычно покупаю картошку
и морковь для супа. Продавцы нас уже знают и всегда откладывают для нас
самые красивые помидоры.

Вечером мы вместе готовим ужин и обсуждаем, как прошёл день. Потом я читаю
книгу или слушаю радио. Такие простые дни кажутся мне самыми счастливыми.
"""

HEBREW = """בוקר רגיל

בכל בוקר אני הולך ברגל לעבודה. הדרך עוברת ליד פארק קטן, שבו אנשים מטיילים
עם הכלבים שלהם. בדרך אני קונה קפה ולחמנייה במאפייה הקטנה בפינת הרחוב.

בסוף השבוע אנחנו נוסעים לשוק. בשוק יש ירקות טריים, פירות, גבינות ולחם חם.
הילדים אוהבים לבחור תפוחים ותותים, ובדרך כלל אנחנו קונים יותר ממה שתכננו.

בערב אנחנו אוכלים ארוחת ערב יחד ומדברים על היום. אחר כך אני קורא ספר לפני
השינה, בערך 20 עמודים בכל לילה.
"""

JAPANESE = """朝の散歩について

毎朝七時ごろ、私は近所の公園まで歩いて行きます。春になると、道の両側に桜の花が咲いて、とてもきれいです。公園には小さな池があり、カモが静かに泳いでいます。ベンチに座って温かいお茶を飲みながら、鳥の声を聞くのが好きです。

散歩の帰りには、駅の前のパン屋に寄ります。焼きたてのパンの香りがして、いつも少し多めに買ってしまいます。店の主人はとても親切な人で、新しいパンができると必ず教えてくれます。

週末には、家族と一緒に市場へ行きます。市場では、新鮮な野菜や果物、魚などが安く売られています。子供たちは果物を選ぶのが大好きで、毎回違う種類のりんごを試しています。昼ご飯は市場の近くの食堂で食べることが多いです。そこの味噌汁と焼き魚は、とてもおいしいです。

雨の日には、家で本を読んだり、音楽を聴いたりして過ごします。最近は料理の本を読んで、新しい料理に挑戦しています。先週は初めてカレーを一から作りました。少し辛すぎましたが、家族はおいしいと言って全部食べてくれました。

日曜日の午後には、近くの図書館で新聞を読んだり、子供たちと一緒に絵本を借りたりします。図書館の窓からは大きな木が見えて、とても静かで落ち着いた場所です。帰り道に八百屋で季節の野菜を買い、夕飯の準備をします。冬になると、温かい鍋料理を食べる日が増えます。白菜やねぎ、豆腐をたくさん入れて、家族みんなで囲むのが楽しみです。

夜は早めに寝るようにしています。よく眠ると、次の日の朝も気持ちよく散歩に出かけることができます。
"""

CHINESE = """周末的早晨

每个星期六的早上，我都会先去附近的菜市场买菜。市场里人很多，大家一边挑选新鲜的蔬菜，一边和摊主聊天。我最喜欢的是一位卖豆腐的老奶奶，她的豆腐又白又嫩，价格也很便宜。

买完菜以后，我常常在路边的小店吃一碗热腾腾的面条。店主是一对年轻的夫妻，他们每天很早就开始准备汤底。面条的味道很好，很多附近的居民都是这里的老顾客。

回到家里，我会把房间打扫干净，然后给阳台上的花浇水。去年春天我种了几盆番茄和辣椒，现在它们长得很好，每个星期都能摘下一些。孩子们觉得自己种的番茄特别甜，总是抢着吃。

下午如果天气好，我们一家人会骑自行车去河边公园。公园里有很多人在散步、放风筝或者打羽毛球。我们通常带一些水果和饼干，坐在草地上休息，看着河水慢慢地流过去。

星期天早上，我喜欢去公园跑步。跑完步以后，我会在湖边的长椅上坐一会儿，看老人们打太极拳，听孩子们的笑声。中午，我们常常去外婆家吃午饭。外婆做的红烧肉和鱼汤都特别好吃，每次我们都吃得饱饱的。饭后，大家一起喝茶、吃水果，外公还会给我们讲他年轻时候的故事。

晚上，我们一起做饭。爸爸负责炒菜，妈妈负责包饺子，孩子们帮忙摆碗筷。吃完饭以后，大家坐在客厅里聊天，说说这一周发生的有趣的事情。这样简单的周末，让我觉得很幸福。
"""

TRADITIONAL = """下雨天的圖書館

每到下雨的日子，我就喜歡到家附近的圖書館去。圖書館是一棟三層樓的老房子，窗戶很大，外面種著幾棵高大的樹。雨滴打在玻璃上的聲音，讓人覺得特別安靜。

一樓是報紙和雜誌區，常常有退休的老先生坐在那裡看新聞。二樓放著小說和歷史書，我最常在這裡找書。三樓是兒童閱讀室，週末的時候，會有志工為小朋友講故事。

我通常會先找一個靠窗的位子，把雨傘放好，再慢慢地挑選想看的書。最近我在讀一本關於海邊小鎮的小說，故事裡的人物都很有趣，每一章都讓我想繼續讀下去。

中午的時候，我會到圖書館對面的小咖啡店吃午餐。店裡的三明治和熱湯都很好吃，老闆也認得我，總是問我今天又借了什麼書。吃完飯以後，我再回到圖書館，一直待到傍晚才回家。

週末的時候，我也會帶弟弟一起去圖書館。他最喜歡看有很多圖片的科學書，常常一坐就是一個下午。有時候我們會參加館裡舉辦的手作活動，學習怎麼做書籤或是摺紙。回家以後，弟弟總是興奮地把今天學到的東西說給爸爸媽媽聽。

回家的路上，雨通常已經停了。街道被洗得很乾淨，空氣裡有泥土和樹葉的味道。圖書館旁邊還有一個小公園，雨停了以後，常常可以看到小朋友在水坑裡跳來跳去，玩得非常開心。我喜歡這樣平靜的一天，雖然沒有做什麼特別的事，卻覺得心裡很滿足。
"""

KOREAN = """주말 아침

주말 아침에는 보통 늦게 일어납니다. 창문을 열고 커피를 한 잔 마시면서 오늘 무엇을
할지 생각합니다. 날씨가 좋으면 가까운 공원에 가서 산책을 합니다. 공원에는 강아지와
함께 걷는 사람들이 많고, 아이들은 자전거를 탑니다.

점심에는 시장에 가서 채소와 과일을 삽니다. 시장 아주머니들은 항상 친절하고, 가끔
귤을 하나씩 더 주십니다. 저녁에는 가족과 함께 된장찌개를 끓여 먹습니다. 따뜻한 밥과
찌개가 있으면 하루가 행복하게 끝납니다.
"""

WESTERN = """Le marché du samedi

Le samedi matin, nous allons au marché du village. Les étals sont pleins de légumes frais, de fromages et de pain encore chaud. La boulangère nous dit toujours : “Bonjour, qu’est-ce que je vous sers aujourd’hui ?” Un kilo de pommes coûte 2,50 €, et les fraises de saison sont délicieuses. Mon frère préfère le café crème du petit bistrot à côté de l’église ; moi, je prends un chocolat chaud avec un croissant. Après les courses, nous rentrons à pied par le chemin qui longe la rivière, où les enfants jouent avec leur chien. « C’est la plus belle matinée de la semaine », dit ma sœur.

Sonntagsfrühstück

Am Sonntag frühstücken wir gemütlich auf dem Balkon. Es gibt Brötchen, Käse, Marmelade und frisch gepressten Orangensaft. Meine Großmutter erzählt gern von früher: „Damals kostete ein Brot nur ein paar Pfennig.“ Heute zahlen wir beim Bäcker um die Ecke 3,20 € für ein großes Bauernbrot. Nach dem Frühstück gehen wir im Park spazieren, füttern die Enten am Teich und treffen oft Nachbarn, die ihre Fahrräder schieben. Am Nachmittag backen wir zusammen einen Apfelkuchen – das Rezept stammt natürlich von Oma.
"""

README = """Glance
======

Glance makes thumbnails of documents: PDF, PNG, JPEG and plain text.

Every thumbnail fits into 1024 x 1024 pixels and keeps the aspect ratio of
the source. Images are never enlarged; PDF pages always get 1024 pixels on
their longest side; text files are drawn on a page of 724 x 1024.

Features
--------

  * PNG: every colour type and bit depth, transparency, interlacing
  * JPEG: baseline, progressive, arithmetic, CMYK, EXIF orientation
  * PDF: first page, honours /Rotate, refuses encrypted files politely
  * Text: UTF-8, UTF-16, UTF-32 and common legacy encodings

Usage
-----

    glance input.pdf output.png
    glance --size 512 photo.jpg thumb.png

Errors name the problem: an empty file, truncated or corrupt data, an
encrypted PDF or an image above the 100-megapixel limit.
"""


# ---------------------------------------------------------------- colour

ICC_DIR = "/usr/share/color/icc"
D50 = (0.9642, 1.0, 0.8249)


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_vec(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def mat_inv(m):
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


def xyz_of(x, y):
    return [x / y, 1.0, (1 - x - y) / y]


def rgb_colorants_d50(primaries, white):
    """The D50-adapted (Bradford) XYZ of an RGB space's primaries, as an ICC profile stores them."""
    m = [xyz_of(*p) for p in primaries]
    m = [[m[j][i] for j in range(3)] for i in range(3)]        # primaries as columns
    w = xyz_of(*white)
    scale = mat_vec(mat_inv(m), w)
    m = [[m[i][j] * scale[j] for j in range(3)] for i in range(3)]
    bradford = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
    source, target = mat_vec(bradford, w), mat_vec(bradford, D50)
    gain = [[target[i] / source[i] if i == j else 0.0 for j in range(3)] for i in range(3)]
    adapt = mat_mul(mat_inv(bradford), mat_mul(gain, bradford))
    m = mat_mul(adapt, m)
    return [[m[i][j] for i in range(3)] for j in range(3)]     # one XYZ per primary


def s15(v):
    return struct.pack(">i", int(round(v * 65536)))


def icc_rgb_profile(description, primaries, white):
    """A minimal ICC v2 display profile: D50-adapted colorants and sRGB's parametric curve."""
    def text_description(text):
        ascii_text = text.encode("ascii") + b"\0"
        return (b"desc\0\0\0\0" + struct.pack(">I", len(ascii_text)) + ascii_text
                + struct.pack(">II", 0, 0) + struct.pack(">HB", 0, 0) + b"\0" * 67)

    def xyz(v):
        return b"XYZ \0\0\0\0" + b"".join(s15(c) for c in v)

    curve = b"para\0\0\0\0" + struct.pack(">HH", 3, 0) + b"".join(
        s15(v) for v in (2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045))
    red, green, blue = rgb_colorants_d50(primaries, white)
    tags = [(b"desc", text_description(description)),
            (b"cprt", b"text\0\0\0\0" + b"No copyright: made by Glance's test generator\0"),
            (b"wtpt", xyz(D50)), (b"rXYZ", xyz(red)), (b"gXYZ", xyz(green)), (b"bXYZ", xyz(blue)),
            (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve)]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for signature, payload in tags:
        payload += b"\0" * (-len(payload) % 4)
        table += signature + struct.pack(">II", offset + len(data), len(payload))
        data += payload
    body = struct.pack(">I", len(tags)) + table + data
    size = 128 + len(body)
    header = (struct.pack(">I", size) + b"lcms" + bytes([2, 0x10, 0, 0]) + b"mntrRGB XYZ "
              + struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + b"acsp" + b"\0" * 24
              + struct.pack(">I", 0) + b"".join(s15(c) for c in D50) + b"\0" * 48)
    assert len(header) == 128
    return header + body


def colour_chart(w, h):
    """Rows of a chart: a 6x3 grid of saturated, pastel and dark patches, and two ramps."""
    patches = [(220, 40, 30), (30, 170, 60), (40, 60, 210), (240, 210, 30), (200, 40, 190), (30, 190, 210),
               (250, 180, 160), (170, 230, 180), (170, 190, 250), (120, 60, 30), (40, 80, 40), (30, 30, 90),
               (199, 60, 38), (128, 128, 128), (240, 240, 240), (20, 20, 20), (250, 120, 0), (90, 0, 160)]
    grid_h = h * 3 // 4
    rows = []
    for y in range(h):
        row = bytearray()
        if y < grid_h:
            r = y * 3 // grid_h
            for x in range(w):
                row += bytes(patches[r * 6 + x * 6 // w])
        else:
            band = (y - grid_h) * 2 // (h - grid_h)
            for x in range(w):
                v = x * 255 // (w - 1)
                row += bytes((v, v, v) if band == 0 else (v, 255 - v, 128))
        rows.append(bytes(row))
    return rows


def png_with_iccp(w, h, rgb, name, profile):
    data = encode_png(w, h, 2, 8, [rgb[i * w * 3:(i + 1) * w * 3] for i in range(h)])
    iccp = png_chunk(b"iCCP", name + b"\0\0" + zlib.compress(profile, 9))
    return data[:33] + iccp + data[33:]


def png_with_chunks(w, h, rgb, chunks):
    data = encode_png(w, h, 2, 8, [rgb[i * w * 3:(i + 1) * w * 3] for i in range(h)])
    return data[:33] + b"".join(png_chunk(tag, payload) for tag, payload in chunks) + data[33:]


def make_colour():
    w, h = 1536, 1024
    chart = os.path.join(TMP, "chart.ppm")
    ppm(chart, w, h, colour_chart(w, h))
    srgb = os.path.join(ICC_DIR, "sRGB.icc")
    p3 = os.path.join(TMP, "display-p3.icc")
    with open(p3, "wb") as f:
        f.write(icc_rgb_profile("Display P3 (Glance test)", [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)],
                                (0.3127, 0.3290)))
    note = "colour chart, 1536x1024, pixels converted from sRGB into and tagged with "

    def tagged_jpeg(rel, profile, what, *extra):
        # The chart is taken as sRGB, converted into the profile's space and tagged with it
        # (no -strip: the profile must stay; ImageMagick writes no timestamps into a JPEG).
        run(CONVERT, chart, *extra, "-profile", srgb, "-profile", profile, "-quality", "95", out(rel))
        ok_image(rel, "jpeg", w, h, note + what)

    tagged_jpeg("colour/romm-rgb.jpg", os.path.join(ICC_DIR, "ghostscript", "rommrgb.icc"), "ROMM RGB")
    tagged_jpeg("colour/adobe-rgb.jpg", os.path.join(ICC_DIR, "compatibleWithAdobeRGB1998.icc"),
                "an Adobe RGB (1998) compatible profile")
    tagged_jpeg("colour/adobe-rgb-2.jpg", os.path.join(ICC_DIR, "compatibleWithAdobeRGB1998.icc"),
                "the same profile, mirrored (a second photo from the same camera)", "-flop")
    tagged_jpeg("colour/cmyk-swop.jpg", os.path.join(ICC_DIR, "ghostscript", "default_cmyk.icc"),
                "ghostscript's CMYK SWOP profile (CMYK JPEG)")
    run(CONVERT, chart, "-profile", srgb, "-quality", "95", out("colour/srgb-tagged.jpg"))
    ok_image("colour/srgb-tagged.jpg", "jpeg", w, h, "colour chart tagged sRGB (pixels as untagged.jpg)")
    run(CONVERT, chart, "-quality", "95", out("colour/untagged.jpg"))
    ok_image("colour/untagged.jpg", "jpeg", w, h, "colour chart without a profile")

    # A profile that does not parse: one APP2 ICC_PROFILE segment of junk after SOI.
    plain = read("colour/untagged.jpg")
    junk = b"ICC_PROFILE\0\x01\x01" + bytes((i * 37 + 11) % 256 for i in range(400))
    write("colour/broken-profile.jpg", plain[:2] + b"\xff\xe2" + struct.pack(">H", len(junk) + 2) + junk + plain[2:])
    ok_image("colour/broken-profile.jpg", "jpeg", w, h, "untagged.jpg with an ICC_PROFILE segment of junk")

    # PNGs: the chart converted into Display P3 with an iCCP, and with gAMA / cHRM only.
    with open(p3, "rb") as f:
        p3_profile = f.read()
    # The fuzzers' seed for the ICC reader (Fuzz/run.py): the one profile made here.
    write("fuzz/icc/display-p3.icc", p3_profile)
    p3_rgb = subprocess.run([CONVERT, chart, "-profile", srgb, "-profile", p3, "-depth", "8", "rgb:-"],
                            check=True, capture_output=True).stdout
    write("colour/display-p3.png", png_with_iccp(w, h, p3_rgb, b"Display P3", p3_profile))
    ok_image("colour/display-p3.png", "png", w, h, note + "a Display P3 profile made here (iCCP)")
    small = subprocess.run([CONVERT, chart, "-resize", "384x256!", "-depth", "8", "rgb:-"],
                           check=True, capture_output=True).stdout
    write("colour/gamma-1.0.png", png_with_chunks(384, 256, small, [(b"gAMA", struct.pack(">I", 100000))]))
    ok_image("colour/gamma-1.0.png", "png", 384, 256, "384x256 chart with gAMA 1.0 and no other colour chunk")
    write("colour/gamma-srgb.png", png_with_chunks(384, 256, small, [(b"gAMA", struct.pack(">I", 45455))]))
    ok_image("colour/gamma-srgb.png", "png", 384, 256, "the same pixels with gAMA 1/2.2: taken as sRGB")


# ---------------------------------------------------------------- webp

def make_webp():
    """WebP documents, made by libwebp's own tools from files generated above."""
    photo = os.path.join(ROOT, "jpeg", "photo-baseline.jpg")
    run("cwebp", "-quiet", "-q", "80", "-metadata", "none", photo, "-o", out("webp/photo-lossy.webp"))
    ok_image("webp/photo-lossy.webp", "webp", 1600, 1200, "photo-baseline.jpg as lossy WebP, quality 80")
    run("cwebp", "-quiet", "-lossless", "-exact", "-metadata", "none", os.path.join(ROOT, "png", "rgba8.png"),
        "-o", out("webp/lossless-alpha.webp"))
    ok_image("webp/lossless-alpha.webp", "webp", 200, 150, "png/rgba8.png as lossless WebP with alpha")
    run("cwebp", "-quiet", "-q", "95", "-metadata", "icc", os.path.join(ROOT, "colour", "display-p3.png"),
        "-o", out("colour/display-p3.webp"))
    ok_image("colour/display-p3.webp", "webp", 1536, 1024,
             "colour/display-p3.png as lossy WebP, quality 95, with its Display P3 ICC profile")
    # EXIF orientation 6 carried over from the JPEG: the stored pixels are turned, the thumbnail
    # is upright (orientation/upright.png).
    run("cwebp", "-quiet", "-q", "90", "-metadata", "exif", os.path.join(ROOT, "orientation", "orient-6.jpg"),
        "-o", out("webp/orient-6.webp"))
    ok_image("webp/orient-6.webp", "webp", 600, 400,
             "orientation/orient-6.jpg as lossy WebP with its EXIF (orientation 6): upright 600x400")
    # An animation: a red frame, then a blue one; the thumbnail is the first.
    frames = []
    for index, colour in enumerate(((220, 30, 30), (30, 60, 220))):
        path = os.path.join(TMP, "frame-%d.ppm" % index)
        ppm(path, 320, 240, [bytes(colour) * 320] * 240)
        png = os.path.join(TMP, "frame-%d.png" % index)
        magick(path, png)
        frames += ["-d", "200", png]
    run("img2webp", "-loop", "0", "-lossless", *frames, "-o", out("webp/animated.webp"), stdout=subprocess.DEVNULL)
    ok_image("webp/animated.webp", "webp", 320, 240, "two frames, red then blue, 320x240: the first is drawn")
    lossy = read("webp/photo-lossy.webp")
    write("corrupt/truncated.webp", lossy[:len(lossy) * 2 // 5])
    record("corrupt/truncated.webp", "webp", "error:truncated webp data", None, "first 40% of webp/photo-lossy.webp")
    damaged = bytearray(lossy)
    rng = random.Random(42)
    for offset in range(40, len(damaged)):
        damaged[offset] = rng.randrange(256)
    write("corrupt/damaged.webp", bytes(damaged))
    record("corrupt/damaged.webp", "webp", "error:webp", None,
           "webp/photo-lossy.webp with every byte after its headers random")
    # An animation whose canvas is 16000x16000 (256 MP) with one 200x150 frame (frames may be
    # smaller than the canvas): refused by its header, before a canvas is made.
    tiny = os.path.join(TMP, "tiny.webp")
    run("cwebp", "-quiet", "-lossless", os.path.join(ROOT, "png", "rgba8.png"), "-o", tiny)
    with open(tiny, "rb") as f:
        image_chunk = f.read()[12:]

    def chunk(tag, payload):
        return tag + struct.pack("<I", len(payload)) + payload + (b"\0" if len(payload) % 2 else b"")

    side = (16000 - 1).to_bytes(3, "little")
    vp8x = chunk(b"VP8X", bytes([0x02 | 0x10, 0, 0, 0]) + side + side)
    anim = chunk(b"ANIM", bytes(4) + struct.pack("<H", 0))
    frame = bytes(3) + bytes(3) + (200 - 1).to_bytes(3, "little") + (150 - 1).to_bytes(3, "little")
    anmf = chunk(b"ANMF", frame + (100).to_bytes(3, "little") + bytes([0]) + image_chunk)
    body = b"WEBP" + vp8x + anim + anmf
    write("corrupt/huge-canvas.webp", b"RIFF" + struct.pack("<I", len(body)) + body)
    record("corrupt/huge-canvas.webp", "webp", "error:exceeds the 100-megapixel limit", None,
           "an animation on a 16000x16000 canvas (256 MP) with one 200x150 frame")


# ---------------------------------------------------------------- shared pictures

def photo_ppm(w, h):
    """A noise-free landscape (flat areas keep LZW, PackBits and GIF small) as a w x h PPM in TMP:
    drawn once at 1200x900, other sizes resized from it by ImageMagick."""
    big = os.path.join(TMP, "photo-1200x900.ppm")
    if not os.path.exists(big):
        ppm(big, 1200, 900, landscape(1200, 900, 21, 0))
    if (w, h) == (1200, 900):
        return big
    path = os.path.join(TMP, "photo-%dx%d.ppm" % (w, h))
    if not os.path.exists(path):
        magick(big, "-resize", "%dx%d!" % (w, h), path)
    return path


def solid_ppm(w, h, colour):
    path = os.path.join(TMP, "solid-%dx%d-%02x%02x%02x.ppm" % ((w, h) + tuple(colour)))
    ppm(path, w, h, [bytes(colour) * w] * h)
    return path


def quarter_ppm(w, h):
    """Top-left quarter red (220,30,30), the rest white: shows where a rotation puts the corner."""
    red, white = bytes((220, 30, 30)), bytes((255, 255, 255))
    path = os.path.join(TMP, "quarter-%dx%d.ppm" % (w, h))
    ppm(path, w, h, [(red * (w // 2) + white * (w - w // 2)) if y < h // 2 else white * w
                     for y in range(h)])
    return path


# ---------------------------------------------------------------- gif

def gif_data_spans(gif):
    """(start, end) of every data sub-block's payload in a GIF's image data (LZW bytes only: no
    headers, colour tables, extensions or sub-block length bytes)."""
    flags = gif[10]
    pos = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    spans = []
    while gif[pos] != 0x3B:
        if gif[pos] == 0x21:                      # extension: label, then sub-blocks
            pos += 2
            image = False
        else:                                     # image descriptor, local table, code size
            assert gif[pos] == 0x2C
            local = gif[pos + 9]
            pos += 10 + (3 << ((local & 7) + 1) if local & 0x80 else 0) + 1
            image = True
        while gif[pos]:
            if image:
                spans.append((pos + 1, pos + 1 + gif[pos]))
            pos += 1 + gif[pos]
        pos += 1
    return spans


def make_gif():
    """GIF documents, made by ImageMagick and gifsicle, and a few written by hand."""
    # A still picture quantised to 256 colours (ImageMagick dithers).
    magick(photo_ppm(400, 300), "-colors", "256", out("gif/still.gif"))
    ok_image("gif/still.gif", "gif", 400, 300, "400x300 landscape, 256-colour global table")
    # Left half transparent (a transparent index in the Graphic Control Extension): the thumbnail
    # must keep alpha.
    w, h = 200, 150
    rows = [b"".join(bytes((0, 0, 0, 0)) if x < w // 2 else
                     bytes((x * 255 // (w - 1), 40 + y, 160, 255)) for x in range(w)) for y in range(h)]
    source = os.path.join(TMP, "half-transparent.png")
    with open(source, "wb") as f:
        f.write(encode_png(w, h, 6, 8, rows))
    magick(source, out("gif/transparent.gif"))
    ok_image("gif/transparent.gif", "gif", w, h, "200x150, left half transparent, right half opaque gradient")
    # Interlaced rows (passes 8/8/4/2) must come out in order.
    run("gifsicle", "--interlace", out("gif/still.gif"), "-o", out("gif/interlaced.gif"))
    ok_image("gif/interlaced.gif", "gif", 400, 300, "still.gif interlaced by gifsicle: same pixels")
    # An animation: only the first frame is drawn.
    frames = [solid_ppm(320, 240, c) for c in ((220, 30, 30), (30, 60, 220), (30, 160, 60))]
    magick("-delay", "50", *frames, "-loop", "0", out("gif/animated.gif"))
    ok_image("gif/animated.gif", "gif", 320, 240,
             "three frames, red (220,30,30) then blue then green, 320x240: the first is drawn")
    # A first frame smaller than the logical screen: composed at its offset, the rest transparent.
    # The background index is the frame's (unused) transparent index, so a reader that paints the
    # background colour gets transparency too.
    frame = os.path.join(TMP, "frame-100x80.gif")
    magick(solid_ppm(100, 80, (30, 160, 60)), frame)
    run("gifsicle", "--logical-screen", "300x200", "--position", "50,40", "--transparent", "1",
        "--background", "1", frame, "-o", out("gif/offset-frame.gif"))
    ok_image("gif/offset-frame.gif", "gif", 300, 200,
             "300x200 screen, one green (30,160,60) 100x80 frame at (50,40); everything else transparent")

    still = read("gif/still.gif")
    write("corrupt/truncated.gif", still[:len(still) * 2 // 5])
    record("corrupt/truncated.gif", "gif", "error:gif", None, "first 40% of gif/still.gif")
    # Random LZW bytes, headers, colour table and sub-block lengths intact.
    damaged = bytearray(still)
    rng = random.Random(42)
    for start, end in gif_data_spans(still):
        for offset in range(start, end):
            damaged[offset] = rng.randrange(256)
    write("corrupt/damaged.gif", bytes(damaged))
    record("corrupt/damaged.gif", "gif", "either", None,
           "gif/still.gif with its LZW data random (block structure intact)")
    # Screen and image 20000x20000 (400 MP), LZW data just Clear and End: refused from the header.
    side = struct.pack("<HH", 20000, 20000)
    huge = (b"GIF89a" + side + bytes([0x80, 0, 0]) + bytes((0, 0, 0, 255, 255, 255))
            + b"\x2c" + struct.pack("<HH", 0, 0) + side + b"\0"
            + b"\x02" + b"\x01\x2c\x00" + b"\x3b")  # code size 2: codes 4 (clear), 5 (end)
    write("corrupt/huge-screen.gif", huge)
    record("corrupt/huge-screen.gif", "gif", "error:exceeds the 100-megapixel limit", None,
           "logical screen and image 20000x20000 (400 MP), LZW data only Clear and End")


# ---------------------------------------------------------------- tiff

def tiff_ifd(entries):
    """Header and one IFD of a little-endian TIFF; entries are (tag, type, count, value) with
    type 3 (SHORT) or 4 (LONG) and one value each."""
    body = struct.pack("<H", len(entries))
    for tag, kind, count, value in sorted(entries):
        body += struct.pack("<HHI", tag, kind, count)
        body += struct.pack("<HH", value, 0) if kind == 3 else struct.pack("<I", value)
    return b"II*\0" + struct.pack("<I", 8) + body + struct.pack("<I", 0)


def make_tiff():
    """TIFF documents, made by ImageMagick (which writes no timestamps into a TIFF), tiffcp and
    tiffset, and one written by hand."""
    # RGB 8 bit, LZW with the horizontal predictor, ten strips of 64 rows (the last shorter).
    magick(photo_ppm(800, 600), "-compress", "lzw", "-define", "tiff:rows-per-strip=64",
           out("tiff/rgb8-lzw.tiff"))
    ok_image("tiff/rgb8-lzw.tiff", "tiff", 800, 600, "RGB 8 bit, LZW + predictor, 64-row strips")
    # RGB 16 bit, Deflate.
    magick(photo_ppm(400, 300), "-depth", "16", "-compress", "zip", out("tiff/rgb16-deflate.tiff"))
    ok_image("tiff/rgb16-deflate.tiff", "tiff", 400, 300, "RGB 16 bit, Deflate + predictor")
    # Tiled, JPEG-compressed YCbCr; 1200x900 leaves partial tiles on the right and bottom.
    plain = os.path.join(TMP, "photo-1200x900.tiff")
    magick(photo_ppm(1200, 900), "-compress", "none", plain)
    run("tiffcp", "-t", "-w", "256", "-l", "256", "-c", "jpeg:85", plain, out("tiff/tiled-jpeg.tiff"))
    ok_image("tiff/tiled-jpeg.tiff", "tiff", 1200, 900,
             "256x256 tiles (partial ones at the edges), JPEG quality 85, YCbCr 4:2:0")
    # CMYK without a profile.
    magick(photo_ppm(600, 400), "-colorspace", "CMYK", "-compress", "lzw", out("tiff/cmyk.tiff"))
    ok_image("tiff/cmyk.tiff", "tiff", 600, 400, "CMYK 8 bit (InkSet CMYK), LZW, no ICC profile")
    # Grayscale, PackBits.
    magick(photo_ppm(500, 500), "-colorspace", "gray", "-type", "grayscale", "-compress", "rle",
           out("tiff/gray-packbits.tiff"))
    ok_image("tiff/gray-packbits.tiff", "tiff", 500, 500, "grayscale 8 bit, PackBits")
    # RGBA: ImageMagick writes unassociated alpha (ExtraSamples 2).
    magick(os.path.join(ROOT, "png", "rgba8.png"), "-compress", "lzw", out("tiff/rgba.tiff"))
    ok_image("tiff/rgba.tiff", "tiff", 200, 150, "png/rgba8.png as RGBA 8 bit, unassociated alpha, LZW")
    # The same pixels in 64-pixel tiles (200 is not a multiple: the right tiles are partly empty),
    # read as stored rather than through libtiff's RGBA reader.
    run("tiffcp", "-t", "-w", "64", "-l", "64", "-c", "lzw", out("tiff/rgba.tiff"), out("tiff/rgba-tiled.tiff"))
    ok_image("tiff/rgba-tiled.tiff", "tiff", 200, 150, "tiff/rgba.tiff in 64x64 tiles, LZW")
    # Three pages; only the first is drawn.
    pages = []
    for index, (size, colour) in enumerate((((300, 200), (220, 30, 30)), ((500, 500), (30, 60, 220)),
                                            ((400, 300), (30, 160, 60)))):
        pages.append(os.path.join(TMP, "page-%d.tiff" % index))
        magick(solid_ppm(*size, colour), "-compress", "lzw", pages[-1])
    run("tiffcp", *pages, out("tiff/multipage.tiff"))
    ok_image("tiff/multipage.tiff", "tiff", 300, 200,
             "three pages: red (220,30,30) 300x200, blue 500x500, green 400x300: the first is drawn")
    # Two pages with resolutions, as a scanner writes them: 600x300 at 300 dots an inch (144x72
    # points), and 100x200 at 50 dots a centimetre turned by orientation 6 (113.4x56.7 points).
    # A preview stacks them in those boxes.
    scans = []
    for index, (size, colour, density, units) in enumerate((
            ((600, 300), (200, 200, 200), "300", "PixelsPerInch"),
            ((100, 200), (90, 90, 90), "50", "PixelsPerCentimeter"))):
        scans.append(os.path.join(TMP, "scan-%d.tiff" % index))
        magick(solid_ppm(*size, colour), "-density", density, "-units", units, "-compress", "lzw", scans[-1])
    run("tiffset", "-s", "274", "6", scans[1])
    run("tiffcp", *scans, out("tiff/scanned-pages.tiff"))
    ok_image("tiff/scanned-pages.tiff", "tiff", 600, 300,
             "two pages: 600x300 at 300 dpi, 100x200 at 50 dots/cm turned by orientation 6")
    # Orientation 6: stored 300x200, displayed 200x300 turned 90 degrees clockwise.
    magick(quarter_ppm(300, 200), "-compress", "lzw", out("tiff/orientation-6.tiff"))
    run("tiffset", "-s", "274", "6", out("tiff/orientation-6.tiff"))
    ok_image("tiff/orientation-6.tiff", "tiff", 200, 300,
             "stored 300x200 with its top-left quarter red, Orientation 6: "
             "red lands top-right of the 200x300 thumbnail")
    # Display P3 with its ICC profile (tag 34675); not stripped, so the chromaticity tags
    # ImageMagick adds (sRGB's) are removed to leave the profile the only colour information.
    run(CONVERT, os.path.join(ROOT, "colour", "display-p3.png"), "-compress", "lzw", out("colour/display-p3.tiff"))
    run("tiffset", "-u", "318", out("colour/display-p3.tiff"))
    run("tiffset", "-u", "319", out("colour/display-p3.tiff"))
    ok_image("colour/display-p3.tiff", "tiff", 1536, 1024,
             "colour/display-p3.png as an LZW TIFF with its Display P3 ICC profile (tag 34675)")

    lzw = read("tiff/rgb8-lzw.tiff")
    write("corrupt/truncated.tiff", lzw[:len(lzw) * 2 // 5])
    record("corrupt/truncated.tiff", "tiff", "error:tiff", None,
           "first 40% of tiff/rgb8-lzw.tiff (its IFD, written last, is cut off)")
    assert lzw[:4] == b"II*\0"
    write("corrupt/bad-ifd.tiff", lzw[:4] + struct.pack("<I", len(lzw) + 4096) + lzw[8:])
    record("corrupt/bad-ifd.tiff", "tiff", "error:tiff", None,
           "tiff/rgb8-lzw.tiff with its first IFD offset 4 KiB past the end of the file")
    # 20000x20000 8-bit gray (400 MP) in one Deflate strip holding a single row (compressed, so
    # libtiff does not replace the short StripByteCounts with the uncompressed size).
    strip = zlib.compress(bytes(20000), 9)
    entries = [(256, 4, 1, 20000), (257, 4, 1, 20000), (258, 3, 1, 8), (259, 3, 1, 8), (262, 3, 1, 1),
               (273, 4, 1, 0), (277, 3, 1, 1), (278, 4, 1, 20000), (279, 4, 1, len(strip))]
    entries[5] = (273, 4, 1, len(tiff_ifd(entries)))
    write("corrupt/huge.tiff", tiff_ifd(entries) + strip)
    record("corrupt/huge.tiff", "tiff", "error:exceeds the 100-megapixel limit", None,
           "hand-written: 20000x20000 8-bit gray (400 MP), one Deflate strip with one row")
    make_float_tiff()
    make_radiance()
    make_exr()


def float_tiff(w, h, colours, bits, values, big_endian=False, extra=None, icc=None):
    """A hand-written uncompressed TIFF of floating-point samples (SampleFormat 3) in one strip:
    gray (`colours` 1) or RGB (3), with one extra sample of kind `extra` (1 associated alpha, 2
    unassociated) or none; `values` every sample in order, written as IEEE floats of `bits`."""
    e = ">" if big_endian else "<"
    samples = colours + (extra is not None)
    code = {16: "e", 32: "f", 64: "d"}[bits]
    strip = struct.pack(e + code * len(values), *values)
    assert len(values) == w * h * samples
    # (tag, type, values): type 3 SHORT, 4 LONG, 7 UNDEFINED (bytes); strip offset filled in below.
    entries = [(256, 4, [w]), (257, 4, [h]), (258, 3, [bits] * samples), (259, 3, [1]),
               (262, 3, [2 if colours == 3 else 1]), (273, 4, [0]), (277, 3, [samples]), (278, 4, [h]),
               (279, 4, [len(strip)]), (284, 3, [1]), (339, 3, [3] * samples)]
    if extra is not None:
        entries.append((338, 3, [extra]))
    if icc is not None:
        entries.append((34675, 7, icc))
    entries.sort()
    size = {3: 2, 4: 4, 7: 1}
    ifd_size = 2 + 12 * len(entries) + 4
    outside = b""
    placed = []
    for tag, kind, vals in entries:
        data = bytes(vals) if kind == 7 else struct.pack(e + ("H" if kind == 3 else "I") * len(vals), *vals)
        if len(data) <= 4:
            placed.append((tag, kind, len(vals), data.ljust(4, b"\0"), None))
        else:
            placed.append((tag, kind, len(vals), None, 8 + ifd_size + len(outside)))
            outside += data + b"\0" * (len(data) % 2)
    strip_at = 8 + ifd_size + len(outside)
    body = struct.pack(e + "H", len(placed))
    for tag, kind, count, inline, offset in placed:
        if tag == 273:
            inline = struct.pack(e + "I", strip_at)
        body += struct.pack(e + "HHI", tag, kind, count) + (inline if inline is not None else
                                                             struct.pack(e + "I", offset))
    body += struct.pack(e + "I", 0)
    return (b"MM\0*" if big_endian else b"II*\0") + struct.pack(e + "I", 8) + body + outside + strip


def rgbe(r, g, b):
    """One Radiance RGBE pixel of linear light (Radiance's float2rgbe)."""
    v = max(r, g, b)
    if v < 1e-32:
        return bytes(4)
    m, e = math.frexp(v)
    scale = m * 256 / v
    return bytes([int(r * scale), int(g * scale), int(b * scale), e + 128])


def rgbe_rle_row(pixels):
    """A row of RGBE pixels in Radiance's run-length form: 2, 2, the width, then each component
    as runs (128 + n, the byte) of 4 or more equal bytes and literals (n, n bytes) between."""
    out = b"\x02\x02" + struct.pack(">H", len(pixels))
    for c in range(4):
        data = bytes(p[c] for p in pixels)
        i = 0
        literal = b""
        while i < len(data):
            n = 1
            while i + n < len(data) and data[i + n] == data[i] and n < 127:
                n += 1
            if n >= 4:
                while literal:
                    out += bytes([len(literal[:128])]) + literal[:128]
                    literal = literal[128:]
                out += bytes([128 + n, data[i]])
                i += n
            else:
                literal += data[i:i + n]
                i += n
        while literal:
            out += bytes([len(literal[:128])]) + literal[:128]
            literal = literal[128:]
    return out


def make_radiance():
    """Radiance HDR pictures (`.hdr`): one written by ImageMagick (run-length encoded scanlines),
    the rest by hand from png/rgb8.png's pixels decoded to linear light."""
    w, h, rgb = read_ppm_of(os.path.join(ROOT, "png", "rgb8.png"))
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), out("hdr/rgb8.hdr"))
    ok_image("hdr/rgb8.hdr", "hdr", w, h, "png/rgb8.png by ImageMagick: run-length encoded scanlines")
    pixels = [rgbe(*(srgb_to_linear(rgb[3 * i + c] / 255) for c in range(3))) for i in range(w * h)]
    # Flat pixels, rows stored bottom to top (+Y): the picture must come out upright.
    rows = [b"".join(pixels[y * w:(y + 1) * w]) for y in range(h)]
    head = b"#?RADIANCE\n# written by Glance's test generator\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=1.0\n\n"
    write("hdr/flat-bottom-up.hdr", head + b"+Y %d +X %d\n" % (h, w) + b"".join(reversed(rows)))
    ok_image("hdr/flat-bottom-up.hdr", "hdr", w, h,
             "hand-written: png/rgb8.png as flat RGBE pixels, rows bottom to top (+Y)")
    # Run-length encoded by hand, with a band of one colour so that runs appear beside literals.
    banded = [grey_pixel if y % 50 < 10 else p for y in range(h) for p in pixels[y * w:(y + 1) * w]
              for grey_pixel in [rgbe(0.5, 0.25, 0.125)]]
    write("hdr/rle-bands.hdr", head + b"-Y %d +X %d\n" % (h, w) +
          b"".join(rgbe_rle_row(banded[y * w:(y + 1) * w]) for y in range(h)))
    ok_image("hdr/rle-bands.hdr", "hdr", w, h,
             "hand-written, run-length encoded: png/rgb8.png with every 50 rows' first 10 in linear "
             "(0.5, 0.25, 0.125)")
    # Display P3's primaries (PRIMARIES=): tiff/rgb8-p3.tiff's twin.
    p3 = b"PRIMARIES=0.680 0.320 0.265 0.690 0.150 0.060 0.3127 0.3290\n"
    write("hdr/p3-primaries.hdr", head.replace(b"\n\n", b"\n" + p3 + b"\n") + b"-Y %d +X %d\n" % (h, w) +
          b"".join(rgbe_rle_row(pixels[y * w:(y + 1) * w]) for y in range(h)))
    ok_image("hdr/p3-primaries.hdr", "hdr", w, h,
             "hand-written: png/rgb8.png's codes decoded to linear light on Display P3's primaries "
             "(PRIMARIES=): tiff/rgb8-p3.tiff's twin")
    # Old-style repeats: a row of one colour as a pixel and 1,1,1,n.
    grey = rgbe(0.2, 0.2, 0.2)
    row = grey + b"\x01\x01\x01" + bytes([w - 1])
    write("hdr/old-repeats.rgbe", b"#?RGBE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4 +X %d\n" % w + row * 4)
    ok_image("hdr/old-repeats.rgbe", "hdr", w, 4,
             "hand-written: #?RGBE, four rows of one pixel of linear 0.2 gray and an old-style repeat")
    whole = read("hdr/rgb8.hdr")
    write("hdr/truncated.hdr", whole[:len(whole) // 2])
    record("hdr/truncated.hdr", "hdr", "error:truncated", None, "hdr/rgb8.hdr cut in half")
    write("hdr/xyze.hdr", b"#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n" + bytes(4))
    record("hdr/xyze.hdr", "hdr", "error:32-bit_rle_xyze", None, "hand-written: XYZE samples, refused")
    write("hdr/huge.hdr", b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 30000 +X 30000\n" + bytes(64))
    record("hdr/huge.hdr", "hdr", "error:exceeds the 100-megapixel limit", None,
           "hand-written: 30000x30000 (900 MP) in its resolution line, 64 bytes of pixels")
    # A run that would write past its row.
    bad = b"\x02\x02" + struct.pack(">H", 8) + b"\xff\x01" * 4
    write("hdr/overrun.hdr", b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 8\n" + bad)
    record("hdr/overrun.hdr", "hdr", "error:a run overruns its row", None,
           "hand-written: an 8-pixel row whose runs say 127 pixels")


def exr_file(w, h, channels, chromaticities=None, tiled=False):
    """A hand-written OpenEXR file, uncompressed, one line a chunk: `channels` is [(name, pixel
    type 1 half or 2 float, [w*h linear values])]; `tiled` (a tile's side) writes tiles of one
    level instead."""
    def attribute(name, kind, value):
        return name.encode() + b"\0" + kind.encode() + b"\0" + struct.pack("<i", len(value)) + value
    channels = sorted(channels)
    chlist = b"".join(name.encode() + b"\0" + struct.pack("<iB3xii", kind, 0, 1, 1) for name, kind, _ in channels)
    box = struct.pack("<4i", 0, 0, w - 1, h - 1)
    head = b"v/1\x01" + struct.pack("<I", 2 | (0x200 if tiled else 0))
    head += attribute("channels", "chlist", chlist + b"\0")
    head += attribute("compression", "compression", b"\0")
    head += attribute("dataWindow", "box2i", box) + attribute("displayWindow", "box2i", box)
    head += attribute("lineOrder", "lineOrder", b"\0")
    head += attribute("pixelAspectRatio", "float", struct.pack("<f", 1))
    head += attribute("screenWindowCenter", "v2f", struct.pack("<2f", 0, 0))
    head += attribute("screenWindowWidth", "float", struct.pack("<f", 1))
    if chromaticities:
        head += attribute("chromaticities", "chromaticities", struct.pack("<8f", *chromaticities))
    if tiled:
        head += attribute("tiles", "tiledesc", struct.pack("<IIB", tiled, tiled, 0))
    head += b"\0"
    rows = []
    if tiled:
        # One level, tiles in increasing Y then X; each tile's lines hold each channel's samples.
        for ty in range(0, h, tiled):
            for tx in range(0, w, tiled):
                tw, th = min(tiled, w - tx), min(tiled, h - ty)
                data = b"".join(struct.pack("<%d%s" % (tw, "e" if kind == 1 else "f"),
                                            *values[y * w + tx:y * w + tx + tw])
                                for y in range(ty, ty + th) for _, kind, values in channels)
                rows.append(struct.pack("<iiiii", tx // tiled, ty // tiled, 0, 0, len(data)) + data)
    else:
        for y in range(h):
            data = b"".join(struct.pack("<%d%s" % (w, "e" if kind == 1 else "f"), *values[y * w:(y + 1) * w])
                            for _, kind, values in channels)
            rows.append(struct.pack("<ii", y, len(data)) + data)
    offsets, at = [], len(head) + 8 * len(rows)
    for row in rows:
        offsets.append(at)
        at += len(row)
    return head + struct.pack("<%dQ" % len(rows), *offsets) + b"".join(rows)


def make_exr():
    """OpenEXR pictures: one by ImageMagick (run-length compressed halves, linearised first), the
    rest written by hand from png/rgb8.png's and png/rgba8.png's pixels as linear light."""
    w, h, rgb = read_ppm_of(os.path.join(ROOT, "png", "rgb8.png"))
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), "-colorspace", "RGB", out("exr/rgb8-rle.exr"))
    ok_image("exr/rgb8-rle.exr", "exr", w, h,
             "png/rgb8.png linearised by ImageMagick (-colorspace RGB): half R, G, B, run-length compressed")
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), "-colorspace", "RGB", "-compress", "piz",
        out("exr/rgb8-piz.exr"))
    ok_image("exr/rgb8-piz.exr", "exr", w, h, "exr/rgb8-rle.exr's pixels, PIZ (wavelet) compressed")
    linear = [[srgb_to_linear(rgb[3 * i + c] / 255) for i in range(w * h)] for c in range(3)]
    pam = os.path.join(TMP, "rgba8.pam")
    run(CONVERT, os.path.join(ROOT, "png", "rgba8.png"), "PAM:" + pam)
    rgba = open(pam, "rb").read().split(b"ENDHDR\n", 1)[1]
    alpha = [rgba[4 * i + 3] / 255 for i in range(w * h)]
    premultiplied = [[srgb_to_linear(rgba[4 * i + c] / 255) * alpha[i] for i in range(w * h)] for c in range(3)]
    write("exr/rgba-premultiplied.exr",
          exr_file(w, h, [("R", 1, premultiplied[0]), ("G", 1, premultiplied[1]), ("B", 1, premultiplied[2]),
                          ("A", 1, alpha)]))
    ok_image("exr/rgba-premultiplied.exr", "exr", w, h,
             "hand-written: png/rgba8.png as linear half R, G, B premultiplied by A (OpenEXR's rule)")
    write("exr/p3.exr", exr_file(w, h, [("R", 1, linear[0]), ("G", 1, linear[1]), ("B", 1, linear[2])],
                                 chromaticities=(0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.3127, 0.3290)))
    ok_image("exr/p3.exr", "exr", w, h,
             "hand-written: png/rgb8.png's codes as linear half R, G, B on Display P3's chromaticities: "
             "tiff/rgb8-p3.tiff's twin")
    black = [0.0] * (w * h)
    write("exr/layers.exr", exr_file(w, h, [("View.AO.R", 1, black), ("View.AO.G", 1, black), ("View.AO.B", 1, black),
                                            ("View.Combined.R", 1, linear[0]), ("View.Combined.G", 1, linear[1]),
                                            ("View.Combined.B", 1, linear[2]), ("View.Depth.Z", 1, [5.0] * (w * h))]))
    ok_image("exr/layers.exr", "exr", w, h,
             "hand-written multi-layer render as Blender names it: View.AO.R/G/B (black, sorting first), "
             "View.Combined.R/G/B (png/rgb8.png) and View.Depth.Z")
    write("exr/gray.exr", exr_file(w, h, [("Y", 1, linear[1])]))
    ok_image("exr/gray.exr", "exr", w, h, "hand-written: png/rgb8.png's green as linear half luminance (Y)")
    whole = read("exr/rgb8-rle.exr")
    write("exr/truncated.exr", whole[:len(whole) // 2])
    record("exr/truncated.exr", "exr", "error:truncated", None, "exr/rgb8-rle.exr cut in half")
    write("exr/tiled.exr", exr_file(w, h, [("R", 1, linear[0]), ("G", 1, linear[1]), ("B", 1, linear[2])],
                                    tiled=64))
    ok_image("exr/tiled.exr", "exr", w, h,
             "hand-written: png/rgb8.png as linear half R, G, B in 64x64 tiles (partial at the right and bottom)")
    write("exr/huge.exr", exr_file(30000, 1, [("Y", 1, [0.5] * 30000)]).replace(
        struct.pack("<4i", 0, 0, 29999, 0), struct.pack("<4i", 0, 0, 29999, 29999)))
    record("exr/huge.exr", "exr", "error:exceeds the 100-megapixel limit", None,
           "hand-written: a 30000x30000 (900 MP) data window over one row of pixels")


def make_float_tiff():
    """Floating-point TIFFs (HDR merges, Photoshop's 32-bit mode, scientific images) written by
    hand from png/rgb8.png's and png/rgba8.png's pixels, and made smaller by tiffcp."""
    def deflated(rel, data):
        # Deflate with the floating-point predictor (3), by tiffcp.
        plain = os.path.join(TMP, "plain-float.tiff")
        with open(plain, "wb") as f:
            f.write(data)
        run("tiffcp", "-c", "zip:3", plain, out(rel))

    w, h, rgb = read_ppm_of(os.path.join(ROOT, "png", "rgb8.png"))
    linear = [srgb_to_linear(c / 255) for c in rgb]
    plain = os.path.join(TMP, "float32.tiff")
    with open(plain, "wb") as f:
        f.write(float_tiff(w, h, 3, 32, linear))
    # Deflate with the floating-point predictor (3), in 16-row strips.
    run("tiffcp", "-c", "zip:3", "-r", "16", plain, out("tiff/float32-linear.tiff"))
    ok_image("tiff/float32-linear.tiff", "tiff", w, h,
             "png/rgb8.png's pixels as linear light in 32-bit floats (no profile), Deflate with "
             "the floating-point predictor, 16-row strips")
    run("tiffcp", "-t", "-w", "64", "-l", "64", "-c", "zip:3", plain, out("tiff/float32-tiled.tiff"))
    ok_image("tiff/float32-tiled.tiff", "tiff", w, h,
             "tiff/float32-linear.tiff's samples in 64x64 tiles (partial at the right and bottom)")
    # Half floats, big-endian, gray with unassociated alpha: rgba8's green as gray, its alpha.
    pam = os.path.join(TMP, "rgba8.pam")
    run(CONVERT, os.path.join(ROOT, "png", "rgba8.png"), "PAM:" + pam)
    rgba = open(pam, "rb").read().split(b"ENDHDR\n", 1)[1]
    assert len(rgba) == w * h * 4
    values = []
    for i in range(w * h):
        values += [srgb_to_linear(rgba[4 * i + 1] / 255), rgba[4 * i + 3] / 255]
    write("tiff/half-gray-alpha.tiff", float_tiff(w, h, 1, 16, values, big_endian=True, extra=2))
    ok_image("tiff/half-gray-alpha.tiff", "tiff", w, h,
             "hand-written, big-endian: png/rgba8.png's green as linear gray and its alpha, in 16-bit "
             "(half) floats, unassociated alpha")
    # 32-bit RGBA with associated alpha: colour premultiplied by alpha.
    values = []
    for i in range(w * h):
        a = rgba[4 * i + 3] / 255
        values += [srgb_to_linear(rgba[4 * i + c] / 255) * a for c in range(3)] + [a]
    deflated("tiff/float32-premultiplied.tiff", float_tiff(w, h, 3, 32, values, extra=1))
    ok_image("tiff/float32-premultiplied.tiff", "tiff", w, h,
             "hand-written: png/rgba8.png as linear RGB premultiplied by alpha, 32-bit floats, "
             "associated alpha; Deflate (tiffcp)")
    # 64-bit floats with the Display P3 profile: linear light on P3's primaries (the profile's
    # curve, sRGB's, is not the samples': Photoshop's 32-bit convention), beside the same pixels
    # as 8-bit samples with the same profile.
    p3 = icc_rgb_profile("Display P3 (Glance test)", [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)],
                         (0.3127, 0.3290))
    deflated("tiff/float64-p3.tiff", float_tiff(w, h, 3, 64, linear, icc=p3))
    ok_image("tiff/float64-p3.tiff", "tiff", w, h,
             "hand-written: png/rgb8.png's codes decoded to linear light as 64-bit floats, tagged "
             "Display P3; Deflate (tiffcp)")
    icc = os.path.join(TMP, "p3.icc")
    with open(icc, "wb") as f:
        f.write(p3)
    # Assigned to pixels without a profile, ImageMagick converts nothing; the chromaticity tags it
    # adds (sRGB's) are removed to leave the profile the only colour information.
    run(CONVERT, os.path.join(ROOT, "png", "rgb8.png"), "-strip", "-profile", icc, "-compress", "lzw",
        out("tiff/rgb8-p3.tiff"))
    run("tiffset", "-u", "318", out("tiff/rgb8-p3.tiff"))
    run("tiffset", "-u", "319", out("tiff/rgb8-p3.tiff"))
    ok_image("tiff/rgb8-p3.tiff", "tiff", w, h,
             "png/rgb8.png's 8-bit codes, LZW, tagged Display P3: tiff/float64-p3.tiff's twin")
    # Not-a-number and infinities among the samples: drawn (as black and as full), not refused.
    values = list(linear)
    for i in range(0, len(values), 7):
        values[i] = float("nan") if i % 2 else float("inf")
    deflated("tiff/float32-nan.tiff", float_tiff(w, h, 3, 32, values))
    ok_image("tiff/float32-nan.tiff", "tiff", w, h,
             "tiff/float32-linear.tiff's samples with every seventh not-a-number or infinite")
    # 24-bit floats (Adobe's): refused in one line.
    f24 = bytearray(float_tiff(2, 2, 1, 16, [0.5] * 4))
    # BitsPerSample 16 -> 24 (inline SHORT), with a 12-byte strip to match.
    at = f24.index(struct.pack("<HHI", 258, 3, 1)) + 8
    f24[at:at + 2] = struct.pack("<H", 24)
    write("tiff/float24.tiff", bytes(f24) + bytes(4))
    record("tiff/float24.tiff", "tiff", "error:floating-point samples of 24 bits", None,
           "hand-written: 2x2 gray in 24-bit floats (BitsPerSample 24, SampleFormat 3)")


# ---------------------------------------------------------------- heif

def bmff_boxes(data, start, end):
    """(offset, type, size) of the ISO-BMFF boxes between start and end."""
    pos, found = start, []
    while pos < end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        assert size >= 8, "64-bit or open-ended box sizes are not handled"
        found.append((pos, kind, size))
        pos += size
    assert pos == end
    return found


def bmff_child(data, parent, kind, header=8):
    """The first child box of type kind inside parent (an (offset, type, size) tuple); header is
    8 for plain boxes and 12 for full boxes (version and flags)."""
    pos, _, size = parent
    return next(b for b in bmff_boxes(data, pos + header, pos + size) if b[1] == kind)


def heif_meta(data):
    """The meta, iprp, ipco and ipma boxes of a HEIF file."""
    meta = next(b for b in bmff_boxes(data, 0, len(data)) if b[1] == b"meta")
    iprp = bmff_child(data, meta, b"iprp", 12)
    return meta, iprp, bmff_child(data, iprp, b"ipco"), bmff_child(data, iprp, b"ipma")


def iloc_offset_fields(data, iloc):
    """(position, byte size) of every file offset field in an iloc box whose data lies in the
    file (construction method 0): the base offset if it has one, else each extent offset."""
    pos = iloc[0] + 8
    version = data[pos]
    pos += 4
    offset_size, length_size = data[pos] >> 4, data[pos] & 15
    base_size, index_size = data[pos + 1] >> 4, (data[pos + 1] & 15) if version in (1, 2) else 0
    pos += 2
    count_size = 4 if version == 2 else 2
    count = int.from_bytes(data[pos:pos + count_size], "big")
    pos += count_size
    fields = []
    for _ in range(count):
        pos += count_size                     # item ID
        method = 0
        if version in (1, 2):
            method = int.from_bytes(data[pos:pos + 2], "big") & 15
            pos += 2
        pos += 2                              # data reference index
        base = (pos, base_size)
        pos += base_size
        extents = int.from_bytes(data[pos:pos + 2], "big")
        pos += 2
        offsets = []
        for _ in range(extents):
            pos += index_size
            offsets.append((pos, offset_size))
            pos += offset_size + length_size
        if method == 0:
            fields += [base] if base_size else offsets
    return fields


def heif_add_irot(data, angle):
    """Add an irot property (angle x 90 degrees anticlockwise) to the primary item: append the box
    to ipco, associate it (essential) in ipma, grow ipco, iprp and meta, and move iloc's file
    offsets by the bytes added (the image data in mdat comes after meta)."""
    meta, iprp, ipco, ipma = heif_meta(data)
    pitm = bmff_child(data, meta, b"pitm", 12)
    assert data[pitm[0] + 8] == 0
    primary = struct.unpack(">H", data[pitm[0] + 12:pitm[0] + 14])[0]
    index = len(bmff_boxes(data, ipco[0] + 8, ipco[0] + ipco[2])) + 1
    irot = struct.pack(">I4sB", 9, b"irot", angle & 3)
    # ipma: entries of (item ID, association count, associations)
    pos = ipma[0] + 8
    version, wide = data[pos], data[pos + 3] & 1
    assert index < (0x8000 if wide else 0x80)
    entries = struct.unpack(">I", data[pos + 4:pos + 8])[0]
    pos += 8
    new_ipma = bytearray(data[ipma[0] + 8:ipma[0] + 16])
    id_size = 2 if version == 0 else 4
    for _ in range(entries):
        item = int.from_bytes(data[pos:pos + id_size], "big")
        n = data[pos + id_size]
        assoc = data[pos + id_size + 1:pos + id_size + 1 + n * (2 if wide else 1)]
        pos += id_size + 1 + len(assoc)
        if item == primary:
            assoc += struct.pack(">H", 0x8000 | index) if wide else bytes([0x80 | index])
            n += 1
        new_ipma += item.to_bytes(id_size, "big") + bytes([n]) + assoc
    assert pos == ipma[0] + ipma[2]
    new_ipma = struct.pack(">I", 8 + len(new_ipma)) + b"ipma" + new_ipma
    new_ipco = struct.pack(">I", ipco[2] + len(irot)) + data[ipco[0] + 4:ipco[0] + ipco[2]] + irot
    assert ipco[0] + ipco[2] == ipma[0], "ipma must follow ipco"
    edited = bytearray(data[:ipco[0]] + new_ipco + new_ipma + data[ipma[0] + ipma[2]:])
    delta = len(edited) - len(data)
    for box in (meta, iprp):  # both start before the edit: their size fields stay in place
        struct.pack_into(">I", edited, box[0], box[2] + delta)
    iloc = bmff_child(edited, heif_meta(edited)[0], b"iloc", 12)
    for field, size in iloc_offset_fields(edited, iloc):
        value = int.from_bytes(edited[field:field + size], "big")
        if value >= meta[0] + meta[2]:  # data after meta (in mdat) moved by delta
            edited[field:field + size] = (value + delta).to_bytes(size, "big")
    return bytes(edited)


def heif_enc(source, rel, *options):
    """heif-enc: HEIC with x265, or AVIF with libaom given -A."""
    run("heif-enc", *options, source, "-o", out(rel), stdout=subprocess.DEVNULL)


def make_heif():
    """HEIC (x265) and AVIF (libaom) documents made by libheif's heif-enc, some patched here."""
    photo = os.path.join(ROOT, "jpeg", "photo-baseline.jpg")
    rgba = os.path.join(ROOT, "png", "rgba8.png")
    heif_enc(photo, "heif/photo.heic", "-q", "60")
    ok_image("heif/photo.heic", "heic", 1600, 1200, "photo-baseline.jpg as HEIC, quality 60, no colour profile")
    # An embedded 1024x768 thumbnail item (thmb reference): the primary image is still drawn.
    heif_enc(photo, "heif/photo-with-thumbnail.heic", "-q", "60", "-t", "1024")
    ok_image("heif/photo-with-thumbnail.heic", "heic", 1600, 1200,
             "photo.heic with an embedded 1024x768 HEVC thumbnail item")
    heif_enc(rgba, "heif/alpha.heic", "-q", "60")
    ok_image("heif/alpha.heic", "heic", 200, 150, "png/rgba8.png as HEIC with an alpha auxiliary image")
    # heif-enc cannot write irot: one is added to the primary item here.
    quarter = os.path.join(TMP, "quarter.png")
    magick(quarter_ppm(300, 200), quarter)
    turned = os.path.join(TMP, "quarter.heic")
    run("heif-enc", "-q", "90", quarter, "-o", turned, stdout=subprocess.DEVNULL)
    with open(turned, "rb") as f:
        write("heif/rotated.heic", heif_add_irot(f.read(), 1))
    ok_image("heif/rotated.heic", "heic", 200, 300,
             "stored 300x200 with its top-left quarter red, irot 90 degrees anticlockwise: "
             "red lands bottom-left of the 200x300 thumbnail")
    # libaom's bytes depend on its threads parameter (not on the cores): pinned to the default.
    heif_enc(photo, "heif/photo.avif", "-A", "-p", "threads=4", "-q", "60")
    ok_image("heif/photo.avif", "avif", 1600, 1200, "photo-baseline.jpg as AVIF, quality 60, nclx colour")
    # An nclx box whose transfer (512) no standard has: libheif fills in the profile and answers an
    # error (found by fuzz-heif: the profile was not freed). Drawn as sRGB.
    avif = bytearray(read("heif/photo.avif"))
    at = avif.find(b"colrnclx")
    assert at > 0 and avif.count(b"colrnclx") == 1, "one nclx colr box"
    avif[at + 10:at + 12] = struct.pack(">H", 512)
    write("heif/unknown-transfer.avif", bytes(avif))
    ok_image("heif/unknown-transfer.avif", "avif", 1600, 1200,
             "photo.avif with its nclx transfer characteristics patched to 512, a code no standard has")
    heif_enc(rgba, "heif/alpha.avif", "-A", "-p", "threads=4", "-q", "60")
    ok_image("heif/alpha.avif", "avif", 200, 150, "png/rgba8.png as AVIF with an alpha auxiliary image")
    heif_enc(os.path.join(ROOT, "colour", "display-p3.png"), "colour/display-p3.heic", "-q", "90")
    ok_image("colour/display-p3.heic", "heic", 1536, 1024,
             "colour/display-p3.png as HEIC, quality 90, with its Display P3 ICC profile (colr prof)")
    # The same pixels described by an nclx box only, no ICC profile: the renderer makes the
    # profile from the primaries. heif-enc 1.15 writes an nclx box of "unspecified" primaries
    # whatever it is asked, so its two codes are patched in place (same length: no offset moves).
    untagged = os.path.join(TMP, "display-p3-untagged.png")
    magick(os.path.join(ROOT, "colour", "display-p3.png"), "+profile", "*", untagged)
    heif_enc(untagged, "colour/display-p3-nclx.avif", "-A", "-p", "threads=4", "-q", "90")
    avif = bytearray(read("colour/display-p3-nclx.avif"))
    at = avif.find(b"colrnclx")
    assert at > 0 and avif.count(b"colrnclx") == 1, "one nclx colr box"
    avif[at + 8:at + 12] = struct.pack(">HH", 12, 13)  # colour primaries: Display P3; transfer: sRGB
    write("colour/display-p3-nclx.avif", bytes(avif))
    ok_image("colour/display-p3-nclx.avif", "avif", 1536, 1024,
             "colour/display-p3.png's pixels as AVIF with an nclx box saying Display P3 (primaries 12, "
             "transfer 13) and no ICC profile")

    heic = read("heif/photo.heic")
    write("corrupt/truncated.heic", heic[:len(heic) * 2 // 5])
    record("corrupt/truncated.heic", "heic", "error:heic", None, "first 40% of heif/photo.heic")
    mdat = next(b for b in bmff_boxes(heic, 0, len(heic)) if b[1] == b"mdat")
    damaged = bytearray(heic)
    rng = random.Random(42)
    for offset in range(mdat[0] + 8, mdat[0] + mdat[2]):
        damaged[offset] = rng.randrange(256)
    write("corrupt/damaged.heic", bytes(damaged))
    record("corrupt/damaged.heic", "heic", "either", None,
           "heif/photo.heic with its mdat payload random (boxes intact)")
    avif = read("heif/photo.avif")
    write("corrupt/truncated.avif", avif[:len(avif) * 2 // 5])
    record("corrupt/truncated.avif", "avif", "error:avif", None, "first 40% of heif/photo.avif")
    huge = bytearray(heic)
    _, _, ipco, _ = heif_meta(heic)
    for pos, kind, size in bmff_boxes(heic, ipco[0] + 8, ipco[0] + ipco[2]):
        if kind == b"ispe":
            struct.pack_into(">II", huge, pos + 12, 20000, 20000)
    write("corrupt/huge.heic", bytes(huge))
    record("corrupt/huge.heic", "heic", "error:exceeds the 100-megapixel limit", None,
           "heif/photo.heic with its ispe saying 20000x20000 (400 MP)")


# ---------------------------------------------------------------- svg

SVG_NS = 'xmlns="http://www.w3.org/2000/svg"'
XLINK_NS = 'xmlns:xlink="http://www.w3.org/1999/xlink"'

SHAPES_SVG = """<?xml version="1.0" encoding="UTF-8"?>
<svg %s width="400" height="300" viewBox="0 0 400 300">
  <rect x="0" y="0" width="200" height="300" fill="#dc1e1e"/>
  <rect x="200" y="0" width="200" height="300" fill="#1e3cdc"/>
  <circle cx="200" cy="150" r="60" fill="#f0d21e" stroke="#141414" stroke-width="6"/>
</svg>
""" % SVG_NS


def make_svg():
    """SVG documents written here as text; the hostile ones must neither escape nor hang."""
    def svg(rel, text, outcome, size, note):
        write(rel, text.encode("utf-8"))
        if outcome == "ok":
            # A drawing fills the box, as a PDF page does: its longer side is 1024.
            record(rel, "svg", "ok", fit_page(*size), note)
        else:
            record(rel, "svg", outcome, None, note)

    # Left half red (220,30,30), right half blue, a yellow disc in the middle.
    svg("svg/shapes.svg", SHAPES_SVG, "ok", (400, 300),
        "400x300: left half red #dc1e1e, right half blue #1e3cdc, yellow disc in the middle")
    # Larger than the box: drawn at 1024x768, not at 4000x3000 and then scaled (a smaller one is
    # drawn larger: every drawing fills the box).
    svg("svg/large.svg", """<svg %s width="4000" height="3000" viewBox="0 0 400 300">
  <rect width="400" height="300" fill="#1e3cdc"/>
  <circle cx="200" cy="150" r="120" fill="#f0d21e"/>
</svg>
""" % SVG_NS, "ok", (4000, 3000), "width 4000 height 3000: blue with a yellow disc, fitted to 1024x768")
    # No width or height: the intrinsic size comes from the viewBox.
    svg("svg/viewbox-only.svg", """<svg %s viewBox="0 0 800 600">
  <rect width="800" height="600" fill="#1ea03c"/>
  <rect x="100" y="100" width="600" height="400" fill="#ffffff"/>
</svg>
""" % SVG_NS, "ok", (800, 600), "viewBox 0 0 800 600 only: 800x600, green frame around white")
    # Text needs a font: a generic family, found by fontconfig.
    svg("svg/text.svg", """<?xml version="1.0" encoding="UTF-8"?>
<svg %s width="600" height="200" viewBox="0 0 600 200">
  <rect width="600" height="200" fill="#ffffff"/>
  <text x="300" y="90" font-family="sans-serif" font-size="48" text-anchor="middle"
        fill="#141414">Hello, Glance</text>
  <text x="300" y="150" font-family="sans-serif" font-size="24" text-anchor="middle"
        fill="#1e3cdc">caf\u00e9 \u00b7 na\u00efve \u00b7 \u00c5ngstr\u00f6m</text>
</svg>
""" % SVG_NS, "ok", (600, 200), "600x200 white, two lines of sans-serif text (UTF-8, accents)")
    # gzip-compressed SVG (mtime 0: no timestamp).
    write("svg/gzipped.svgz", gzip.compress(SHAPES_SVG.encode(), 9, mtime=0))
    record("svg/gzipped.svgz", "svg", "ok", fit_page(400, 300), "svg/shapes.svg gzip-compressed")

    # References outside the document: none may be read or fetched, so the thumbnail is all white.
    svg("hostile/svg-external-image.svg", """<?xml version="1.0" encoding="UTF-8"?>
<svg %s %s width="300" height="200" viewBox="0 0 300 200">
  <style>@import url("http://127.0.0.1:9/evil.css"); @import url("file:///etc/passwd");</style>
  <rect width="300" height="200" fill="#ffffff"/>
  <image href="/etc/passwd" x="0" y="0" width="300" height="200"/>
  <image href="file:///etc/hostname" x="0" y="0" width="300" height="200"/>
  <image xlink:href="http://127.0.0.1:9/x.png" x="0" y="0" width="300" height="200"/>
  <image href="../png/rgb8.png" x="0" y="0" width="300" height="200"/>
  <use href="other.svg#a"/>
  <use xlink:href="file:///etc/passwd#a"/>
</svg>
""" % (SVG_NS, XLINK_NS), "ok", (300, 200),
        "white 300x200 with images, uses and @imports of local files, file: and http: URLs "
        "(../png/rgb8.png exists): all must be ignored, the thumbnail is all white")
    # Billion laughs: 10 levels of 10 entity references (10^9 'lol's).
    entities = '  <!ENTITY lol0 "lol">\n' + "".join(
        '  <!ENTITY lol%d "%s">\n' % (i, ("&lol%d;" % (i - 1)) * 10) for i in range(1, 10))
    svg("hostile/svg-entity-bomb.svg", """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE svg [
%s]>
<svg %s width="200" height="100"><text x="0" y="50">&lol9;</text></svg>
""" % (entities, SVG_NS), "either", None, "billion laughs: nine levels of ten entity references")
    # Deep nesting: a recursive parser or renderer runs out of stack.
    depth = 25000
    svg("hostile/svg-deep-nesting.svg", '<svg %s width="100" height="100">' % SVG_NS + "<g>" * depth
        + '<rect width="100" height="100" fill="#dc1e1e"/>' + "</g>" * depth + "</svg>\n", "either", None,
        "25,000 nested <g> elements around one rect")
    # A blur far bigger than any surface, on a 100000x100000 document.
    svg("hostile/svg-huge-filter.svg", """<svg %s width="100000" height="100000" viewBox="0 0 100000 100000">
  <filter id="f" x="-1" y="-1" width="3" height="3"><feGaussianBlur stdDeviation="10000"/></filter>
  <rect width="100000" height="100000" fill="#dc1e1e" filter="url(#f)"/>
</svg>
""" % SVG_NS, "either", None, "100000x100000 with a feGaussianBlur stdDeviation 10000 on a rect covering it")
    # <use> bomb: each level uses the one below ten times, 10^10 rects at the top.
    levels = ['    <rect id="u0" width="1" height="1" fill="#dc1e1e"/>']
    for i in range(1, 11):
        levels.append('    <g id="u%d">%s</g>' % (i, "".join('<use href="#u%d" x="%d"/>' % (i - 1, j)
                                                       for j in range(10))))
    svg("hostile/svg-use-bomb.svg", """<svg %s width="200" height="200">
  <defs>
%s
  </defs>
  <use href="#u10"/>
</svg>
""" % (SVG_NS, "\n".join(levels)), "either", None, "ten levels of ten <use> each: 10^10 rects")

    svg("corrupt/broken.svg", '<svg %s width="100" height="100"><rect' % SVG_NS, "error:svg", None,
        "unterminated: ends inside a <rect tag")


# ---------------------------------------------------------------- media

FFMPEG = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
# Same bytes on every run: no encoder strings or dates, one thread per encoder.
EXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1",
         "-threads", "1"]
X265_EXACT = "pools=none:frame-threads=1:log-level=error"


def ffmpeg(*args):
    run(*FFMPEG, *args)


def srgb_to_linear(v):
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def pq_oetf(nits):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    y = (max(nits, 0) / 10000) ** m1
    return ((c1 + c2 * y) / (1 + c3 * y)) ** m2


def hlg_oetf(e):
    a, b, c = 0.17883277, 0.28466892, 0.55991073
    return math.sqrt(3 * e) if e <= 1 / 12 else a * math.log(12 * e - b) + c


def hdr_pixels(rgb, w, h, transfer):
    """An 8-bit sRGB picture's pixels as BT.2100's non-linear RGB (0 to 1), by BT.2100 and
    BT.2408: SDR white at 203 cd/m2, BT.709's primaries turned into BT.2020's, then PQ, or HLG
    for a 1000 cd/m2 display (its inverse OOTF, system gamma 1.2)."""
    to2020 = ((0.6274, 0.3293, 0.0433), (0.0691, 0.9195, 0.0114), (0.0164, 0.0880, 0.8956))
    lut = [srgb_to_linear(v / 255) for v in range(256)]
    for i in range(w * h):
        lin = [lut[c] for c in rgb[3 * i:3 * i + 3]]
        light = [203 * sum(to2020[r][k] * lin[k] for k in range(3)) for r in range(3)]
        if transfer == "pq":
            yield tuple(pq_oetf(v) for v in light)
        else:
            yd = 0.2627 * light[0] + 0.6780 * light[1] + 0.0593 * light[2]
            scene = (yd / 1000) ** (1 / 1.2) if yd > 0 else 0
            gain = 1000 * scene ** 0.2 if scene > 0 else 1
            yield tuple(hlg_oetf(min(1.0, v / gain)) for v in light)


def hdr_frame(rgb, w, h, transfer):
    """An 8-bit sRGB picture as one 10-bit BT.2020 4:2:0 frame in limited range (hdr_pixels)."""
    ys, cbs, crs = [], [], []
    for r, g, b in hdr_pixels(rgb, w, h, transfer):
        y = 0.2627 * r + 0.6780 * g + 0.0593 * b
        ys.append(y)
        cbs.append((b - y) / 1.8814)
        crs.append((r - y) / 1.4746)
    luma = b"".join(struct.pack("<H", rnd(64 + 876 * y)) for y in ys)
    chroma = []
    for plane in (cbs, crs):
        values = []
        for cy in range(h // 2):
            for cx in range(w // 2):
                at = [(2 * cy + dy) * w + 2 * cx + dx for dy in (0, 1) for dx in (0, 1)]
                values.append(struct.pack("<H", rnd(512 + 896 * sum(plane[a] for a in at) / 4)))
        chroma.append(b"".join(values))
    return luma + chroma[0] + chroma[1]


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(maxsplit=4)
    return int(parts[1]), int(parts[2]), parts[4]


def tkhd_rotate(data, clockwise):
    """The display matrix of the first track's tkhd (a mov written by ffmpeg, moov at the end) set
    to turn the picture `clockwise` degrees."""
    moov = next(b for b in bmff_boxes(data, 0, len(data)) if b[1] == b"moov")
    trak = bmff_child(data, moov, b"trak")
    tkhd = bmff_child(data, trak, b"tkhd")
    version = data[tkhd[0] + 8]
    matrix_at = tkhd[0] + 8 + 4 + (32 if version == 1 else 20) + 8 + 8
    one, minus = 0x10000, 0xFFFF0000
    a, b, c, d = {90: (0, one, minus, 0), 180: (minus, 0, 0, minus), 270: (0, minus, one, 0)}[clockwise]
    matrix = struct.pack(">9I", a, b, 0, c, d, 0, 0, 0, 0x40000000)
    return data[:matrix_at] + matrix + data[matrix_at + 36:]


def add_dolby_vision(data, profile, compatibility):
    """An HEVC mp4 (moov after mdat, as ffmpeg writes it) with a dvcC box, Dolby Vision's decoder
    configuration (version 1.0, level 6, RPU and base layer present, no enhancement layer), added
    to its hvc1 sample entry after hvcC; the boxes around it grow by its 32 bytes."""
    payload = struct.pack(">BBHB", 1, 0, profile << 9 | 6 << 3 | 1 << 2 | 1, compatibility << 4) + bytes(19)
    box = struct.pack(">I4s", 8 + len(payload), b"dvcC") + payload
    moov = next(b for b in bmff_boxes(data, 0, len(data)) if b[1] == b"moov")
    assert moov[0] + moov[2] == len(data), "moov last: no chunk offset moves"
    trak = bmff_child(data, moov, b"trak")
    mdia = bmff_child(data, trak, b"mdia")
    minf = bmff_child(data, mdia, b"minf")
    stbl = bmff_child(data, minf, b"stbl")
    stsd = bmff_child(data, stbl, b"stsd")
    entry = bmff_boxes(data, stsd[0] + 16, stsd[0] + stsd[2])[0]
    assert entry[1] in (b"hvc1", b"hev1")
    hvcc = next(b for b in bmff_boxes(data, entry[0] + 86, entry[0] + entry[2]) if b[1] == b"hvcC")
    at = hvcc[0] + hvcc[2]
    patched = bytearray(data[:at] + box + data[at:])
    for offset, _, size in (moov, trak, mdia, minf, stbl, stsd, entry):
        patched[offset:offset + 4] = struct.pack(">I", size + len(box))
    return bytes(patched)


def ogg_crc(data):
    crc = 0
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def ogg_pages(data):
    pos, pages = 0, []
    while pos < len(data):
        assert data[pos:pos + 4] == b"OggS"
        count = data[pos + 26]
        lacing = data[pos + 27:pos + 27 + count]
        end = pos + 27 + count + sum(lacing)
        pages.append(bytearray(data[pos:end]))
        pos = end
    return pages


def wave_with_picture(wave, picture, mime):
    """`wave` (a RIFF WAVE form) with an `id3 ` chunk appended: an ID3v2.3 tag holding `picture`
    as its APIC front cover, as tag editors write one into a WAV."""
    def syncsafe(n):
        return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
    apic = b"\x00" + mime + b"\x00" + b"\x03" + b"cover\x00" + picture
    frame = b"APIC" + struct.pack(">I", len(apic)) + b"\x00\x00" + apic
    tag = b"ID3\x03\x00\x00" + syncsafe(len(frame)) + frame
    chunk = b"id3 " + struct.pack("<I", len(tag)) + tag + (b"\x00" if len(tag) % 2 else b"")
    body = wave[12:] + chunk
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WAVE" + body


def rf64_of(wave):
    """A RIFF WAVE form rewritten as RF64 (EBU Tech 3306): a ds64 chunk first with the 64-bit sizes
    of the form and its data chunk, whose 32-bit sizes become 0xFFFFFFFF."""
    chunks, at = [], 12
    while at + 8 <= len(wave):
        name, size = wave[at:at + 4], struct.unpack("<I", wave[at + 4:at + 8])[0]
        chunks.append((name, wave[at + 8:at + 8 + size]))
        at += 8 + size + (size & 1)
    data_size = next(len(body) for name, body in chunks if name == b"data")
    parts = []
    for name, body in chunks:
        size = 0xFFFFFFFF if name == b"data" else len(body)
        parts.append(name + struct.pack("<I", size) + body + (b"\x00" if len(body) % 2 else b""))
    rest = b"".join(parts)
    ds64_body = struct.pack("<QQQI", 0, data_size, 0, 0)
    ds64 = b"ds64" + struct.pack("<I", len(ds64_body)) + ds64_body
    form_size = 4 + len(ds64) + len(rest)
    ds64_body = struct.pack("<QQQI", form_size, data_size, 0, 0)
    ds64 = b"ds64" + struct.pack("<I", len(ds64_body)) + ds64_body
    return b"RF64" + struct.pack("<I", 0xFFFFFFFF) + b"WAVE" + ds64 + rest


def opus_with_picture(data, picture, mime, w, h):
    """An Ogg Opus file whose OpusTags (its second page, one packet) gain a METADATA_BLOCK_PICTURE
    comment: a FLAC picture block (type 3, front cover) in base64, as Vorbis comments carry it."""
    import base64
    pages = ogg_pages(data)
    tags = pages[1]
    count = tags[26]
    packet = bytes(tags[27 + count:])
    assert packet.startswith(b"OpusTags") and sum(tags[27:27 + count]) == len(packet) and tags[27 + count - 1] < 255
    block = (struct.pack(">II", 3, len(mime)) + mime + struct.pack(">I", 0)
             + struct.pack(">IIIII", w, h, 24, 0, len(picture)) + picture)
    comment = b"METADATA_BLOCK_PICTURE=" + base64.b64encode(block)
    vendor_length = struct.unpack("<I", packet[8:12])[0]
    at = 12 + vendor_length
    comments = struct.unpack("<I", packet[at:at + 4])[0]
    packet = packet[:at] + struct.pack("<I", comments + 1) + packet[at + 4:] + struct.pack("<I", len(comment)) + comment
    assert len(packet) < 255 * 255
    lacing = bytes([255] * (len(packet) // 255) + [len(packet) % 255])
    page = bytearray(tags[:26]) + bytes([len(lacing)]) + lacing + packet
    page[22:26] = b"\0\0\0\0"
    page[22:26] = struct.pack("<I", ogg_crc(page))
    return b"".join(bytes(p) for p in [pages[0], page] + pages[2:])


def patch_box_sizes(data, width, height):
    """A QuickTime/MP4 file's video sizes rewritten to width x height in its headers only: the
    track header's (16.16 fixed point) and the first video sample entry's."""
    data = bytearray(data)
    at = data.index(b"tkhd")
    version = data[at + 4]
    # tkhd: version/flags, times and ids, then the matrix; width and height are its last 8 bytes.
    size = struct.unpack(">I", data[at - 4:at])[0]
    end = at - 4 + size
    data[end - 8:end] = struct.pack(">II", width << 16, height << 16)
    at = data.index(b"stsd")
    entry = at + 12  # size of stsd's own header (version/flags, count) past its type
    # A visual sample entry: size, format, 6 reserved, data reference, 16 bytes, then width, height.
    data[entry + 4 + 4 + 6 + 2 + 16:entry + 4 + 4 + 6 + 2 + 20] = struct.pack(">HH", width, height)
    assert version in (0, 1)
    return bytes(data)


def make_media_hostile():
    """Videos whose headers lie or whose codecs are old or new."""
    made = os.path.join(TMP, "large-mjpeg.mov")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=2048x2048:rate=1:duration=1", "-frames:v", "1", "-c:v", "mjpeg",
           "-q:v", "8", *EXACT, made)
    with open(made, "rb") as f:
        write("media/lying-header.mov", patch_box_sizes(f.read(), 64, 64))
    ok_image("media/lying-header.mov", "mov", 64, 64,
             "QuickTime, one 2048x2048 MJPEG frame whose track header and sample entry say 64x64: held to "
             "--max-pixels by the frame's own size (the tests give a 1-megapixel limit)")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=176x144:rate=15:duration=2", "-c:v", "h263", "-g", "15",
           *EXACT, out("media/h263.3gp"))
    # H.266 in its MP4 sample entry (vvc1), which this FFmpeg cannot decode: one-frame.mp4's entry
    # renamed and its frame's bytes scrambled, so that nothing can take it for H.264.
    clip = bytearray(read("media/one-frame.mp4"))
    at = clip.index(b"avc1", clip.index(b"stsd"))
    clip[at:at + 4] = b"vvc1"
    data = clip.index(b"mdat") + 4
    scramble = random.Random(266)
    for index in range(data, len(clip) - 8 if clip.index(b"moov") < data else clip.index(b"moov") - 8):
        clip[index] = scramble.randrange(256)
    write("media/vvc.mp4", bytes(clip))
    record("media/vvc.mp4", "mp4", "error:vvc1", None,
           "an MP4 whose video is H.266 (sample entry vvc1), which FFmpeg here does not decode: the reason "
           "names the codec by the file's own name for it")
    ok_image("media/h263.3gp", "mp4", 192, 144,
             "H.263 in 3GP, as old phones recorded: 176x144 of 12:11 pixels (shown 192x144), 2 s")


def make_media():
    """Videos and sound files made by ffmpeg (see the module's docstring)."""
    photo = os.path.join(ROOT, "jpeg", "photo-baseline.jpg")
    # A landscape clip whose first second fades in from black (its first key frame is black):
    # the thumbnail must be a later key frame. Audio beside it.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=4", "-f", "lavfi", "-i",
           "sine=frequency=440:duration=4:sample_rate=44100", "-vf", "fade=in:0:25", "-c:v", "libx264",
           "-pix_fmt", "yuv420p", "-g", "25", "-c:a", "aac", "-shortest", *EXACT, out("media/fade-in.mp4"))
    ok_image("media/fade-in.mp4", "mp4", 320, 180,
             "H.264 + AAC, 4 s, a key frame every second, the first second fading in from black")
    # Portrait: stored landscape, a display matrix turning it 90 degrees clockwise.
    quarter = quarter_ppm(320, 180)
    ffmpeg("-loop", "1", "-framerate", "25", "-i", quarter, "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv444p",
           "-g", "25", *EXACT, os.path.join(TMP, "quarter.mov"))
    with open(os.path.join(TMP, "quarter.mov"), "rb") as f:
        write("media/portrait.mov", tkhd_rotate(f.read(), 90))
    ok_image("media/portrait.mov", "mov", 180, 320,
             "stored 320x180 with its top-left quarter red, a display matrix turning it 90 degrees clockwise "
             "(as phones store portrait clips): red lands top-right of the 180x320 thumbnail")
    # Anamorphic: 240x180 coded, pixels 4:3 wide.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=240x180:rate=25:duration=2", "-vf", "setsar=4/3",
           "-c:v", "libx264", "-pix_fmt", "yuv420p", *EXACT, out("media/anamorphic.mkv"))
    ok_image("media/anamorphic.mkv", "mkv", 320, 180, "240x180 coded with a 4:3 sample aspect ratio: 320x180 shown")
    # HDR made from an SDR picture: the SDR picture is what the thumbnail must look like.
    still = os.path.join(TMP, "still.ppm")
    run(CONVERT, photo, "-resize", "320x240!", "-strip", still)
    w, h, rgb = read_ppm(still)
    magick(still, out("media/hdr-reference.png"))
    ok_image("media/hdr-reference.png", "png", w, h, "photo-baseline.jpg at 320x240: what the HDR clips show")
    tags = {"pq": ["-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc",
                   "-color_range", "tv"],
            "hlg": ["-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc",
                    "-color_range", "tv"]}
    for transfer, name, extra in (("pq", "media/hdr10.mp4", ":max-cll=1000,400"), ("hlg", "media/hlg.mkv", "")):
        frame = hdr_frame(rgb, w, h, transfer)
        subprocess.run([*FFMPEG, "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "%dx%d" % (w, h),
                        "-framerate", "25", *tags[transfer], "-i", "-", "-c:v", "libx265", "-pix_fmt",
                        "yuv420p10le", "-x265-params", X265_EXACT + ":crf=12" + extra, *tags[transfer], *EXACT,
                        out(name)], input=frame * 25, check=True)
        ok_image(name, {"pq": "mp4", "hlg": "mkv"}[transfer], w, h,
                 "HEVC 10-bit, BT.2020, %s: hdr-reference.png's pixels by BT.2100 (SDR white at 203 cd/m2)"
                 % ("PQ, MaxCLL 1000" if transfer == "pq" else "HLG"))
    hdr10 = read("media/hdr10.mp4")
    write("media/dolby-vision-8.mp4", add_dolby_vision(hdr10, 8, 1))
    ok_image("media/dolby-vision-8.mp4", "mp4", w, h,
             "hdr10.mp4 with a dvcC box saying Dolby Vision profile 8.1: an HDR10-compatible base layer, shown")
    write("media/dolby-vision-5.mp4", add_dolby_vision(hdr10, 5, 0))
    record("media/dolby-vision-5.mp4", "mp4", "error:dolby vision profile 5", None,
           "hdr10.mp4 with a dvcC box saying Dolby Vision profile 5: no compatible base layer, refused")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-c:v", "libvpx-vp9", "-b:v", "150k",
           *EXACT, out("media/vp9.webm"))
    ok_image("media/vp9.webm", "webm", 320, 180, "VP9 in WebM")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-c:v", "mpeg4", "-q:v", "5", *EXACT,
           out("media/mpeg4.avi"))
    ok_image("media/mpeg4.avi", "avi", 320, 180, "MPEG-4 part 2 in AVI")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-c:v", "libx264", "-pix_fmt",
           "yuv420p", *EXACT, "-f", "mpegts", out("media/h264.ts"))
    ok_image("media/h264.ts", "mpegts", 320, 180, "H.264 in an MPEG transport stream")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-c:v", "mpeg2video", "-q:v", "4",
           *EXACT, "-f", "vob", out("media/mpeg2.vob"))
    ok_image("media/mpeg2.vob", "mpg", 320, 180, "MPEG-2 video in an MPEG-2 program stream, as on a DVD")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-c:v", "mpeg1video", "-q:v", "4",
           *EXACT, "-f", "mpeg", out("media/mpeg1.mpg"))
    ok_image("media/mpeg1.mpg", "mpg", 320, 180, "MPEG-1 video in an MPEG-1 system stream, as on a video CD")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-f", "lavfi", "-i",
           "sine=frequency=440:duration=2", "-c:v", "wmv2", "-c:a", "wmav2", "-shortest", *EXACT, "-f", "asf",
           out("media/windows-media.wmv"))
    ok_image("media/windows-media.wmv", "asf", 320, 180, "Windows Media Video 8 and Audio in ASF, as Windows exported them")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-f", "lavfi", "-i",
           "sine=frequency=440:duration=2", "-c:v", "flv1", "-c:a", "libmp3lame", "-ar", "44100", "-shortest",
           *EXACT, "-f", "flv", out("media/flash.flv"))
    ok_image("media/flash.flv", "flv", 320, 180, "Sorenson H.263 and MP3 in FLV, as Flash video sites served them")

    # Codecs and geometry besides H.264: AV1, 8-bit HEVC, 10-bit H.264; turned 180 and 270
    # degrees; a clip of one frame.
    pattern = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=1"]
    ffmpeg(*pattern, "-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "40", "-g", "25", *EXACT, out("media/av1.mp4"))
    ok_image("media/av1.mp4", "mp4", 320, 180, "AV1 (libaom) in MP4, 1 s")
    ffmpeg(*pattern, "-c:v", "libx265", "-x265-params", X265_EXACT, "-tag:v", "hvc1", *EXACT, out("media/hevc.mp4"))
    ok_image("media/hevc.mp4", "mp4", 320, 180, "8-bit HEVC in MP4 (hvc1), 1 s")
    ffmpeg(*pattern, "-c:v", "libx264", "-pix_fmt", "yuv420p10le", *EXACT, out("media/h264-10bit.mkv"))
    ok_image("media/h264-10bit.mkv", "mkv", 320, 180, "10-bit H.264 (High 10) in Matroska")
    for turn, size in ((180, (320, 180)), (270, (180, 320))):
        with open(os.path.join(TMP, "quarter.mov"), "rb") as f:
            write("media/turned-%d.mov" % turn, tkhd_rotate(f.read(), turn))
        corner = {180: "bottom-right", 270: "bottom-left"}[turn]
        ok_image("media/turned-%d.mov" % turn, "mov", *size,
                 "the red-quarter clip turned %d degrees by its display matrix: red lands %s" % (turn, corner))
    ffmpeg(*pattern, "-frames:v", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", *EXACT, out("media/one-frame.mp4"))
    ok_image("media/one-frame.mp4", "mp4", 320, 180, "a clip of one frame")
    # Colour bars of known colours, coded with BT.709's matrix in limited range and with BT.601's
    # in full range (each tagged so): the decoder must undo each.
    bars = [(200, 40, 40), (40, 180, 60), (50, 60, 200), (128, 128, 128)]
    bar_rows = [b"".join(bytes(bars[x * 4 // 320]) for x in range(320))] * 180
    bars_ppm = os.path.join(TMP, "bars.ppm")
    ppm(bars_ppm, 320, 180, bar_rows)
    for name, matrix, tag, rng in (("bars-709-limited.mp4", "bt709", "bt709", "tv"),
                                   ("bars-601-full.mp4", "bt601", "smpte170m", "pc")):
        ffmpeg("-loop", "1", "-framerate", "25", "-i", bars_ppm, "-t", "1", "-vf",
               "scale=out_color_matrix=%s:out_range=%s" % (matrix, rng), "-c:v", "libx264", "-pix_fmt", "yuv444p",
               "-qp", "0", "-colorspace", tag, "-color_range", rng, *EXACT, out("media/" + name))
        ok_image("media/" + name, "mp4", 320, 180,
                 "four bars (200,40,40) (40,180,60) (50,60,200) (128,128,128), lossless H.264 4:4:4, %s matrix, "
                 "%s range, tagged" % (matrix.upper(), "limited" if rng == "tv" else "full"))
    # A frame size past the pixel limit in the container's header (Matroska's PixelWidth and
    # PixelHeight set to 30000): refused before a frame is decoded.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x256:rate=25:duration=1", "-c:v", "libx264", "-pix_fmt",
           "yuv420p", *EXACT, os.path.join(TMP, "sides.mkv"))
    with open(os.path.join(TMP, "sides.mkv"), "rb") as f:
        huge = bytearray(f.read())
    for element, value in ((b"\xb0\x82", 320), (b"\xba\x82", 256)):
        at = huge.find(element + struct.pack(">H", value))
        assert at > 0
        huge[at + 2:at + 4] = struct.pack(">H", 30000)
    write("corrupt/huge-frame.mkv", bytes(huge))
    record("corrupt/huge-frame.mkv", "mkv", "error:exceeds the 100-megapixel limit", None,
           "a 320x256 H.264 clip in Matroska with its track's PixelWidth and PixelHeight patched to 30000")

    # Sound: covers of each kind, and none.
    cover_png = os.path.join(ROOT, "png", "rgb8.png")
    tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=44100"]
    ffmpeg(*tone, "-i", photo, "-map", "0", "-map", "1", "-c:a", "libmp3lame", "-c:v", "copy", "-id3v2_version", "3",
           "-metadata:s:v", "comment=Cover (front)", "-disposition:v", "attached_pic", *EXACT, out("media/cover.mp3"))
    ok_image("media/cover.mp3", "mp3", 1600, 1200, "MP3 with photo-baseline.jpg as its ID3 APIC front cover")
    ffmpeg(*tone, "-i", cover_png, "-map", "0", "-map", "1", "-c:a", "flac", "-c:v", "copy",
           "-metadata:s:v", "comment=Cover (front)", "-disposition:v", "attached_pic", *EXACT, out("media/cover.flac"))
    ok_image("media/cover.flac", "flac", 200, 150, "FLAC with png/rgb8.png as its PICTURE block")
    ffmpeg(*tone, "-i", photo, "-map", "0", "-map", "1", "-c:a", "aac", "-c:v", "copy", "-disposition:v",
           "attached_pic", *EXACT, out("media/cover.m4a"))
    ok_image("media/cover.m4a", "m4a", 1600, 1200, "M4A with photo-baseline.jpg as its covr")
    ffmpeg(*tone, "-c:a", "libopus", *EXACT, os.path.join(TMP, "plain.opus"))
    with open(os.path.join(TMP, "plain.opus"), "rb") as f:
        plain = f.read()
    write("media/no-cover.opus", plain)
    record("media/no-cover.opus", "ogg", "error:no cover picture", None, "Opus in Ogg without a picture")
    with open(cover_png, "rb") as f:
        write("media/cover.opus", opus_with_picture(plain, f.read(), b"image/png", 200, 150))
    ok_image("media/cover.opus", "ogg", 200, 150,
             "no-cover.opus with png/rgb8.png as a METADATA_BLOCK_PICTURE comment (written here)")
    ffmpeg(*tone, "-c:a", "flac", *EXACT, out("media/no-cover.flac"))
    record("media/no-cover.flac", "flac", "error:no cover picture", None, "FLAC without a PICTURE block")
    ffmpeg(*tone, "-i", cover_png, "-map", "0", "-map", "1", "-c:a", "pcm_s16be", "-c:v", "copy", "-write_id3v2", "1",
           "-disposition:v", "attached_pic", *EXACT, "-f", "aiff", out("media/cover.aiff"))
    ok_image("media/cover.aiff", "aiff", 200, 150, "AIFF with png/rgb8.png as the APIC of its ID3 chunk")
    ffmpeg(*tone, "-c:a", "pcm_s16be", *EXACT, "-f", "aiff", out("media/no-cover.aiff"))
    record("media/no-cover.aiff", "aiff", "error:no cover picture", None, "AIFF without an ID3 chunk")
    ffmpeg(*tone, "-c:a", "pcm_s16le", *EXACT, os.path.join(TMP, "plain.wav"))
    with open(os.path.join(TMP, "plain.wav"), "rb") as f:
        plain_wave = f.read()
    write("media/no-cover.wav", plain_wave)
    record("media/no-cover.wav", "wav", "error:no cover picture", None, "16-bit PCM in a RIFF WAVE form, no picture")
    with open(cover_png, "rb") as f:
        write("media/cover.wav", wave_with_picture(plain_wave, f.read(), b"image/png"))
    ok_image("media/cover.wav", "wav", 200, 150,
             "no-cover.wav with png/rgb8.png in an ID3 APIC frame of an `id3 ` chunk (written here)")
    # RF64: the 64-bit form a recorder writes past 4 GB (sizes in its ds64 chunk, 0xFFFFFFFF in RIFF's).
    write("media/rf64.wav", rf64_of(wave_with_picture(plain_wave, read("jpeg/photo-baseline.jpg"), b"image/jpeg")))
    ok_image("media/rf64.wav", "wav", 1600, 1200, "cover.wav's form as RF64 with a ds64 chunk, photo-baseline.jpg as its cover")

    # Damaged and hostile.
    clip = read("media/fade-in.mp4")
    write("corrupt/truncated.mp4", clip[:len(clip) * 3 // 10])
    record("corrupt/truncated.mp4", "mp4", "error:mp4 video", None,
           "first 30% of media/fade-in.mp4 (its moov box, at the end, is lost)")
    song = read("media/cover.flac")
    write("corrupt/truncated.flac", song[:len(song) // 20])
    record("corrupt/truncated.flac", "flac", "error:truncated flac audio data", None,
           "first 5% of media/cover.flac: its PICTURE block ends early (FFmpeg says EIO: not a read error)")
    write("corrupt/bad-header.avi", b"RIFF\x10\x00\x00\x00AVI LIST" + bytes(range(256)) * 4)
    record("corrupt/bad-header.avi", "avi", "error:avi video", None, "a RIFF AVI form followed by noise")
    write("hostile/playlist.mp4", b"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nhttp://127.0.0.1:9/segment.ts\n"
          b"#EXTINF:10,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n")
    record("hostile/playlist.mp4", "text", "ok", fit_page(595, 842),
           "an HLS playlist naming a URL and a local file, named .mp4: text to Glance, never given to FFmpeg")
    write("hostile/concat.avi", b"ffconcat version 1.0\nfile /etc/passwd\nfile http://127.0.0.1:9/a.avi\n")
    record("hostile/concat.avi", "text", "ok", fit_page(595, 842),
           "an ffconcat list named .avi: text, never given to FFmpeg's concat demuxer")
    # Last: the hostile clips are made from one-frame.mp4, made above.
    make_media_hostile()


# ---------------------------------------------------------------- office

SOFFICE = ["soffice", "--headless", "--norestore"]
ODF_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
          'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
          'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
          'xmlns:xlink="http://www.w3.org/1999/xlink" '
          'xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" '
          'xmlns:ooo="http://openoffice.org/2004/office" '
          'xmlns:ooo-lib="http://openoffice.org/2004/office"')
# The port the hostile document's links name: the office test listens there and must see nothing.
TRAP_PORT = 38917
# Where the macro of office/macro.odt would write, were macros run.
MACRO_TARGET = "/tmp/glance-office-macro-ran"


def flat_odf(mimetype, styles, body, extra=""):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<office:document %s office:version="1.3" '
            'office:mimetype="%s">%s%s<office:body>%s</office:body></office:document>\n'
            % (ODF_NS, mimetype, extra, styles, body))


def soffice_convert(source, target_format, out_dir, name=None):
    """LibreOffice's own --convert-to, in a profile of its own (so it never meets a running one)."""
    profile = os.path.join(TMP, "soffice-profile")
    run(*SOFFICE, "-env:UserInstallation=file://" + profile, "--convert-to", target_format, "--outdir", out_dir,
        source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    made = os.path.join(out_dir, os.path.splitext(os.path.basename(source))[0] + "." + target_format.split(":")[0])
    if name:
        os.replace(made, os.path.join(out_dir, name))
        made = os.path.join(out_dir, name)
    return made


A4_PAGE = ('<office:automatic-styles><style:page-layout style:name="A4"><style:page-layout-properties '
           'fo:page-width="21cm" fo:page-height="29.7cm" fo:margin="2cm"/></style:page-layout>%s'
           '</office:automatic-styles><office:master-styles><style:master-page style:name="Standard" '
           'style:page-layout-name="A4"/></office:master-styles>')


def letter_fodt(extra_paragraphs=""):
    styles = A4_PAGE % (
        '<style:style style:name="Title" style:family="paragraph"><style:text-properties fo:font-size="28pt" '
        'fo:color="#1f4e99" fo:font-weight="bold"/></style:style>'
        '<style:style style:name="Break" style:family="paragraph"><style:paragraph-properties '
        'fo:break-before="page"/></style:style>'
        '<style:style style:name="Box" style:family="graphic"><style:graphic-properties draw:fill="solid" '
        'draw:fill-color="#c0392b" draw:stroke="none"/></style:style>')
    body = ('<office:text><text:p text:style-name="Title">Quarterly letter</text:p>'
            '<text:p>Dear reader, this letter has two pages. The first page starts with a blue title and a red '
            'box.<draw:rect text:anchor-type="paragraph" draw:style-name="Box" svg:x="0cm" svg:y="1cm" '
            'svg:width="8cm" svg:height="5cm"/></text:p>%s'
            '<text:p text:style-name="Break">Second page: the end.</text:p></office:text>' % extra_paragraphs)
    return flat_odf("application/vnd.oasis.opendocument.text", styles, body)


def sheet_fods(rows_per_sheet=((("Item", "Cost"), ("Paper", "12"), ("Ink", "40"), ("Total", "52")),)):
    sheets = []
    for name, rows in rows_per_sheet:
        cells = "".join("<table:table-row>%s</table:table-row>" % "".join(
            '<table:table-cell office:value-type="float" office:value="%s"><text:p>%s</text:p></table:table-cell>'
            % (v, v) if v.replace(".", "").isdigit() else
            '<table:table-cell office:value-type="string"><text:p>%s</text:p></table:table-cell>' % v
            for v in row) for row in rows)
        sheets.append('<table:table table:name="%s">%s</table:table>' % (name, cells))
    return flat_odf("application/vnd.oasis.opendocument.spreadsheet", "",
                    "<office:spreadsheet>%s</office:spreadsheet>" % "".join(sheets))


def deck_fodp(slides):
    styles = ('<office:automatic-styles><style:page-layout style:name="Wide"><style:page-layout-properties '
              'fo:page-width="28cm" fo:page-height="15.75cm" fo:margin="0cm"/></style:page-layout>'
              '<style:style style:name="Band" style:family="graphic"><style:graphic-properties draw:fill="solid" '
              'draw:fill-color="#2e8b57" draw:stroke="none"/></style:style></office:automatic-styles>'
              '<office:master-styles><style:master-page style:name="Default" style:page-layout-name="Wide"/>'
              '</office:master-styles>')
    pages = "".join(
        '<draw:page draw:name="%s" draw:master-page-name="Default">'
        '<draw:rect draw:style-name="Band" svg:x="0cm" svg:y="0cm" svg:width="28cm" svg:height="4cm"/>'
        '<draw:frame svg:x="2cm" svg:y="6cm" svg:width="24cm" svg:height="4cm"><draw:text-box>'
        '<text:p>%s</text:p></draw:text-box></draw:frame></draw:page>' % (title, title) for title in slides)
    return flat_odf("application/vnd.oasis.opendocument.presentation", styles,
                    "<office:presentation>%s</office:presentation>" % pages)


def drawing_fodg():
    styles = ('<office:automatic-styles><style:page-layout style:name="Square"><style:page-layout-properties '
              'fo:page-width="20cm" fo:page-height="20cm" fo:margin="0cm"/></style:page-layout>'
              '<style:style style:name="Disc" style:family="graphic"><style:graphic-properties draw:fill="solid" '
              'draw:fill-color="#f39c12" draw:stroke="none"/></style:style></office:automatic-styles>'
              '<office:master-styles><style:master-page style:name="Default" style:page-layout-name="Square"/>'
              '</office:master-styles>')
    body = ('<office:drawing><draw:page draw:name="Sun" draw:master-page-name="Default"><draw:ellipse '
            'draw:style-name="Disc" svg:x="5cm" svg:y="5cm" svg:width="10cm" svg:height="10cm"/></draw:page>'
            '</office:drawing>')
    return flat_odf("application/vnd.oasis.opendocument.graphics", styles, body)


def with_macro(entries):
    """An ODT's entries with a Basic library whose module, bound to the document's opening
    (`dom:load`), would write MACRO_TARGET: the package as LibreOffice writes one (Basic/...,
    listed in the manifest, the binding in content.xml's office:scripts)."""
    module = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD '
              'OfficeDocument 1.0//EN" "module.dtd">\n<script:module xmlns:script="http://openoffice.org/2000/script" '
              'script:name="Opening" script:language="StarBasic">Sub Opened\n  Dim n As Integer\n  n = FreeFile()\n'
              '  Open &quot;%s&quot; For Output As #n\n  Print #n, &quot;the macro ran&quot;\n  Close #n\nEnd Sub\n'
              '</script:module>' % MACRO_TARGET)
    container = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE library:libraries PUBLIC "-//OpenOffice.org//DTD '
                 'OfficeDocument 1.0//EN" "libraries.dtd">\n<library:libraries xmlns:library="http://openoffice.org/'
                 '2000/library" xmlns:xlink="http://www.w3.org/1999/xlink"><library:library library:name="Standard" '
                 'library:link="false"/></library:libraries>')
    library = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE library:library PUBLIC "-//OpenOffice.org//DTD '
               'OfficeDocument 1.0//EN" "library.dtd">\n<library:library xmlns:library="http://openoffice.org/2000/'
               'library" library:name="Standard" library:readonly="false" library:passwordprotected="false">'
               '<library:element library:name="Opening"/></library:library>')
    binding = ('<office:scripts xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" '
               'xmlns:xlink="http://www.w3.org/1999/xlink"><office:event-listeners><script:event-listener '
               'script:language="ooo:script" script:event-name="dom:load" xlink:type="simple" xlink:href="vnd.sun.'
               'star.script:Standard.Opening.Opened?language=Basic&amp;location=document"/></office:event-listeners>'
               '</office:scripts>')
    basic = [("Basic/script-lc.xml", container), ("Basic/Standard/script-lb.xml", library),
             ("Basic/Standard/Opening.xml", module)]
    made = []
    for info, data in entries:
        if info.filename == "content.xml":
            text = data.decode()
            start = text.index(">", text.index("<office:document-content")) + 1
            data = (text[:start] + binding + text[start:]).encode()
        if info.filename == "META-INF/manifest.xml":
            listed = "".join('<manifest:file-entry manifest:full-path="%s" manifest:media-type="text/xml"/>' % name
                             for name, _ in basic)
            data = data.decode().replace("</manifest:manifest>", listed + "</manifest:manifest>").encode()
        made.append((info, data))
    return made + [(name, text.encode()) for name, text in basic]


def zip_entries(path):
    with zipfile.ZipFile(path) as z:
        return [(i, z.read(i)) for i in z.infolist()]


def write_zip(rel, entries):
    """A ZIP of (name or ZipInfo, bytes): the mimetype of an ODF first and stored, as ODF asks."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in entries:
            name = info.filename if isinstance(info, zipfile.ZipInfo) else info
            stored = name == "mimetype"
            entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    write(rel, buffer.getvalue())


def zeros_entry(name, size):
    """A ZipInfo and `size` zero bytes: deflate makes about a thousandth of it."""
    return (name, bytes(size))


def make_office():
    """Office documents made by LibreOffice's own --convert-to from flat OpenDocument files written
    here, and hostile ones assembled with zipfile (see the module's docstring)."""
    work = os.path.join(TMP, "office")
    os.makedirs(work, exist_ok=True)
    os.makedirs(out("office"), exist_ok=True)

    def source(name, text):
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def convert(src, fmt, rel, kind, size, note):
        made = soffice_convert(src, fmt, work)
        shutil.copy(made, out(rel))
        record(rel, kind, "ok", size, note)
        return made

    a4 = fit_page(595, 842)
    letter = source("letter.fodt", letter_fodt())
    for fmt, kind in (("docx", "docx"), ("odt", "odt"), ("doc", "doc"), ("rtf", "rtf")):
        convert(letter, fmt, "office/letter." + fmt, kind, a4,
                "two A4 pages: a blue title and a red box on the first (LibreOffice's --convert-to %s)" % fmt)
    sheet = source("budget.fods", sheet_fods((
        ("Budget", (("Item", "Cost"), ("Paper", "12"), ("Ink", "40"), ("Total", "52"))),
        ("Q2 figures", (("Month", "Sales"), ("April", "120"), ("May", "135"), ("June", "150"))),
        ("Notes", (("Checked by the office",),)))))
    for fmt in ("xlsx", "ods", "xls"):
        convert(sheet, fmt, "office/budget." + fmt, fmt, (1024, 724),
                "three sheets (Budget, Q2 figures, Notes): three pages, each its sheet's top-left screenful")
    deck = source("deck.fodp", deck_fodp(["First slide", "Second slide", "Third slide"]))
    wide = (1024, rnd(15.75 / 28 * 1024))
    for fmt in ("pptx", "odp", "ppt"):
        convert(deck, fmt, "office/deck." + fmt, fmt, wide, "three 16:9 slides with a green band: three pages")
    drawing = source("sun.fodg", drawing_fodg())
    convert(drawing, "odg", "office/sun.odg", "odg", a4,
            "an orange disc on Draw's page (A4: LibreOffice keeps its own page size for a flat drawing)")

    # Large: a sheet of 100,000 rows (one page, its top-left area) and a deck of 200 slides.
    csv_path = os.path.join(work, "rows.csv")
    with open(csv_path, "w") as f:
        f.write("row,amount\n")
        for i in range(1, 100001):
            f.write("%d,%d\n" % (i, (i * 7919) % 10007))
    made = soffice_convert(csv_path, "xlsx", work)
    shutil.copy(made, out("office/rows-100k.xlsx"))
    record("office/rows-100k.xlsx", "xlsx", "ok", (1024, 724),
           "one sheet of 100,000 rows: one page, its first screenful")
    many = source("deck-200.fodp", deck_fodp(["Slide %d" % (n + 1) for n in range(200)]))
    convert(many, "pptx", "office/deck-200.pptx", "pptx", wide, "200 slides: 200 pages")

    # Hostile and damaged.
    docx = read("office/letter.docx")
    write("office/truncated.docx", docx[:len(docx) * 6 // 10])
    record("office/truncated.docx", "none", "error:corrupt word document data", None,
           "first 60% of letter.docx: its central directory is lost (a ZIP starts and ends there); named .docx")
    entries = zip_entries(out("office/letter.docx"))
    write_zip("office/bomb.docx", entries + [zeros_entry("word/media/padding.bin", 200 << 20)])
    record("office/bomb.docx", "none", "error:refused before reading it", None,
           "letter.docx with an entry of 200 MiB of zeros: over 500 times the file's size")
    write_zip("office/huge-entry.docx", entries + [zeros_entry("word/media/huge.bin", 300 << 20)])
    record("office/huge-entry.docx", "none", "error:past the limit", None,
           "letter.docx with one entry of 300 MiB: past the 256 MiB an entry may hold")
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/huge.bin", bytes(300 << 20))
    write_zip("office/nested-bomb.docx", entries + [("word/embeddings/Workbook1.xlsx", inner.getvalue())])
    record("office/nested-bomb.docx", "docx", "error:an embedded archive", None,
           "letter.docx embedding a workbook that holds 300 MiB of zeros: refused by the nested archive's check")
    import msoffcrypto.format.ooxml  # PyPI: msoffcrypto-tool
    encrypted = io.BytesIO()
    msoffcrypto.format.ooxml.OOXMLFile(io.BytesIO(docx)).encrypt("secret", encrypted)
    write("office/encrypted.docx", encrypted.getvalue())
    record("office/encrypted.docx", "none", "error:encrypted", None,
           "letter.docx encrypted with the password 'secret' by msoffcrypto-tool (an OLE2 EncryptedPackage)")
    odt = zip_entries(out("office/letter.odt"))
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest='
                '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry '
                'manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
                '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA">'
                '<manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="AAAA"/>'
                '<manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:iteration-count="1024" '
                'manifest:salt="AAAA"/></manifest:encryption-data></manifest:file-entry></manifest:manifest>')
    write_zip("office/encrypted.odt", [(i, manifest.encode() if i.filename == "META-INF/manifest.xml" else d)
                                        for i, d in odt])
    record("office/encrypted.odt", "odt", "error:encrypted", None,
           "letter.odt whose manifest says content.xml is encrypted (hand-made: the check reads the manifest)")
    write_zip("office/not-office.docx", [("notes.txt", b"plain notes\n"), ("more.txt", b"more notes\n")])
    record("office/not-office.docx", "none", "error:not a word", None, "a ZIP of two texts named .docx")
    write_zip("office/macro.odt", with_macro(odt))
    record("office/macro.odt", "odt", "ok", a4,
           "letter.odt with a Basic macro bound to its opening that would write %s: never run" % MACRO_TARGET)
    # Links to another host: a template and an image, at 127.0.0.1:TRAP_PORT.
    trap = "http://127.0.0.1:%d" % TRAP_PORT
    remote = []
    for info, data in entries:
        if info.filename == "word/_rels/document.xml.rels":
            data = data.replace(b"</Relationships>", (
                '<Relationship Id="rIdRemoteImage" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                'relationships/image" Target="%s/linked-image.png" TargetMode="External"/></Relationships>'
                % trap).encode())
        if info.filename == "word/document.xml":
            picture = (
                '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="1828800" cy="1828800"/><wp:docPr id="90" '
                'name="Linked"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
                '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic '
                'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr '
                'id="90" name="Linked"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rIdRemoteImage"/>'
                '<a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext '
                'cx="1828800" cy="1828800"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData>'
                '</a:graphic></wp:inline></w:drawing></w:r></w:p>')
            data = data.replace(b"<w:body>", b"<w:body>" + picture.encode(), 1)
        if info.filename == "word/settings.xml":
            data = data.replace(b"<w:zoom", b'<w:attachedTemplate r:id="rIdTemplate"/><w:zoom', 1).replace(
                b"<w:settings ", b'<w:settings xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
                b'relationships" ', 1)
        remote.append((info, data))
    remote.append(("word/_rels/settings.xml.rels", (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats'
        '.org/package/2006/relationships"><Relationship Id="rIdTemplate" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/attachedTemplate" Target="%s/remote-template.dotx" '
        'TargetMode="External"/></Relationships>' % trap).encode()))
    write_zip("office/remote-links.docx", remote)
    record("office/remote-links.docx", "docx", "ok", a4,
           "letter.docx linking an image and attaching a template at %s: neither is fetched" % trap)

    make_office_hostile_fonts_and_sheets(work, source, convert, a4)
    make_office_media()
    make_office_linked_pictures(work, source, convert, a4)
    make_office_markup(source, convert, a4)


# Where the decks with linked media point: a folder the test makes, watches with inotify, and
# expects no open of.
LINKED_MEDIA = "/tmp/glance-linked-media"


def make_office_markup(source, convert, a4):
    """A letter with a tracked deletion, a tracked insertion and a comment, and the same letter as
    it prints without markup (the changes accepted, no comment): their first pages must be drawn
    alike."""
    dc = ' xmlns:dc="http://purl.org/dc/elements/1.1/"'
    info = ('<office:change-info><dc:creator>CEO</dc:creator><dc:date>2026-01-01T00:00:00</dc:date>'
            '</office:change-info>')
    styles = A4_PAGE % ('<style:style style:name="Big" style:family="paragraph"><style:text-properties '
                        'fo:font-size="24pt"/></style:style>')
    marked = ('<office:text><text:tracked-changes text:track-changes="false">'
              '<text:changed-region xml:id="ct1" text:id="ct1"><text:deletion>%s<text:p>150,000 (CEO approved '
              'max 200,000) </text:p></text:deletion></text:changed-region>'
              '<text:changed-region xml:id="ct2" text:id="ct2"><text:insertion>%s</text:insertion>'
              '</text:changed-region></text:tracked-changes>'
              '<text:p text:style-name="Big">Budget: <text:change text:change-id="ct1"/>'
              '<text:change-start text:change-id="ct2"/>120,000<text:change-end text:change-id="ct2"/></text:p>'
              '<text:p text:style-name="Big">Noted.<office:annotation><dc:creator>CFO</dc:creator>'
              '<dc:date>2026-01-01T00:00:00</dc:date><text:p>Cut the bonus quietly</text:p></office:annotation>'
              '</text:p></office:text>' % (info, info))
    clean = ('<office:text><text:p text:style-name="Big">Budget: 120,000</text:p>'
             '<text:p text:style-name="Big">Noted.</text:p></office:text>')
    for name, body, note in (
            ("tracked-changes", marked, "a letter with a tracked deletion ('150,000 (CEO approved max 200,000)'), "
             "a tracked insertion and a comment: drawn as it prints, without them"),
            ("tracked-changes-accepted", clean, "tracked-changes.docx as it prints: the changes accepted, no comment")):
        text = flat_odf("application/vnd.oasis.opendocument.text", styles, body).replace(
            "<office:document ", "<office:document" + dc + " ", 1)
        fodt = source(name + ".fodt", text)
        convert(fodt, "docx", "office/%s.docx" % name, "docx", a4, note)


def make_office_linked_pictures(work, source, convert, a4):
    """Documents that link a picture by a file:// URL outside themselves (LINKED_MEDIA/photo.png,
    which the test makes and watches): an ODT, an ODS and an RTF (INCLUDEPICTURE). The linked
    picture is never read: the page is drawn without it."""
    href = "file://%s/photo.png" % LINKED_MEDIA
    image = ('<draw:frame draw:name="Linked" text:anchor-type="paragraph" svg:width="6cm" svg:height="6cm">'
             '<draw:image xlink:href="%s" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>'
             '</draw:frame>' % href)
    letter = source("linked-picture.fodt", letter_fodt('<text:p>%s</text:p>' % image))

    def absolute_link(rel):
        # LibreOffice saves the link relative to where it saved the file: made absolute again.
        entries = []
        for info, data in zip_entries(out(rel)):
            if info.filename == "content.xml":
                data = re.sub(rb'xlink:href="[./]*glance-linked-media/photo.png"',
                              ('xlink:href="%s"' % href).encode(), data)
            entries.append((info, data))
        write_zip(rel, entries)

    convert(letter, "odt", "office/linked-picture.odt", "odt", a4,
            "letter.odt with a picture linked from %s: never read" % LINKED_MEDIA)
    absolute_link("office/linked-picture.odt")
    sheet = source("linked-picture.fods", flat_odf(
        "application/vnd.oasis.opendocument.spreadsheet", "",
        '<office:spreadsheet><table:table table:name="Photos"><table:shapes><draw:frame draw:name="Linked" '
        'svg:x="1cm" svg:y="1cm" svg:width="6cm" svg:height="6cm"><draw:image xlink:href="%s" xlink:type="simple" '
        'xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></table:shapes><table:table-row><table:table-cell '
        'office:value-type="string"><text:p>Photos</text:p></table:table-cell></table:table-row></table:table>'
        '</office:spreadsheet>' % href))
    convert(sheet, "ods", "office/linked-picture.ods", "ods", (1024, 724),
            "a sheet with a picture linked from %s: never read" % LINKED_MEDIA)
    absolute_link("office/linked-picture.ods")
    rtf = ("{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 DejaVu Sans;}}\\paperw11906\\paperh16838"
           "\\f0\\fs28 A letter with a linked picture:\\par "
           "{\\field{\\*\\fldinst INCLUDEPICTURE \"%s\" \\\\d}{\\fldrslt }}\\par}" % href)
    write("office/linked-picture.rtf", rtf.encode())
    record("office/linked-picture.rtf", "rtf", "ok", a4,
           "an RTF whose INCLUDEPICTURE field links %s/photo.png: never read" % LINKED_MEDIA)


def make_office_media():
    """Decks with media on their first slide: an embedded clip (media/one-frame.mp4), a linked
    clip and an embedded HLS playlist whose segments are files outside the document. Media in an
    office document is never played or opened."""
    wide = (1024, rnd(15.75 / 28 * 1024))
    clip = read("media/one-frame.mp4")
    playlist = ("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n"
                "file://%s/segment.ts\n#EXT-X-ENDLIST\n" % LINKED_MEDIA).encode()
    for rel, href, mime, inside, note in (
            ("office/embedded-video.odp", "Media/clip.mp4", "video/mp4", ("Media/clip.mp4", clip),
             "deck.odp with a clip embedded on its first slide: drawn without playing it"),
            ("office/linked-video.odp", "file://%s/clip.mp4" % LINKED_MEDIA, "video/mp4", None,
             "deck.odp with a clip linked from %s on its first slide: never opened" % LINKED_MEDIA),
            ("office/embedded-playlist.odp", "Media/list.m3u8", "application/vnd.apple.mpegurl",
             ("Media/list.m3u8", playlist),
             "deck.odp with an HLS playlist embedded, naming a segment in %s: never opened" % LINKED_MEDIA)):
        frame = ('<draw:frame draw:name="Clip" svg:x="2cm" svg:y="10cm" svg:width="8cm" svg:height="4.5cm">'
                 '<draw:plugin xlink:href="%s" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad" '
                 'draw:mime-type="application/vnd.sun.star.media"><draw:param draw:name="Loop" draw:value="false"/>'
                 '</draw:plugin></draw:frame>' % href)
        entries = []
        for info, data in zip_entries(out("office/deck.odp")):
            if info.filename == "content.xml":
                text = data.decode()
                at = text.index(">", text.index("<draw:page ")) + 1
                data = (text[:at] + frame + text[at:]).encode()
            if info.filename == "META-INF/manifest.xml" and inside:
                data = data.decode().replace(
                    "</manifest:manifest>", '<manifest:file-entry manifest:full-path="%s" manifest:media-type="%s"/>'
                    "</manifest:manifest>" % (inside[0], mime)).encode()
            entries.append((info, data))
        if inside:
            entries.append(inside)
        write_zip(rel, entries)
        record(rel, "odp", "ok", wide, note)


def box_font():
    """A TrueType font made here: every printable ASCII character a filled box (digits narrow,
    letters wide), so that text set in it is unmistakable. Made with fontTools' FontBuilder."""
    from fontTools.fontBuilder import FontBuilder  # PyPI: fonttools
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    chars = [chr(c) for c in range(0x21, 0x7F)]
    names = [".notdef", "space"] + ["g%02x" % ord(c) for c in chars]
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap(dict([(0x20, "space")] + [(ord(c), "g%02x" % ord(c)) for c in chars]))
    glyphs, metrics = {}, {}
    for name in names:
        pen = TTGlyphPen(None)
        width = 600
        if name not in (".notdef", "space"):
            pen.moveTo((50, 0))
            pen.lineTo((50, 700))
            pen.lineTo((550, 700))
            pen.lineTo((550, 0))
            pen.closePath()
        glyphs[name] = pen.glyph()
        metrics[name] = (width, 50)
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics(metrics)
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Glance Boxes", "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200, fsType=0)
    builder.setupPost()
    out_buffer = io.BytesIO()
    builder.save(out_buffer)
    return out_buffer.getvalue()


def make_office_hostile_fonts_and_sheets(work, source, convert, a4):
    """A workbook with hidden and very hidden sheets, a letter set in Calibri (not installed here),
    and an ODT that embeds a font of boxes under the name Calibri (a document must not change how
    the next one is drawn)."""
    hidden_style = ('<office:automatic-styles><style:style style:name="Hidden" style:family="table">'
                    '<style:table-properties table:display="false"/></style:style></office:automatic-styles>')
    sheets = []
    for name, hidden, rows in (
            ("Budget", False, (("Item", "Cost"), ("Paper", "12"), ("Total", "12"))),
            ("Salaries", True, (("Name", "Salary"), ("CEO", "200000"))),
            ("Secret", True, (("Plan", "merger"),)),
            ("Notes", False, (("Checked",),))):
        cells = "".join("<table:table-row>%s</table:table-row>" % "".join(
            '<table:table-cell office:value-type="string"><text:p>%s</text:p></table:table-cell>' % v
            for v in row) for row in rows)
        style = ' table:style-name="Hidden"' if hidden else ""
        sheets.append('<table:table table:name="%s"%s>%s</table:table>' % (name, style, cells))
    hidden_fods = source("hidden-sheets.fods", flat_odf(
        "application/vnd.oasis.opendocument.spreadsheet", hidden_style,
        "<office:spreadsheet>%s</office:spreadsheet>" % "".join(sheets)))
    convert(hidden_fods, "ods", "office/hidden-sheets.ods", "ods", (1024, 724),
            "four sheets, Salaries and Secret hidden: two pages (Budget, Notes), no hidden name shown")
    made = soffice_convert(hidden_fods, "xlsx", work)
    entries = []
    for info, data in zip_entries(made):
        if info.filename == "xl/workbook.xml":
            # The second hidden sheet very hidden, as only Excel's own settings can make one.
            text = data.decode()
            at = text.index('name="Secret"')
            end = text.index("/>", at)
            sheet = text[at:end]
            data = (text[:at] + sheet.replace('state="hidden"', 'state="veryHidden"') + text[end:]).encode()
        entries.append((info, data))
    write_zip("office/hidden-sheets.xlsx", entries)
    record("office/hidden-sheets.xlsx", "xlsx", "ok", (1024, 724),
           "four sheets, Salaries hidden and Secret very hidden: two pages (Budget, Notes)")

    calibri_face = ('<office:font-face-decls><style:font-face style:name="Calibri" svg:font-family="Calibri"/>'
                    '</office:font-face-decls>')
    calibri_styles = A4_PAGE % (
        '<style:style style:name="Big" style:family="paragraph"><style:text-properties '
        'style:font-name="Calibri" fo:font-size="40pt"/></style:style>')
    calibri = source("calibri-letter.fodt", flat_odf(
        "application/vnd.oasis.opendocument.text", calibri_styles,
        '<office:text><text:p text:style-name="Big">Total 150,000</text:p>'
        '<text:p text:style-name="Big">Approved 120,000</text:p></office:text>', extra=calibri_face))
    convert(calibri, "docx", "office/calibri-letter.docx", "docx", a4,
            "an A4 letter set in Calibri at 40 pt (drawn in a fallback font where Calibri is not installed)")

    embedder = source("font-embedder.fodt", letter_fodt())
    made = soffice_convert(embedder, "odt", work)
    face = ('<style:font-face style:name="Calibri" svg:font-family="Calibri"><svg:font-face-src>'
            '<svg:font-face-uri xlink:href="Fonts/Calibri.ttf" xlink:type="simple"><svg:font-face-format '
            'svg:string="truetype"/></svg:font-face-uri></svg:font-face-src></style:font-face>')
    entries = []
    for info, data in zip_entries(made):
        if info.filename in ("content.xml", "styles.xml"):
            text = data.decode()
            if "<office:font-face-decls>" in text:
                text = text.replace("<office:font-face-decls>", "<office:font-face-decls>" + face, 1)
            elif "<office:font-face-decls/>" in text:
                text = text.replace("<office:font-face-decls/>",
                                    "<office:font-face-decls>" + face + "</office:font-face-decls>", 1)
            data = text.encode()
        if info.filename == "META-INF/manifest.xml":
            data = data.decode().replace(
                "</manifest:manifest>", '<manifest:file-entry manifest:full-path="Fonts/Calibri.ttf" '
                'manifest:media-type="application/x-font-ttf"/></manifest:manifest>').encode()
        if info.filename == "settings.xml":
            text = data.decode()
            if "EmbedFonts" not in text:
                text = text.replace(
                    '<config:config-item-set config:name="ooo:configuration-settings">',
                    '<config:config-item-set config:name="ooo:configuration-settings"><config:config-item '
                    'config:name="EmbedFonts" config:type="boolean">true</config:config-item>', 1)
            data = text.encode()
        entries.append((info, data))
    entries.append(("Fonts/Calibri.ttf", box_font()))
    write_zip("office/font-embedder.odt", entries)
    record("office/font-embedder.odt", "odt", "ok", a4,
           "letter.odt embedding a font of boxes (made here) under the name Calibri: it must not outlive "
           "this document in a warm office renderer")


# ---------------------------------------------------------------- raw

def tiff_pack(kind, values):
    """The bytes of a TIFF entry's values and their count: ASCII (2) from a str, BYTE (1) and
    UNDEFINED (7) from bytes or ints, SHORT (3), LONG (4), RATIONAL (5, (num, den) pairs) and
    SRATIONAL (10)."""
    if kind == 2:
        data = values.encode("ascii") + b"\0"
        return data, len(data)
    if kind in (1, 7):
        return bytes(values), len(values)
    if kind in (5, 10):
        code = "<II" if kind == 5 else "<ii"
        return b"".join(struct.pack(code, n, d) for n, d in values), len(values)
    return struct.pack("<%d%s" % (len(values), "H" if kind == 3 else "I"), *values), len(values)


def tiff_file(ifds, blobs):
    """A little-endian TIFF: `ifds` are (name, [(tag, type, values)]) laid out in this order after
    the header (the first is IFD 0, none chained after it), each followed by the values that do
    not fit in its entries; then `blobs`, (name, bytes). A str among a LONG entry's values stands
    for the offset of the IFD or blob of that name (SubIFDs, the EXIF IFD, strips)."""
    def encoded(entries, where):
        resolved = []
        for tag, kind, values in sorted(entries):
            if kind == 4:
                values = [where.get(v, 0) if isinstance(v, str) else v for v in values]
            resolved.append((tag, kind) + tiff_pack(kind, values))
        return resolved

    def ifd_bytes(entries, start, where):
        fields, extra = b"", b""
        after = start + 6 + 12 * len(entries)
        for tag, kind, data, count in encoded(entries, where):
            if len(data) <= 4:
                fields += struct.pack("<HHI", tag, kind, count) + data.ljust(4, b"\0")
            else:
                fields += struct.pack("<HHII", tag, kind, count, after + len(extra))
                extra += data + b"\0" * (len(data) & 1)
        return struct.pack("<H", len(entries)) + fields + struct.pack("<I", 0) + extra

    where, position = {}, 8
    for name, entries in ifds:
        where[name] = position
        position += len(ifd_bytes(entries, position, {}))
    for name, data in blobs:
        where[name] = position
        position += len(data) + (len(data) & 1)
    body = b"II*\0" + struct.pack("<I", where[ifds[0][0]])
    for name, entries in ifds:
        body += ifd_bytes(entries, len(body), where)
    for name, data in blobs:
        body += data + b"\0" * (len(data) & 1)
    return body


# The raw scene: four flat quadrants, as sRGB colours: top-left red, top-right green, bottom-left
# blue, bottom-right mid grey. The camera's RGB is linear sRGB (see dng()).
RAW_SCENE = ((220, 40, 40), (40, 180, 60), (40, 60, 210), (128, 128, 128))
RAW_WHITE = 4095  # 12-bit values in 16-bit samples
# XYZ (D65) -> linear sRGB (IEC 61966-2-1), as ColorMatrix1: the camera's RGB is linear sRGB.
XYZ_TO_SRGB = ((32406, -15372, -4986), (-9689, 18758, 415), (557, -2040, 10570))


def raw_scene_ppm(w, h, square=0):
    """The scene as an sRGB PPM in TMP, with a white square of `square` pixels in its centre."""
    rows = []
    for y in range(h):
        top = y < h // 2
        row = bytearray(bytes(RAW_SCENE[0 if top else 2]) * (w // 2) + bytes(RAW_SCENE[1 if top else 3])
                        * (w - w // 2))
        if square and abs(y - h / 2 + 0.5) < square / 2:
            left = (w - square) // 2
            row[left * 3:(left + square) * 3] = b"\xff" * (square * 3)
        rows.append(bytes(row))
    path = os.path.join(TMP, "raw-scene-%dx%d-%d.ppm" % (w, h, square))
    ppm(path, w, h, rows)
    return path


def raw_cfa(w, h):
    """The scene as an RGGB Bayer mosaic: 16-bit little-endian samples holding 12-bit linear values."""
    level = [[rnd(srgb_to_linear(c / 255) * RAW_WHITE) for c in colour] for colour in RAW_SCENE]
    rows = []
    for y in range(h):
        left, right = (level[0], level[1]) if y < h // 2 else (level[2], level[3])
        first, second = (0, 1) if y % 2 == 0 else (1, 2)  # R G on even rows, G B on odd ones
        rows.append(struct.pack("<HH", left[first], left[second]) * (w // 2 // 2)
                    + struct.pack("<HH", right[first], right[second]) * ((w - w // 2) // 2))
    return b"".join(rows)


def dng(w, h, preview=None, orientation=1, strip=None, preview_last=False):
    """A DNG 1.4 of the scene: an uncompressed 16-bit RGGB mosaic of w x h (or, with `strip`, that
    strip in its place), and, with `preview` (JPEG bytes, width, height), IFD 0 a baseline JPEG
    preview (YCbCr 4:2:0) and the mosaic in a SubIFD; without, IFD 0 is the mosaic."""
    strip = raw_cfa(w, h) if strip is None else strip
    camera = [(271, 2, "Glance"), (272, 2, "Test Camera"), (274, 3, [orientation]),
              (306, 2, "2024:05:17 10:30:00"), (34665, 4, ["exif"]), (50706, 1, [1, 4, 0, 0]),
              (50707, 1, [1, 1, 0, 0]), (50708, 2, "Glance Test Camera"),
              (50721, 10, [(v, 10000) for row in XYZ_TO_SRGB for v in row]), (50728, 5, [(1, 1)] * 3),
              (50778, 3, [21])]
    mosaic = [(254, 4, [0]), (256, 4, [w]), (257, 4, [h]), (258, 3, [16]), (259, 3, [1]), (262, 3, [32803]),
              (273, 4, ["cfa"]), (277, 3, [1]), (278, 4, [h]), (279, 4, [len(strip)]), (284, 3, [1]),
              (33421, 3, [2, 2]), (33422, 1, [0, 1, 1, 2]), (50710, 1, [0, 1, 2]), (50711, 3, [1]),
              (50714, 4, [0]), (50717, 4, [RAW_WHITE])]
    exif = [(36864, 7, b"0230"), (36867, 2, "2024:05:17 10:30:00")]
    blobs = [("cfa", strip)]
    if preview:
        jpeg, pw, ph = preview
        ifd0 = camera + [(254, 4, [1]), (256, 4, [pw]), (257, 4, [ph]), (258, 3, [8, 8, 8]), (259, 3, [7]),
                         (262, 3, [6]), (273, 4, ["preview"]), (277, 3, [3]), (278, 4, [ph]),
                         (279, 4, [len(jpeg)]), (284, 3, [1]), (330, 4, ["raw"]), (530, 3, [2, 2]),
                         (50970, 4, [2])]
        ifds = [("ifd0", ifd0), ("raw", mosaic + [(274, 3, [orientation])]), ("exif", exif)]
        blobs = blobs + [("preview", jpeg)] if preview_last else [("preview", jpeg)] + blobs
    else:
        ifds = [("ifd0", camera + mosaic), ("exif", exif)]
    return tiff_file(ifds, blobs)


def scene_jpeg(w, h, square):
    """The scene with a white centre square as a baseline JPEG (YCbCr 4:2:0), its bytes."""
    path = os.path.join(TMP, "raw-preview-%dx%d.jpg" % (w, h))
    magick(raw_scene_ppm(w, h, square), "-sampling-factor", "2x2", "-interlace", "none", path)
    with open(path, "rb") as f:
        return f.read()


def make_raw():
    """DNG raw photos written here from the DNG 1.4 specification (see dng()), and a TIFF that
    only looks like one."""
    preview = (scene_jpeg(640, 480, 64), 640, 480)
    write("raw/preview.dng", dng(640, 480, preview))
    ok_image("raw/preview.dng", "dng", 640, 480,
             "DNG: 640x480 RGGB 16-bit mosaic (12-bit values) in a SubIFD, IFD 0 a 640x480 baseline JPEG preview; "
             "quadrants red, green, blue, grey; the preview alone has a white 64x64 square in its centre")
    write("raw/no-preview.dng", dng(640, 480))
    ok_image("raw/no-preview.dng", "dng", 640, 480,
             "DNG: the 640x480 mosaic of preview.dng in IFD 0, no preview: developed (no white square)")
    write("raw/small-preview.dng", dng(640, 480, (scene_jpeg(160, 120, 16), 160, 120)))
    ok_image("raw/small-preview.dng", "dng", 640, 480,
             "DNG: the 640x480 mosaic with a 160x120 JPEG preview (white 16x16 centre square), too small for "
             "the box: the mosaic must be developed (no white square)")
    write("raw/rotated.dng", dng(640, 480, preview, orientation=6))
    ok_image("raw/rotated.dng", "dng", 480, 640,
             "preview.dng with Orientation 6 in IFD 0 and the raw IFD: shown 480x640, red top-right")
    write("raw/rotated-no-preview.dng", dng(640, 480, orientation=6))
    ok_image("raw/rotated-no-preview.dng", "dng", 480, 640,
             "no-preview.dng with Orientation 6: developed, then shown 480x640, red top-right")
    write("raw/truncated.dng", read("raw/preview.dng")[:300])
    record("raw/truncated.dng", "dng", "error:dng", None, "the first 300 bytes of preview.dng (IFD 0 cut short)")
    write("raw/huge.dng", dng(60000, 40000, strip=bytes(4096)))
    record("raw/huge.dng", "dng", "error:limit", None,
           "DNG whose mosaic IFD declares 60000x40000 (2.4 gigapixels) with a strip of 4 KiB: refused from "
           "its header")
    # A plain TIFF whose Make names a camera maker: 300x200 RGB 8-bit, uncompressed, the scene.
    with open(raw_scene_ppm(300, 200), "rb") as f:
        pixels = f.read()[len(b"P6\n300 200\n255\n"):]
    entries = [(256, 4, [300]), (257, 4, [200]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
               (271, 2, "NIKON CORPORATION"), (273, 4, ["pixels"]), (277, 3, [3]), (278, 4, [200]),
               (279, 4, [len(pixels)]), (282, 5, [(72, 1)]), (283, 5, [(72, 1)]), (284, 3, [1]), (296, 3, [2])]
    write("raw/scanner.tif", tiff_file([("ifd0", entries)], [("pixels", pixels)]))
    make_raw_other_maker()
    make_raw_hostile(preview, entries, pixels)
    make_raw_unknown_cameras(preview)


def make_raw_other_maker():
    """A Nikon NEF with no preview, laid out as Nikon's are (IFD 0 a small RGB thumbnail, the
    sensor data in a sub-directory) from TIFF/EP's description of a colour-filter array: a camera
    LibRaw knows (the D3), its 16-bit RGGB mosaic uncompressed. LibRaw develops it with that
    camera's own colour matrix, and crops it by that camera's margins (to 636 columns)."""
    w, h = 640, 480
    strip = raw_cfa(w, h)
    small = bytes(160 * 120 * 3)
    ifd0 = [(254, 4, [1]), (256, 4, [160]), (257, 4, [120]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
            (271, 2, "NIKON CORPORATION"), (272, 2, "NIKON D3"), (273, 4, ["small"]), (277, 3, [3]),
            (278, 4, [120]), (279, 4, [len(small)]), (306, 2, "2024:05:17 10:30:00"), (330, 4, ["raw"])]
    mosaic = [(254, 4, [0]), (256, 4, [w]), (257, 4, [h]), (258, 3, [16]), (259, 3, [1]), (262, 3, [32803]),
              (273, 4, ["cfa"]), (277, 3, [1]), (278, 4, [h]), (279, 4, [len(strip)]), (284, 3, [1]),
              (33421, 3, [2, 2]), (33422, 1, [0, 1, 1, 2])]
    write("raw/sensor-data.nef", tiff_file([("ifd0", ifd0), ("raw", mosaic)], [("small", small), ("cfa", strip)]))
    ok_image("raw/sensor-data.nef", "nef", 636, 480,
             "a Nikon D3 NEF without a preview: the 640x480 RGGB mosaic of the scene developed by LibRaw "
             "(cropped to 636 by the D3's margins); quadrants red, green, blue, grey")


def make_raw_unknown_cameras(preview):
    """Raw photos of cameras newer than Debian's LibRaw (0.20): it refuses them, and each is drawn
    from the JPEG preview it carries, read without LibRaw."""
    jpeg, pw, ph = preview
    thumb = scene_jpeg(160, 120, 16)

    def box(kind, payload):
        return struct.pack(">I4s", 8 + len(payload), kind) + payload

    canon = bytes.fromhex("85c0b687820f11e08111f4ce462b6a48")
    preview_uuid = bytes.fromhex("eaf42b5e1c984b88b9fbb7dc406e4d16")
    thmb = box(b"THMB", struct.pack(">BBHHHIHH", 0, 0, 0, 160, 120, len(thumb), 0, 0)[2:] + thumb)
    prvw = box(b"PRVW", struct.pack(">IHHHHI", 0, 1, pw, ph, 1, len(jpeg)) + jpeg)
    cr3 = (box(b"ftyp", b"crx \0\0\0\1crx isom")
           + box(b"moov", box(b"uuid", canon + thmb))
           + box(b"uuid", preview_uuid + struct.pack(">Q", 1) + prvw)
           + box(b"mdat", bytes(64)))
    # A NEF LibRaw 0.20 refuses, laid out as Nikon's are: IFD 0 a small RGB thumbnail, a
    # sub-directory the camera's JPEG (JPEGInterchangeFormat), and no sensor data LibRaw finds.
    small = bytes(160 * 120 * 3)
    ifd0 = [(254, 4, [1]), (256, 4, [160]), (257, 4, [120]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
            (271, 2, "NIKON CORPORATION"), (272, 2, "NIKON Z 5_II"), (273, 4, ["small"]), (277, 3, [3]),
            (278, 4, [120]), (279, 4, [len(small)]), (330, 4, ["jpeg"])]
    camera_jpeg = [(254, 4, [1]), (259, 3, [6]), (513, 4, ["preview"]), (514, 4, [len(jpeg)])]
    write("raw/unknown-camera.nef", tiff_file([("ifd0", ifd0), ("jpeg", camera_jpeg)],
                                              [("small", small), ("preview", jpeg)]))
    ok_image("raw/unknown-camera.nef", "nef", pw, ph,
             "a NEF LibRaw 0.20 refuses (as a camera it does not know): drawn from the camera's JPEG a "
             "sub-directory points to (640x480, white square), read without LibRaw")
    write("raw/unknown-camera.cr3", cr3)
    ok_image("raw/unknown-camera.cr3", "cr3", pw, ph,
             "a CR3 LibRaw 0.20 refuses (no CMT boxes, as a camera it does not know): drawn from its PRVW "
             "preview (640x480, white square), read without LibRaw")


def make_raw_hostile(preview, scanner_entries, scanner_pixels):
    """Raw photos as an attacker or a damaged card leaves them."""
    # A CR3 of 64 bytes: its ftyp, then an mdat whose 64-bit size is 0.
    cr3 = struct.pack(">I4s4sI4s4s", 24, b"ftyp", b"crx ", 1, b"crx ", b"isom")
    cr3 += struct.pack(">I4sQ", 1, b"mdat", 0)
    write("raw/zero-box.cr3", cr3.ljust(64, b"\0"))
    record("raw/zero-box.cr3", "cr3", "error:cr3", None,
           "64 bytes: an ftyp box (crx), then an mdat whose 64-bit size is 0: refused at once, never handed to LibRaw")
    # The preview last in the file and cut short; the mosaic before it intact.
    whole = dng(640, 480, preview, preview_last=True)
    write("raw/cut-preview.dng", whole[:len(whole) - len(preview[0]) // 2])
    ok_image("raw/cut-preview.dng", "dng", 640, 480,
             "preview.dng with its preview stored last and cut in half by the end of the file: the intact mosaic "
             "is developed instead (no white square)")
    # A DNG whose mosaic declares 640x480 16-bit samples and holds 16 bytes of them.
    write("raw/no-sensor-data.dng", dng(640, 480, strip=bytes(16)))
    record("raw/no-sensor-data.dng", "dng", "error:truncated", None,
           "DNG: the mosaic IFD declares 640x480 16-bit samples, the file holds 16 bytes of them: truncated, "
           "never a white picture")
    # A NEF shell of 15 kB: a small thumbnail in IFD 0, a sub-directory declaring 1024x678 12-bit
    # sensor data, uncompressed, that the file does not hold.
    small = bytes(80 * 60 * 3)
    shell0 = [(254, 4, [1]), (256, 4, [80]), (257, 4, [60]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
              (271, 2, "NIKON CORPORATION"), (272, 2, "NIKON D3100"), (273, 4, ["small"]), (277, 3, [3]),
              (278, 4, [60]), (279, 4, [len(small)]), (330, 4, ["raw"])]
    shell_raw = [(254, 4, [0]), (256, 4, [1024]), (257, 4, [678]), (258, 3, [12]), (259, 3, [1]),
                 (262, 3, [32803]), (273, 4, ["cfa"]), (277, 3, [1]), (278, 4, [678]),
                 (279, 4, [1024 * 678 * 12 // 8]), (33421, 3, [2, 2]), (33422, 1, [0, 1, 1, 2])]
    write("raw/shell.nef", tiff_file([("ifd0", shell0), ("raw", shell_raw)], [("small", small), ("cfa", bytes(64))]))
    record("raw/shell.nef", "nef", "error:truncated", None,
           "a 15 kB NEF shell whose sub-directory declares 1024x678 12-bit sensor data it does not hold: "
           "truncated, never developed into a white picture")
    # scanner.tif with a reduced-resolution sub-directory, as NEFs have: still drawn, as the TIFF it is.
    thumb = [(254, 4, [1]), (256, 4, [30]), (257, 4, [20]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
             (273, 4, ["thumb-pixels"]), (277, 3, [3]), (278, 4, [20]), (279, 4, [30 * 20 * 3])]
    write("raw/nef-like.tif", tiff_file([("ifd0", scanner_entries + [(330, 4, ["thumb"])]), ("thumb", thumb)],
                                        [("pixels", scanner_pixels), ("thumb-pixels", bytes(30 * 20 * 3))]))
    ok_image("raw/nef-like.tif", "nef", 300, 200,
             "scanner.tif (Make NIKON CORPORATION) with a sub-directory as NEFs have: LibRaw refuses it, and it "
             "is drawn as the TIFF it is")
    ok_image("raw/scanner.tif", "tiff", 300, 200,
             "a TIFF whose Make names a camera maker but which holds no raw data: still a TIFF (300x200 RGB "
             "8-bit, uncompressed, Make NIKON CORPORATION, the raw scene's quadrants)")


# ---------------------------------------------------------------- archives

DOS_DATE = ((2020 - 1980) << 9) | (1 << 5) | 1  # 2020-01-01; its time, 00:00, is 0
CRC_TABLE = [zlib.crc32(bytes((n,)), 0xFFFFFFFF) ^ 0xFFFFFFFF for n in range(256)]


def zip_of(rel, entries):
    """A ZIP by zipfile of (name, bytes) in this order, dated 2020-01-01: `mimetype` and folders
    (names ending in /) stored, the rest deflated."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            folder = name.endswith("/")
            info.external_attr = (0o40755 << 16 | 0x10) if folder else 0o644 << 16
            info.compress_type = zipfile.ZIP_STORED if folder or name == "mimetype" else zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    write(rel, buffer.getvalue())


def zipcrypto(data, password, check, seed):
    """`data` under traditional PKWARE encryption (APPNOTE 6.1): a 12-byte header (11 bytes from
    a seeded generator, then `check`, the CRC's high byte) and the data, both enciphered."""
    keys = [0x12345678, 0x23456789, 0x34567890]

    def update(byte):
        keys[0] = CRC_TABLE[(keys[0] ^ byte) & 0xFF] ^ (keys[0] >> 8)
        keys[1] = ((keys[1] + (keys[0] & 0xFF)) * 134775813 + 1) & 0xFFFFFFFF
        keys[2] = CRC_TABLE[(keys[2] ^ (keys[1] >> 24)) & 0xFF] ^ (keys[2] >> 8)

    for byte in password:
        update(byte)
    plain = bytes(random.Random(seed).randrange(256) for _ in range(11)) + bytes((check,)) + data
    sealed = bytearray()
    for byte in plain:
        t = (keys[2] | 2) & 0xFFFF
        sealed.append(byte ^ (((t * (t ^ 1)) >> 8) & 0xFF))
        update(byte)
    return bytes(sealed)


def zip_by_hand(rel, entries):
    """A ZIP written here, for what zipfile will not write: entries are (name, bytes, password or
    None, declared size or None), deflated but `mimetype` (stored); a password enciphers the entry
    with zipcrypto(); a declared size replaces the true uncompressed size in both headers."""
    body, directory = b"", b""
    for index, (name, data, password, declared) in enumerate(entries):
        method = 0 if name == "mimetype" else 8
        crc = zlib.crc32(data)
        if method:
            squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
            packed = squeeze.compress(data) + squeeze.flush()
        else:
            packed = data
        if password:
            packed = zipcrypto(packed, password, crc >> 24, index)
        fields = struct.pack("<HHHHHIIIH", 20, 1 if password else 0, method, 0, DOS_DATE, crc, len(packed),
                             len(data) if declared is None else declared, len(name.encode()))
        directory += (b"PK\1\2" + struct.pack("<H", 20) + fields
                      + struct.pack("<HHHHII", 0, 0, 0, 0, 0, len(body)) + name.encode())
        body += b"PK\3\4" + fields + struct.pack("<H", 0) + name.encode() + packed
    write(rel, body + directory + b"PK\5\6" + struct.pack("<HHHHIIH", 0, 0, len(entries), len(entries),
                                                          len(directory), len(body), 0))


def rar4(files):
    """A RAR 4 archive of (name, bytes), stored (method 0x30): the marker block, the archive header,
    a file header and its data for each file, the end-of-archive block (RAR 4 technote)."""
    def block(kind, flags, fields):
        head = struct.pack("<BHH", kind, flags, 7 + len(fields)) + fields
        return struct.pack("<H", zlib.crc32(head) & 0xFFFF) + head

    out = b"Rar!\x1a\x07\x00" + block(0x73, 0, struct.pack("<HI", 0, 0))
    for name, data in files:
        # PACK_SIZE UNP_SIZE HOST_OS(2: Win32) FILE_CRC FTIME UNP_VER(2.0) METHOD NAME_SIZE ATTR(archive)
        fields = struct.pack("<IIBIIBBHI", len(data), len(data), 2, zlib.crc32(data), DOS_DATE << 16, 20, 0x30,
                             len(name.encode()), 0x20) + name.encode()
        out += block(0x74, 0x8000, fields) + data  # 0x8000: ADD_SIZE (PACK_SIZE) follows
    return out + block(0x7B, 0x4000, b"")


def vint(n):
    """RAR 5's variable-length integer: seven bits a byte, low first, the top bit saying more follow."""
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def rar5(files):
    """A RAR 5 archive of (name, bytes), stored: the signature, the main archive header, a file
    header (with modification time and CRC32) and its data for each file, the end-of-archive header
    (RAR 5 technote)."""
    def header(kind, flags, fields, data_size=None):
        head = vint(kind) + vint(flags) + (vint(data_size) if data_size is not None else b"") + fields
        head = vint(len(head)) + head
        return struct.pack("<I", zlib.crc32(head)) + head

    out = b"Rar!\x1a\x07\x01\x00" + header(1, 0, vint(0))
    for name, data in files:
        # file flags 6 (mtime, CRC32), unpacked size, attributes (archive), mtime (2020-01-01 UTC),
        # CRC32, compression 0 (version 0, stored), host OS 0 (Windows), name
        fields = (vint(6) + vint(len(data)) + vint(0x20) + struct.pack("<II", 1577836800, zlib.crc32(data))
                  + vint(0) + vint(0) + vint(len(name.encode())) + name.encode())
        out += header(2, 2, fields, len(data)) + data  # header flag 2: a data area follows
    return out + header(5, 0, vint(0))


# ---------------------------------------------------------------- ebook

def epub_opf(title, creator, items, meta_cover=None):
    """An EPUB 3 package document: `items` are (id, href, media type, properties); the spine is the
    XHTML items but the navigation document, in order."""
    manifest = "".join('<item id="%s" href="%s" media-type="%s"%s/>'
                       % (i, href, media, ' properties="%s"' % props if props else "")
                       for i, href, media, props in items)
    spine = "".join('<itemref idref="%s"/>' % i for i, _, media, props in items
                    if media == "application/xhtml+xml" and props != "nav")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
            'unique-identifier="uid"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
            '<dc:identifier id="uid">urn:glance:test:%s</dc:identifier><dc:title>%s</dc:title>'
            '<dc:creator>%s</dc:creator><dc:language>en</dc:language>'
            '<meta property="dcterms:modified">2020-01-01T00:00:00Z</meta>%s</metadata>'
            '<manifest>%s</manifest><spine>%s</spine></package>\n'
            % (title.lower().replace(" ", "-"), title, creator,
               '<meta name="cover" content="%s"/>' % meta_cover if meta_cover else "", manifest, spine)).encode()


def xhtml(title, body):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" '
            'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>%s</title></head><body>%s</body></html>\n'
            % (title, body)).encode("utf-8")


EPUB_CONTAINER = (b'<?xml version="1.0" encoding="UTF-8"?>\n<container version="1.0" '
                  b'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
                  b'full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>'
                  b'</container>\n')
EPUB_NAV = xhtml("Contents", '<nav epub:type="toc"><ol><li><a href="text/ch1.xhtml">Chapter One</a></li></ol></nav>')


def flat_image(name, w, h, colour, label=None, fmt=None):
    """A w x h image of one colour (r, g, b), `label` drawn in white in its centre, made by
    ImageMagick into TMP; its bytes."""
    path = os.path.join(TMP, name)
    text = ["-fill", "white", "-font", "DejaVu-Sans-Bold", "-pointsize", str(min(h // 4, w // len(label))),
            "-gravity", "center", "-annotate", "+0+0", label] if label else []
    magick("-size", "%dx%d" % (w, h), "xc:rgb(%d,%d,%d)" % colour, *text, (fmt + ":" if fmt else "") + path)
    with open(path, "rb") as f:
        return f.read()


def epub_entries(title, creator, items, files, meta_cover=None, container=True):
    """An EPUB's entries: mimetype, container.xml (unless told not), the package document, the
    navigation document and chapter one as items besides `items`, then `files` ((name, bytes)
    under OEBPS/)."""
    items = [("nav", "nav.xhtml", "application/xhtml+xml", "nav"),
             ("ch1", "text/ch1.xhtml", "application/xhtml+xml", None)] + items
    return ([("mimetype", b"application/epub+zip")]
            + ([("META-INF/container.xml", EPUB_CONTAINER)] if container else [])
            + [("OEBPS/content.opf", epub_opf(title, creator, items, meta_cover)), ("OEBPS/nav.xhtml", EPUB_NAV)]
            + [("OEBPS/" + name, data) for name, data in files])


def make_ebook():
    """EPUBs assembled with zipfile, and hostile ones written by zip_by_hand()."""
    chapter = xhtml("Chapter One", "<h1>Chapter One</h1><p>It was a bright cold day.</p>")
    cover = flat_image("cover.jpg", 600, 900, (200, 50, 50), "COVER")
    blue = flat_image("blue.png", 500, 500, (40, 60, 200), fmt="png24")
    meta = epub_entries("The Meta Cover", "Ann Author",
                        [("cover-img", "images/cover.jpg", "image/jpeg", None),
                         ("blue", "images/blue.png", "image/png", "cover-image")],
                        [("text/ch1.xhtml", chapter), ("images/cover.jpg", cover), ("images/blue.png", blue)],
                        meta_cover="cover-img")
    zip_of("ebook/cover-meta.epub", meta)
    ok_image("ebook/cover-meta.epub", "epub", 600, 900,
             "EPUB: <meta name=\"cover\"> names a 600x900 red JPEG saying COVER; another item, a 500x500 blue PNG, "
             "has properties=\"cover-image\": the meta wins")
    green = flat_image("green.png", 800, 1200, (40, 170, 60), fmt="png24")
    zip_of("ebook/cover-property.epub", epub_entries(
        "Property Cover", "Bo Writer", [("cover", "images/cover.png", "image/png", "cover-image")],
        [("text/ch1.xhtml", chapter), ("images/cover.png", green)]))
    ok_image("ebook/cover-property.epub", "epub", 800, 1200,
             "EPUB 3: no meta cover; an 800x1200 green PNG with properties=\"cover-image\"")
    yellow = flat_image("yellow.png", 400, 300, (230, 200, 40), fmt="png24")
    pictured = xhtml("Chapter One", '<h1>Chapter One</h1><p><img src="../images/p1.png" alt="A yellow field"/></p>')
    zip_of("ebook/first-image.epub", epub_entries(
        "First Image", "Cy Painter", [("p1", "images/p1.png", "image/png", None)],
        [("text/ch1.xhtml", pictured), ("images/p1.png", yellow)]))
    ok_image("ebook/first-image.epub", "epub", 400, 300,
             "EPUB: no cover declared; the first chapter (OEBPS/text/ch1.xhtml) shows ../images/p1.png, a 400x300 "
             "yellow PNG")
    magenta = flat_image("magenta.png", 300, 450, (200, 40, 200), fmt="png24")
    zip_of("ebook/missing-cover.epub", epub_entries(
        "Missing Cover", "Di Lost", [("cover-jpg", "images/cover.jpg", "image/jpeg", None),
                                     ("cover-png", "images/magenta.png", "image/png", "cover-image")],
        [("text/ch1.xhtml", chapter), ("images/magenta.png", magenta)], meta_cover="cover-jpg"))
    ok_image("ebook/missing-cover.epub", "epub", 300, 450,
             "EPUB: <meta name=\"cover\"> names images/cover.jpg, absent from the ZIP; the cover-image item, a "
             "300x450 magenta PNG, is used")
    prose_chapter = xhtml("Café Notes", "<h1>Notes from the Café</h1><p>Bread &amp; butter, coffee and a long "
                                        "afternoon by the window.</p><p>The rain stopped at four; the café "
                                        "closed at six.</p>")
    text_only = epub_entries("Text Only", "Ed Plain", [], [("text/ch1.xhtml", prose_chapter)])
    zip_of("ebook/text-only.epub", text_only)
    record("ebook/text-only.epub", "epub", "ok", fit_page(595, 842),
           "EPUB without images: a heading and two paragraphs (an &amp; entity, \"Café\") laid out as a "
           "plain-text page")
    zip_of("ebook/no-container.epub", [entry for entry in text_only if entry[0] != "META-INF/container.xml"])
    record("ebook/no-container.epub", "epub", "error:container.xml", None,
           "text-only.epub without META-INF/container.xml")
    zip_by_hand("ebook/encrypted.epub", [(name, data, None if name == "mimetype" else b"secret", None)
                                         for name, data in meta])
    record("ebook/encrypted.epub", "epub", "error:needs a password", None,
           "cover-meta.epub's entries, all but mimetype ZIP-encrypted (traditional PKWARE) with the password 'secret'")
    # DRM: the cover and the chapter scrambled (fixed pseudo-random bytes in place of each), and
    # META-INF/encryption.xml saying they are AES-encrypted; a font obfuscated as IDPF's font
    # mangling is (which does not hide a book's content) is listed too.
    scrambled = random.Random(53)
    encryption = (b'<?xml version="1.0"?>\n<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                  b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#">'
                  + b"".join(b'<enc:EncryptedData><enc:EncryptionMethod Algorithm="%s"/><enc:CipherData>'
                             b'<enc:CipherReference URI="%s"/></enc:CipherData></enc:EncryptedData>' % (algorithm, uri)
                             for algorithm, uri in (
                                 (b"http://www.w3.org/2001/04/xmlenc#aes128-cbc", b"OEBPS/images/cover.jpg"),
                                 (b"http://www.w3.org/2001/04/xmlenc#aes128-cbc", b"OEBPS/images/blue.png"),
                                 (b"http://www.w3.org/2001/04/xmlenc#aes128-cbc", b"OEBPS/text/ch1.xhtml"),
                                 (b"http://www.idpf.org/2008/embedding", b"OEBPS/fonts/serif.otf")))
                  + b"</encryption>\n")
    drm = [(name, bytes(scrambled.randrange(256) for _ in range(len(data)))
            if name.startswith("OEBPS/images/") or name == "OEBPS/text/ch1.xhtml" else data) for name, data in meta]
    zip_of("ebook/drm.epub", drm[:2] + [("META-INF/encryption.xml", encryption)] + drm[2:])
    record("ebook/drm.epub", "epub", "error:encrypted (drm)", None,
           "cover-meta.epub with its cover, the other picture and its chapter replaced by random bytes, which "
           "META-INF/encryption.xml says are AES-encrypted (and a font obfuscated as fonts are)")
    zip_by_hand("ebook/bomb.epub", [(name, data, None, None) for name, data in meta]
                + [("OEBPS/images/padding.bin", bytes(1 << 16), None, 3000000000)])
    record("ebook/bomb.epub", "epub", "error:refused before reading it", None,
           "cover-meta.epub plus an entry whose headers declare 3,000,000,000 bytes (no ZIP64) for 64 KiB "
           "deflated to a few dozen bytes")


# ---------------------------------------------------------------- comics

def make_hostile_listing_cb7():
    """A CB7 of about 60 kB listing 9,900 pages whose names are 4,250 characters long (one small
    PNG, compressed solid): ordering its pages must cost the renderer little (a page's sort key
    made once, not at every comparison). Written with py7zr (PyPI), which takes names that no
    file system would."""
    import py7zr  # PyPI: py7zr
    page = encode_png(8, 12, 2, 8, [[200, 40, 40] * 8 for _ in range(12)])
    path = os.path.join(TMP, "long-names.cb7")
    with py7zr.SevenZipFile(path, "w") as archive:
        for number in range(9900, 0, -1):
            name = "issue-%d-page-%d-%s.png" % (number % 7, number, "x" * 4220)
            archive.writestr(page, name)
    shutil.copy(path, out("comics/long-names.cb7"))
    ok_image("comics/long-names.cb7", "cb7", 8, 12,
             "7z (py7zr) of 9,900 pages named with 4,250 characters each, in reverse order: page 1 drawn "
             "within the time limit")


def make_comics():
    """Comic book archives of flat pages: ZIPs by zipfile and zip_by_hand(), RAR 4 and RAR 5
    written here (rar4(), rar5()), 7z by 7-Zip's 7zz."""
    pages = [("page10.jpg", flat_image("page10.jpg", 800, 1200, (40, 60, 200), "10")),
             ("page3.jpg", flat_image("page3.jpg", 800, 1200, (40, 160, 60), "3")),
             ("page2.jpg", flat_image("page2.jpg", 800, 1200, (200, 40, 40), "2"))]
    info = (b'<?xml version="1.0" encoding="utf-8"?>\n<ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
            b'<Title>Natural Order</Title><Series>Glance Tests</Series><Number>1</Number><PageCount>3</PageCount>'
            b'</ComicInfo>\n')
    three = "800x1200 JPEG pages page10 (blue), page3 (green), page2 (red), in this order"
    zip_of("comics/natural.cbz", pages + [
        ("ComicInfo.xml", info), (".hidden.jpg", flat_image("hidden.jpg", 64, 64, (255, 255, 255))),
        ("__MACOSX/._page2.jpg", b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(range(64))),
        ("extras/", b"")])
    ok_image("comics/natural.cbz", "cbz", 800, 1200,
             "CBZ: %s, then ComicInfo.xml, .hidden.jpg (white), __MACOSX/._page2.jpg (junk) and a folder "
             "extras/: first page page2 by natural sort; 3 pages" % three)
    zip_of("comics/nested.cbz", [("Issue 1/", b""),
                                 ("Issue 1/001.png", flat_image("001.png", 600, 900, (240, 140, 20), "1", "png24")),
                                 ("Issue 1/002.png", flat_image("002.png", 600, 900, (130, 50, 170), "2", "png24"))])
    ok_image("comics/nested.cbz", "cbz", 600, 900,
             "CBZ: pages Issue 1/001.png (orange) and 002.png (purple), 600x900: the first is orange; 2 pages")
    write("comics/natural.cbr", rar4(pages))
    ok_image("comics/natural.cbr", "cbr", 800, 1200,
             "RAR 4 (written here, files stored): %s: first page page2 by natural sort; 3 pages" % three)
    write("comics/natural-rar5.cbr", rar5(pages))
    ok_image("comics/natural-rar5.cbr", "cbr", 800, 1200,
             "RAR 5 (written here, files stored): %s: first page page2 by natural sort; 3 pages" % three)
    staging = os.path.join(TMP, "cb7")
    os.makedirs(staging)
    for name, data in pages:
        with open(os.path.join(staging, name), "wb") as f:
            f.write(data)
        os.chmod(os.path.join(staging, name), 0o644)
        os.utime(os.path.join(staging, name), (1577836800, 1577836800))
    run("7zz", "a", "-t7z", "-mx=0", "-mtm=on", "-mtc=off", "-mta=off", "-bso0", "-bsp0",
        os.path.join(TMP, "natural.cb7"), *[name for name, _ in pages], cwd=staging)
    shutil.copy(os.path.join(TMP, "natural.cb7"), out("comics/natural.cb7"))
    ok_image("comics/natural.cb7", "cb7", 800, 1200,
             "7z (7zz, stored): the pages of natural.cbz, which 7zz stores sorted by name (page10, page2, page3): "
             "first page page2 by natural sort; 3 pages")
    zip_of("comics/no-images.cbz", [("ComicInfo.xml", info), ("readme.txt", b"No pages here.\n")])
    record("comics/no-images.cbz", "cbz", "error:no pages", None, "CBZ holding only ComicInfo.xml and readme.txt")
    zip_by_hand("comics/encrypted.cbz", [(name, data, b"secret", None) for name, data in pages]
                + [("ComicInfo.xml", info, None, None)])
    record("comics/encrypted.cbz", "cbz", "error:needs a password", None,
           "natural.cbz's three pages ZIP-encrypted (traditional PKWARE) with the password 'secret', ComicInfo.xml "
           "in the clear")
    zip_by_hand("comics/bomb.cbz", [(name, data, None, None) for name, data in pages]
                + [("page11.jpg", bytes(1 << 16), None, 3000000000)])
    record("comics/bomb.cbz", "none", "error:refused before reading it", None,
           "natural.cbz's three pages plus page11.jpg, whose headers declare 3,000,000,000 bytes (no ZIP64) for "
           "64 KiB deflated to a few dozen bytes")
    zip_of("comics/not-a-comic.zip", [("notes.txt", b"plain notes\n"), ("more.txt", b"more notes\n")])
    record("comics/not-a-comic.zip", "none", "error:not a supported document type", None,
           "a ZIP of two texts: neither office, EPUB nor comic")


if __name__ == "__main__":
    import sys
    unknown = [g for g in sys.argv[1:] if g not in GROUPS]
    if unknown:
        sys.exit("unknown groups: %s (groups: %s)" % (" ".join(unknown), " ".join(GROUPS)))
    main(tuple(sys.argv[1:]))
