"""The PNG floor: inflate the image data of each PNG named on the command line, and nothing else.

    python3 bench/inflate.py FILE.png ...

Every PNG decoder must at least inflate the IDAT stream with zlib (the same system zlib that
libpng uses); unfiltering, colour conversion and resampling come on top. So this is a lower
bound on decode time, not a full decode. It inflates chunk by chunk and keeps no output.
"""

import struct
import sys
import zlib


def inflate_png(path):
    """Inflates every IDAT chunk of one PNG; returns the number of bytes it produced."""
    produced = 0
    inflater = zlib.decompressobj()
    with open(path, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            raise ValueError(f"{path}: not a PNG")
        while True:
            header = f.read(8)
            if len(header) < 8:
                break
            length, kind = struct.unpack(">I4s", header)
            data = f.read(length)
            f.read(4)  # CRC
            if kind == b"IDAT":
                produced += len(inflater.decompress(data))
            elif kind == b"IEND":
                break
    return produced


if __name__ == "__main__":
    for name in sys.argv[1:]:
        inflate_png(name)
