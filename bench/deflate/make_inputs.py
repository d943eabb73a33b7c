#!/usr/bin/python3
"""Makes the benchmark's inputs: real Glance thumbnails, decoded to raw pixels.

    /usr/bin/python3 bench/deflate/make_inputs.py [--glance PATH]

Sources: the bench corpus's own generators (bench/corpus.py: photo, screenshot, text and photo
PDFs, Latin and CJK text, same seeds as the corpus), the photos, screenshots, PDFs and texts of
TestAssets/ and ../shared/corpus/ (when present). Each source goes through
`glance thumbnail FILE --format png` (fits 1024x1024), and the PNG Glance wrote is decoded with
PIL into a PAM file (P7: GRAYSCALE, RGB or RGB_ALPHA, 8-bit) under bench/deflate/work/raw/,
named KIND-NAME.pam. work/inputs.tsv lists kind, name, size, channels and the bytes of the PNG
Glance wrote. Needs python3-numpy, python3-scipy, python3-pil, cjpeg (libjpeg-turbo-progs).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import corpus  # noqa: E402  (bench/corpus.py: the generators, not the cached corpus)

WORK = os.path.join(HERE, "work")
SHARED = os.path.join(ROOT, "..", "shared", "corpus")  # the conformance corpus beside the checkout
ASSETS = os.path.join(ROOT, "TestAssets")


def synthetic_sources(folder):
    """The bench corpus's kinds, made with its generators and seeds; (kind, path) pairs."""
    out = []
    tmp = tempfile.mkdtemp(dir=folder)
    # PNG photos (corpus seeds 2000 + index, as build_corpus numbers them).
    for name, w, h, seed in (("corpus-photo-1600x1200", 1600, 1200, 2000),
                             ("corpus-photo-4000x3000", 4000, 3000, 2001)):
        path = os.path.join(folder, name + ".png")
        Image.fromarray(corpus.photo(w, h, seed).astype(np.uint8), "RGB").save(path, compress_level=1)
        out.append(("photo", path))
    shot = corpus.screenshot(2560, 1440, 2002)
    path = os.path.join(folder, "corpus-screenshot-2560x1440-rgba.png")
    Image.fromarray(shot, "RGBA").save(path, compress_level=1)
    out.append(("screenshot", path))
    path = os.path.join(folder, "corpus-screenshot-1920x1080-rgb.png")
    Image.fromarray(np.ascontiguousarray(corpus.screenshot(1920, 1080, 2004)[:, :, :3]), "RGB").save(
        path, compress_level=1)
    out.append(("screenshot", path))
    # PDFs: a text PDF and a photo PDF (corpus seeds 3000 + index).
    for name, kind, seed in (("corpus-text", "text", 3000), ("corpus-photo", "photo", 3001)):
        path = os.path.join(folder, name + ".pdf")
        corpus.make_pdf(path, kind, 2, (1600, 1200), seed, tmp)
        out.append(("pdf", path))
    # Text files: Latin and CJK, 16 KB each (corpus seeds 4000 + index).
    for name, cjk, seed in (("corpus-latin", False, 4000), ("corpus-cjk", True, 4001)):
        path = os.path.join(folder, name + ".txt")
        corpus.make_text(path, 16000, cjk, seed)
        out.append(("text", path))
    return out


def file_sources():
    candidates = [
        ("photo", f"{SHARED}/jpeg/exif-orientation/Landscape_1.jpg"),
        ("photo", f"{SHARED}/jpeg/exif-orientation/Portrait_1.jpg"),
        ("photo", f"{SHARED}/jpeg/tricky/tower.jpg"),
        ("photo", f"{ASSETS}/jpeg/photo-baseline.jpg"),
        ("photo", f"{ASSETS}/png/photo-like.png"),
        ("screenshot", f"{ASSETS}/samples/screenshot.png"),
        ("pdf", f"{ASSETS}/pdf/letter.pdf"),
        ("pdf", f"{ASSETS}/pdf/with-photo.pdf"),
        ("pdf", f"{ASSETS}/samples/report.pdf"),
        ("pdf", f"{SHARED}/pdf/pdflatex-4-pages.pdf"),
        ("pdf", f"{SHARED}/pdf/pdflatex-image.pdf"),
        ("pdf", f"{SHARED}/pdf/radial_gradients.pdf"),
        ("text", f"{ASSETS}/text/big.txt"),
        ("text", f"{SHARED}/text/latin1_portuguese.txt"),
        ("text", f"{SHARED}/text/utf8_korean_hanja.txt"),
    ]
    return [(k, p) for k, p in candidates if os.path.exists(p)]


def write_pam(path, image):
    mode = image.mode
    if mode not in ("L", "RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in mode else "RGB")
        mode = image.mode
    depth, tupl = {"L": (1, "GRAYSCALE"), "RGB": (3, "RGB"), "RGBA": (4, "RGB_ALPHA")}[mode]
    w, h = image.size
    with open(path, "wb") as f:
        f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL 255\nTUPLTYPE %s\nENDHDR\n" % (w, h, depth, tupl.encode()))
        f.write(image.tobytes())
    return w, h, depth


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--glance", default=os.path.join(ROOT, ".build/debug/glance"))
    args = parser.parse_args()
    sources_dir = os.path.join(WORK, "sources")
    thumbs_dir = os.path.join(WORK, "glance-png")
    raw_dir = os.path.join(WORK, "raw")
    for d in (sources_dir, thumbs_dir, raw_dir):
        os.makedirs(d, exist_ok=True)
    for f in os.listdir(raw_dir):
        os.remove(os.path.join(raw_dir, f))
    sources = synthetic_sources(sources_dir) + file_sources()
    rows = []
    for kind, path in sources:
        base = os.path.splitext(os.path.basename(path))[0]
        thumb = os.path.join(thumbs_dir, f"{kind}-{base}.png")
        r = subprocess.run([args.glance, "thumbnail", path, "--format", "png", "-o", thumb],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"skip {path}: {r.stdout.strip()} {r.stderr.strip()}", file=sys.stderr)
            continue
        image = Image.open(thumb)
        image.load()
        w, h, c = write_pam(os.path.join(raw_dir, f"{kind}-{base}.pam"), image)
        rows.append((kind, base, w, h, c, os.path.getsize(thumb)))
        print(f"{kind:10} {base:40} {w}x{h}x{c}  glance png {os.path.getsize(thumb)} B")
    with open(os.path.join(WORK, "inputs.tsv"), "w") as f:
        f.write("kind\tname\twidth\theight\tchannels\tglance_png_bytes\n")
        for row in rows:
            f.write("\t".join(map(str, row)) + "\n")


if __name__ == "__main__":
    main()
