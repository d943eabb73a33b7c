"""Quality: PSNR and SSIM of a thumbnail against a reference of the same size.

References
  JPEG, PNG  full decode + Lanczos-3 to the thumbnail's exact size, by ImageMagick:
             /usr/bin/convert IN -filter Lanczos -resize WxH! (in the file's own sRGB values)
  PDF        pdftocairo's render of page 1 at that size (-scale-to-x W -scale-to-y H)

Pixels are read without PIL: `/usr/bin/convert X -background white -alpha remove -alpha off
-depth 8 rgb:-` piped into numpy, the size from `identify`. Transparent images are therefore
compared after compositing on white, thumbnail and reference alike.

Metrics
  PSNR  over the R, G and B samples together (8-bit, peak 255); identical images score 100 dB.
  SSIM  Wang et al. (2004) on luma (Y = 0.299 R + 0.587 G + 0.114 B): Gaussian window with
        sigma 1.5 truncated to 11x11, K1 = 0.01, K2 = 0.03, averaged over the "valid" area
        (a 5-pixel border dropped).
"""

import math
import os
import subprocess

import numpy as np
from scipy import ndimage

CONVERT = "/usr/bin/convert"
IDENTIFY = "/usr/bin/identify"
PSNR_IDENTICAL = 100.0  # dB reported for identical pixels (the true value is infinite)


def image_size(path):
    """(width, height) of the first frame of an image file."""
    out = subprocess.run([IDENTIFY, "-format", "%w %h\n", path], check=True, capture_output=True,
                         text=True).stdout.split()
    return int(out[0]), int(out[1])


def read_rgb(path, resize=None):
    """An image as a height x width x 3 uint8 array, on white; optionally Lanczos-resized to (w, h)."""
    if resize is None:
        width, height = image_size(path)
        ops = []
    else:
        width, height = resize
        ops = ["-filter", "Lanczos", "-resize", f"{width}x{height}!"]
    data = subprocess.run([CONVERT, path + "[0]"] + ops
                          + ["-background", "white", "-alpha", "remove", "-alpha", "off", "-depth", "8", "rgb:-"],
                          check=True, capture_output=True).stdout
    if len(data) != width * height * 3:
        raise ValueError(f"{path}: expected {width}x{height} RGB, got {len(data)} bytes")
    return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)


def psnr(a, b):
    """Peak signal-to-noise ratio in dB of two uint8 RGB arrays of the same shape."""
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return PSNR_IDENTICAL if mse == 0 else min(PSNR_IDENTICAL, 10.0 * math.log10(255.0 ** 2 / mse))


def luma(rgb):
    rgb = rgb.astype(np.float64)
    return 0.299 * rgb[:, :, 0] + 0.587 * rgb[:, :, 1] + 0.114 * rgb[:, :, 2]


def ssim(a, b):
    """Mean SSIM of two uint8 RGB arrays, on luma, with the standard 11x11 Gaussian window."""
    x, y = luma(a), luma(b)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2

    def blur(z):
        return ndimage.gaussian_filter(z, 1.5, truncate=3.5)  # radius 5: an 11x11 window

    mx, my = blur(x), blur(y)
    sxx = blur(x * x) - mx * mx
    syy = blur(y * y) - my * my
    sxy = blur(x * y) - mx * my
    quality = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
    return float(quality[5:-5, 5:-5].mean())


class References:
    """Reference images, made on first use and kept as raw RGB under a cache folder."""

    def __init__(self, cache_dir):
        self.cache_dir = cache_dir
        os.makedirs(cache_dir, exist_ok=True)

    def get(self, source, fmt, size):
        """The reference for source at size (w, h), as a uint8 array."""
        width, height = size
        cached = os.path.join(self.cache_dir, f"{os.path.basename(source)}-{width}x{height}.rgb")
        if os.path.exists(cached):
            with open(cached, "rb") as f:
                return np.frombuffer(f.read(), dtype=np.uint8).reshape(height, width, 3)
        if fmt == "pdf":
            prefix = cached[:-4] + "-pdftocairo"
            subprocess.run(["pdftocairo", "-png", "-singlefile", "-f", "1", "-l", "1", "-scale-to-x", str(width),
                            "-scale-to-y", str(height), source, prefix], check=True)
            pixels = read_rgb(prefix + ".png")
            os.remove(prefix + ".png")
        else:
            pixels = read_rgb(source, resize=size)
        with open(cached + ".tmp", "wb") as f:
            f.write(pixels.tobytes())
        os.replace(cached + ".tmp", cached)
        return pixels


def score(thumbnail, source, fmt, references):
    """(PSNR, SSIM) of one thumbnail file against the reference of its source at its size."""
    pixels = read_rgb(thumbnail)
    reference = references.get(source, fmt, (pixels.shape[1], pixels.shape[0]))
    return psnr(pixels, reference), ssim(pixels, reference)


def average_scores(pairs, fmt, references):
    """Mean PSNR and SSIM over (thumbnail, source) pairs; also the worst file of each."""
    scores = [(score(t, s, fmt, references), s) for t, s in pairs]
    if not scores:
        return None
    psnrs = [p for (p, _), _ in scores]
    ssims = [q for (_, q), _ in scores]
    return {
        "files": len(scores),
        "psnr_db": float(np.mean(psnrs)),
        "ssim": float(np.mean(ssims)),
        "worst_psnr_db": float(min(psnrs)),
        "worst_ssim": float(min(ssims)),
        "worst_file": os.path.basename(min(scores, key=lambda item: item[0][0])[1]),
    }
