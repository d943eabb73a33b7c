"""Colour error of Glance and vipsthumbnail on sources tagged with ICC profiles.

The sources are TestAssets/colour/ (a colour chart converted into ROMM RGB, Adobe RGB, Display
P3 and CMYK SWOP, each with its profile embedded). The reference is ImageMagick's conversion of
the source to sRGB (Debian's sRGB.icc) with Glance's intent, perceptual with black-point
compensation, resized to the thumbnail's size. Glance's thumbnail is read as it is (it is sRGB);
vipsthumbnail keeps the source's profile attached to its output, so its thumbnail is read
through that profile (what a colour-managed viewer shows), and also as plain numbers (what any
other program shows). Mean CIE 1976 ΔE*ab over all pixels.
"""
import os
import subprocess
import tempfile

import numpy

SRGB = "/usr/share/color/icc/sRGB.icc"
CONVERT = "/usr/bin/convert"
SOURCES = ("romm-rgb.jpg", "adobe-rgb.jpg", "display-p3.png", "cmyk-swop.jpg")


def rgb(arguments, width, height):
    data = subprocess.run([CONVERT, *arguments, "-depth", "8", "rgb:-"], check=True, capture_output=True).stdout
    return numpy.frombuffer(data, numpy.uint8).reshape(height, width, 3).astype(numpy.float64)


def lab(pixels):
    c = pixels / 255.0
    c = numpy.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    matrix = numpy.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = c @ matrix.T / numpy.array([0.95047, 1.0, 1.08883])
    f = numpy.where(xyz > 216 / 24389, numpy.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return numpy.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def delta_e(first, second):
    return float(numpy.sqrt(((lab(first) - lab(second)) ** 2).sum(-1)).mean())


def size_of(path):
    width, height = subprocess.run(["identify", "-format", "%w %h", path], check=True, capture_output=True,
                                   text=True).stdout.split()
    return int(width), int(height)


def measure_colour(glance, assets, log):
    """{source: {glance, vips_managed, vips_plain}} mean ΔE against ImageMagick's conversion."""
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in SOURCES:
            source = os.path.join(assets, "colour", name)
            mine = os.path.join(scratch, "glance-" + name + ".png")
            subprocess.run([glance, "thumbnail", source, "-o", mine, "--format", "png"], check=True,
                           capture_output=True)
            theirs = os.path.join(scratch, "vips-" + name + ".png")
            subprocess.run(["vipsthumbnail", "-s", "1024", "-o", theirs, source], check=True, capture_output=True)
            width, height = size_of(mine)
            reference = rgb([source, "-intent", "perceptual", "-black-point-compensation", "-profile", SRGB,
                             "-resize", f"{width}x{height}!"], width, height)
            results[name] = {
                "glance": delta_e(rgb([mine], width, height), reference),
                "vips_managed": delta_e(rgb([theirs, "-intent", "perceptual", "-black-point-compensation",
                                             "-profile", SRGB, "-resize", f"{width}x{height}!"], width, height),
                                        reference),
                "vips_plain": delta_e(rgb([theirs, "-strip", "-colorspace", "sRGB", "-resize",
                                           f"{width}x{height}!"], width, height), reference),
            }
            log(f"  colour {name}: Glance ΔE {results[name]['glance']:.2f}, vipsthumbnail "
                f"{results[name]['vips_managed']:.2f} through its profile, {results[name]['vips_plain']:.2f} without")
    return results


def format_colour(colour):
    if not colour:
        return []
    lines = ["Colour (mean ΔE*ab against ImageMagick's sRGB conversion; TestAssets/colour):"]
    for name, result in colour.items():
        lines.append(f"  {name:<16} Glance {result['glance']:.2f}; vipsthumbnail {result['vips_managed']:.2f} "
                     f"in a colour-managed viewer, {result['vips_plain']:.2f} elsewhere")
    return lines
