#!/usr/bin/env python3
"""Makes the JPEG XL fixtures of JXLDecodingTests with Debian's cjxl (libjxl-tools 0.7).

Run from this folder: python3 make-jxl-fixtures.py. Sources are PNG fixtures of the parent folder
(made by make-fixtures.py) and three small pictures drawn here (written as PNG
with Python's zlib alone): a 64x48 pattern of gradients and edges, the same pattern with the
Adobe RGB (1998) profile of colour/adobergb.png in an iCCP chunk, and a 32x24 APNG of four translucent frames (100, 50, 200 and 100 ms). The reference decodings are not
committed: the tests ask djxl for them (ExternalPrograms.djxl) and compare.
"""
import math
import struct
import subprocess
import zlib


def chunk(kind, payload):
    body = kind + payload
    return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def iccp_of(path):
    data = open(path, "rb").read()
    offset = 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        if kind == b"iCCP":
            return data[offset + 8:offset + 8 + length]
        offset += 12 + length
    raise SystemExit(f"{path} has no iCCP chunk")


def pattern_png(width, height, iccp=None):
    rows = b""
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            r = int(127.5 + 127.5 * math.sin(x / 5.0 + y / 11.0))
            g = int(255 * x / (width - 1))
            b = 230 if (x // 8 + y // 8) % 2 else int(255 * y / (height - 1))
            row += bytes([r, g, b])
        rows += bytes(row)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    extra = chunk(b"iCCP", iccp) if iccp else b""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def animation_apng(width, height, delays):
    """Full RGBA frames of a square moving over a gradient, each shown `delays[i]` milliseconds."""
    sequence = 0
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
    out += chunk(b"acTL", struct.pack(">II", len(delays), 0))
    for index, delay in enumerate(delays):
        rows = b""
        for y in range(height):
            row = bytearray([0])
            for x in range(width):
                inside = index * 6 <= x < index * 6 + 10 and 7 <= y < 17
                row += bytes([230, 40, 40, 255]) if inside else bytes([x * 8, y * 10, 128, 160 + index * 20])
            rows += bytes(row)
        out += chunk(b"fcTL", struct.pack(">IIIIIHHBB", sequence, width, height, 0, 0, delay, 1000, 0, 0))
        sequence += 1
        data = zlib.compress(rows, 9)
        if index == 0:
            out += chunk(b"IDAT", data)
        else:
            out += chunk(b"fdAT", struct.pack(">I", sequence) + data)
            sequence += 1
    return out + chunk(b"IEND", b"")


def cjxl(source, output, *options):
    subprocess.run(["cjxl", source, output, *options], check=True, capture_output=True)


open("/tmp/jxl-pattern.png", "wb").write(pattern_png(64, 48))
open("/tmp/jxl-animated.png", "wb").write(animation_apng(32, 24, [100, 50, 200, 100]))
open("/tmp/jxl-pattern-adobergb.png", "wb").write(pattern_png(64, 48, iccp_of("../colour/adobergb.png")))

cjxl("../png-rgb.png", "jxl-lossless.jxl", "-d", "0")               # modular, exact
cjxl("/tmp/jxl-pattern.png", "jxl-lossy.jxl", "-d", "1")            # VarDCT in XYB
cjxl("../png-rgba.png", "jxl-alpha.jxl", "-d", "0")                 # lossless with alpha
cjxl("../png-rgba.png", "jxl-lossy-alpha.jxl", "-d", "1.5")         # XYB with alpha
cjxl("../png-rgba16.png", "jxl-rgba16.jxl", "-d", "0")              # 16 bits per sample
cjxl("../png-gray.png", "jxl-gray.jxl", "-d", "0")                  # one colour channel
cjxl("/tmp/jxl-animated.png", "jxl-animated.jxl", "-d", "0")       # 4 frames, looping forever
cjxl("/tmp/jxl-pattern-adobergb.png", "jxl-adobergb.jxl", "-d", "0")             # ICC kept, pixels in Adobe RGB
cjxl("/tmp/jxl-pattern-adobergb.png", "jxl-adobergb-lossy.jxl", "-d", "1")       # XYB; ICC as metadata
cjxl("../png-rgb.png", "jxl-container.jxl", "-d", "0", "--container=1")          # ISO BMFF container
