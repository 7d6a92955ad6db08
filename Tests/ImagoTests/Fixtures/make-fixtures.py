#!/usr/bin/env python3
"""Makes the decoder test corpus in this folder. Run once; the outputs are committed.

    pip install pillow pillow-heif && python3 make-fixtures.py
    (needs cc and libjpeg headers for YCCK; Debian's heif-enc and avifenc for HEIF and AVIF:
    apt-get install libheif-examples libavif-bin)

Every fixture is small (32x24 or so). Beside each fixture NAME.ext lies NAME.rgba: the expected
decoding as raw 8-bit RGBA (straight alpha), every frame one after the other. manifest.json lists
each fixture with its size, frame durations, the per-channel tolerance the tests allow and whether
its first frame is opaque.

Where the script knows the exact pixels (lossless formats it wrote itself), the reference is those
pixels, not a decoding, so no decoder checks itself. Lossy formats (JPEG, lossy WebP) take Pillow's
decoding (its own libjpeg-turbo and libwebp) as the reference. GIF and PNG variants Pillow cannot
write (interlaced, 16-bit, frame disposals) are written by the small encoders below.
"""
import io, json, os, struct, subprocess, tempfile, zlib
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 32, 24
manifest = []


def base_rgb():
    """An asymmetric picture: gradients plus a dark block top-left and a white dot top-right."""
    px = []
    for y in range(H):
        for x in range(W):
            if x < 8 and y < 6:
                px.append((20, 20, 20))
            elif 28 <= x < 31 and 1 <= y < 4:
                px.append((250, 250, 250))
            else:
                px.append((40 + x * 6, 30 + y * 8, 200 - x * 3 - y * 2))
    return px


def base_alpha():
    return [min(255, (x * 8 + y * 4)) if x < 24 else 255 for y in range(H) for x in range(W)]


def rgba_bytes(img):
    return img.convert("RGBA").tobytes()


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def add(name, ext, encoded, frames, size, tolerance, alpha, durations=()):
    write(f"{name}.{ext}", encoded)
    write(f"{name}.rgba", b"".join(frames))
    manifest.append({
        "name": name, "file": f"{name}.{ext}", "reference": f"{name}.rgba",
        "width": size[0], "height": size[1], "frameCount": len(frames),
        "durationsMilliseconds": list(durations), "tolerance": tolerance, "alpha": alpha,
    })


def rgb_image():
    img = Image.new("RGB", (W, H))
    img.putdata(base_rgb())
    return img


# ---------------------------------------------------------------- JPEG (reference: Pillow)
def pillow_decoding(encoded):
    return Image.open(io.BytesIO(encoded))


def add_jpeg(name, encoded, tolerance=4):
    img = ImageOps.exif_transpose(pillow_decoding(encoded))
    if img.mode == "CMYK":  # what every viewer does without a colour profile
        img = img.convert("RGB")
    add(name, "jpg", encoded, [rgba_bytes(img)], img.size, tolerance, "opaque")


def save(img, **options):
    out = io.BytesIO()
    img.save(out, **options)
    return out.getvalue()


add_jpeg("jpeg-baseline", save(rgb_image(), format="JPEG", quality=90))
add_jpeg("jpeg-progressive", save(rgb_image(), format="JPEG", quality=90, progressive=True))
add_jpeg("jpeg-gray", save(rgb_image().convert("L"), format="JPEG", quality=90))
cmyk = rgb_image().convert("CMYK")
add_jpeg("jpeg-cmyk", save(cmyk, format="JPEG", quality=95))  # Pillow writes Adobe (inverted) CMYK
with tempfile.TemporaryDirectory() as tmp:
    tool = os.path.join(tmp, "make-ycck")
    subprocess.run(["cc", "-O1", "-o", tool, os.path.join(HERE, "make-ycck.c"), "-ljpeg"], check=True)
    raw = os.path.join(tmp, "in.cmyk")
    with open(raw, "wb") as f:  # Adobe convention: CMYK stored inverted
        f.write(bytes(255 - b for b in cmyk.tobytes()))
    subprocess.run([tool, raw, os.path.join(tmp, "out.jpg")], check=True)
    with open(os.path.join(tmp, "out.jpg"), "rb") as f:
        add_jpeg("jpeg-ycck", f.read())
for orientation in range(1, 9):
    exif = Image.Exif()
    exif[0x0112] = orientation
    add_jpeg(f"jpeg-orientation-{orientation}",
             save(rgb_image(), format="JPEG", quality=95, subsampling=0, exif=exif.tobytes()))


# ---------------------------------------------------------------- PNG (reference: the source)
def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width, height, bit_depth, color_type, rows, extra=b"", interlaced=False):
    """rows: list of bytes per row (no filter byte). Adam7 when interlaced."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    bits_per_pixel = channels * bit_depth

    def pack(row_pixels):  # row_pixels: list of per-pixel sample tuples
        if bit_depth >= 8:
            fmt = ">" + ("B" if bit_depth == 8 else "H") * channels
            return b"".join(struct.pack(fmt, *p) for p in row_pixels)
        out, acc, n = bytearray(), 0, 0
        for p in row_pixels:
            acc = (acc << bit_depth) | p[0]
            n += bit_depth
            if n == 8:
                out.append(acc); acc, n = 0, 0
        if n:
            out.append(acc << (8 - n))
        return bytes(out)

    raw = bytearray()
    if not interlaced:
        for r in rows:
            raw += b"\x00" + pack(r)
    else:
        for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                               (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
            for y in range(y0, height, dy):
                sub = rows[y][x0::dx]
                if sub:
                    raw += b"\x00" + pack(sub)
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 1 if interlaced else 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra
            + png_chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + png_chunk(b"IEND", b""))


rgb = base_rgb()
alpha = base_alpha()
grid = lambda values: [values[y * W:(y + 1) * W] for y in range(H)]
ref = lambda pixels: b"".join(bytes(p) for p in pixels)

add("png-rgb", "png", png(W, H, 8, 2, grid(rgb)), [ref((*p, 255) for p in rgb)], (W, H), 0, "opaque")
rgba = [(*p, a) for p, a in zip(rgb, alpha)]
add("png-rgba", "png", png(W, H, 8, 6, grid(rgba)), [ref(rgba)], (W, H), 0, "straight")
add("png-rgba-interlaced", "png", png(W, H, 8, 6, grid(rgba), interlaced=True), [ref(rgba)], (W, H), 0,
    "straight")
gray = [((r * 3 + g * 6 + b) // 10,) for r, g, b in rgb]
add("png-gray", "png", png(W, H, 8, 0, grid(gray)), [ref((v, v, v, 255) for (v,) in gray)], (W, H), 0, "opaque")
gray_alpha = [(v, a) for (v,), a in zip(gray, alpha)]
add("png-gray-alpha", "png", png(W, H, 8, 4, grid(gray_alpha)), [ref((v, v, v, a) for v, a in gray_alpha)],
    (W, H), 0, "straight")
bits = [((x // 4 + y // 4) % 2,) for y in range(H) for x in range(W)]
add("png-gray-1bit", "png", png(W, H, 1, 0, grid(bits)), [ref((v * 255,) * 3 + (255,) for (v,) in bits)],
    (W, H), 0, "opaque")
# Gray with tRNS: the value 0 is transparent.
add("png-gray-trns", "png", png(W, H, 1, 0, grid(bits), extra=png_chunk(b"tRNS", struct.pack(">H", 0))),
    [ref((255, 255, 255, 255) if v else (0, 0, 0, 0) for (v,) in bits)], (W, H), 0, "straight")
# 16-bit: each sample is b * 257, so the 8-bit value is b whichever way a decoder reduces it.
rgb16 = [tuple(c * 257 for c in p) for p in rgb]
add("png-rgb16", "png", png(W, H, 16, 2, grid(rgb16)), [ref((*p, 255) for p in rgb)], (W, H), 0, "opaque")
rgba16 = [tuple(c * 257 for c in p) for p in rgba]
add("png-rgba16", "png", png(W, H, 16, 6, grid(rgba16)), [ref(rgba)], (W, H), 1, "straight")
# Palette of 16 colours; then the same with per-entry alpha (tRNS).
palette = [(i * 16, 255 - i * 16, (i * 40) % 256) for i in range(16)]
indices = [((x // 2) + (y // 3)) % 16 for y in range(H) for x in range(W)]
plte = png_chunk(b"PLTE", b"".join(bytes(c) for c in palette))
add("png-palette", "png", png(W, H, 4, 3, grid([(i,) for i in indices]), extra=plte),
    [ref((*palette[i], 255) for i in indices)], (W, H), 0, "opaque")
entry_alpha = [0, 64, 128, 192] + [255] * 12
trns = png_chunk(b"tRNS", bytes(entry_alpha[:4]))
add("png-palette-trns", "png", png(W, H, 4, 3, grid([(i,) for i in indices]), extra=plte + trns),
    [ref((*palette[i], entry_alpha[i]) for i in indices)], (W, H), 0, "straight")
# Pillow's own writer, for a file made by a common tool rather than by hand.
add("png-pillow-rgba", "png", save(Image.frombytes("RGBA", (W, H), ref(rgba)), format="PNG"), [ref(rgba)],
    (W, H), 0, "straight")


# ---------------------------------------------------------------- GIF (reference: the source)
def lzw(indices, min_code_size):
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out, acc, nbits = bytearray(), 0, 0

    def emit(code, size):
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += size
        while nbits >= 8:
            out.append(acc & 0xFF); acc >>= 8; nbits -= 8

    def reset():
        return {(i,): i for i in range(clear)}, end + 1, min_code_size + 1

    table, next_code, size = reset()
    emit(clear, size)
    word = ()
    for k in indices:
        if word + (k,) in table:
            word += (k,)
            continue
        emit(table[word], size)
        if next_code < 4096:
            table[word + (k,)] = next_code
            next_code += 1
            if next_code > (1 << size) and size < 12:
                size += 1
        else:
            emit(clear, size)
            table, next_code, size = reset()
        word = (k,)
    emit(table[word], size)
    emit(end, size)
    if nbits:
        out.append(acc)
    blocks = b"".join(bytes([len(out[i:i + 255])]) + out[i:i + 255] for i in range(0, len(out), 255))
    return bytes([min_code_size]) + blocks + b"\x00"


def color_table(colors):
    n = 1
    while (1 << n) < len(colors):
        n += 1
    padded = list(colors) + [(0, 0, 0)] * ((1 << n) - len(colors))
    return n - 1, b"".join(bytes(c) for c in padded)


def gif(width, height, global_colors, frames, background=0, loop=True):
    """frames: dicts with x, y, w, h, indices, delay (cs), disposal, transparent, colors, interlaced."""
    size_field, table = color_table(global_colors)
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80 | 0x70 | size_field, background, 0))
    out += table
    if loop and len(frames) > 1:
        out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"
    for f in frames:
        transparent = f.get("transparent")
        packed = (f.get("disposal", 0) << 2) | (1 if transparent is not None else 0)
        out += b"\x21\xF9\x04" + struct.pack("<BHB", packed, f.get("delay", 0), transparent or 0) + b"\x00"
        local = f.get("colors")
        flags = 0x40 if f.get("interlaced") else 0
        if local:
            local_size, local_table = color_table(local)
            flags |= 0x80 | local_size
        out += b"\x2C" + struct.pack("<HHHHB", f["x"], f["y"], f["w"], f["h"], flags)
        if local:
            out += local_table
        rows = [f["indices"][r * f["w"]:(r + 1) * f["w"]] for r in range(f["h"])]
        if f.get("interlaced"):
            order = [r for start, step in [(0, 8), (4, 8), (2, 4), (1, 2)] for r in range(start, f["h"], step)]
            rows = [rows[r] for r in order]
        colors = local or global_colors
        min_code = max(2, (len(colors) - 1).bit_length())
        out += lzw([i for r in rows for i in r], min_code)
    return bytes(out + b"\x3B")


def composite(width, height, global_colors, frames):
    """What a browser shows for each frame: the canvas starts transparent; disposal 2 clears the
    frame's rectangle to transparent, 3 restores what was there before the frame."""
    canvas = [(0, 0, 0, 0)] * (width * height)
    shown = []
    for f in frames:
        before = list(canvas)
        colors = f.get("colors") or global_colors
        for r in range(f["h"]):
            for c in range(f["w"]):
                i = f["indices"][r * f["w"] + c]
                if i != f.get("transparent"):
                    canvas[(f["y"] + r) * width + f["x"] + c] = (*colors[i], 255)
        shown.append(ref(canvas))
        if f.get("disposal") == 2:
            for r in range(f["h"]):
                for c in range(f["w"]):
                    canvas[(f["y"] + r) * width + f["x"] + c] = (0, 0, 0, 0)
        elif f.get("disposal") == 3:
            canvas = before
    return shown


gif_colors = [(0, 0, 0), (255, 0, 0), (0, 200, 0), (0, 0, 255), (255, 255, 0), (255, 255, 255),
              (128, 128, 128), (0, 255, 255)]
still = {"x": 0, "y": 0, "w": W, "h": H,
         "indices": [((x // 4) + (y // 4) * 3 + (1 if x < 8 and y < 6 else 0)) % 8
                     for y in range(H) for x in range(W)]}
add("gif-still", "gif", gif(W, H, gif_colors, [still]), composite(W, H, gif_colors, [still]), (W, H), 0,
    "opaque")
interlaced = dict(still, interlaced=True)
add("gif-interlaced", "gif", gif(W, H, gif_colors, [interlaced]), composite(W, H, gif_colors, [interlaced]),
    (W, H), 0, "opaque")
holes = dict(still, transparent=0)
add("gif-transparent", "gif", gif(W, H, gif_colors, [holes]), composite(W, H, gif_colors, [holes]), (W, H), 0,
    "straight")
# Many colours and a long run: codes grow to 12 bits and the table fills, so the encoder clears it.
big_w, big_h = 96, 80
noisy = {"x": 0, "y": 0, "w": big_w, "h": big_h,
         "indices": [(x * 7 + y * 13 + (x * y) % 5) % 256 for y in range(big_h) for x in range(big_w)]}
noisy_colors = [(i, (i * 3) % 256, 255 - i) for i in range(256)]
add("gif-256-colors", "gif", gif(big_w, big_h, noisy_colors, [noisy]),
    composite(big_w, big_h, noisy_colors, [noisy]), (big_w, big_h), 0, "opaque")
animation = [
    dict(still, delay=10, disposal=1),
    {"x": 4, "y": 4, "w": 12, "h": 8, "delay": 0, "disposal": 2, "transparent": 3,
     "colors": [(10, 20, 30), (200, 100, 50), (90, 90, 250), (0, 0, 0)],
     "indices": [(c + r) % 4 for r in range(8) for c in range(12)]},
    {"x": 16, "y": 8, "w": 10, "h": 10, "delay": 5, "disposal": 3, "transparent": 0, "interlaced": True,
     "indices": [(c * r) % 8 for r in range(10) for c in range(10)]},
    {"x": 2, "y": 12, "w": 8, "h": 8, "delay": 1, "disposal": 0,
     "indices": [4 + (c + r) % 3 for r in range(8) for c in range(8)]},
    {"x": 20, "y": 2, "w": 6, "h": 6, "delay": 25, "disposal": 1, "transparent": 5,
     "indices": [5 if (c + r) % 2 else 7 for r in range(6) for c in range(6)]},
]
durations = [100 if f["delay"] <= 1 else f["delay"] * 10 for f in animation]
# The first frame covers the canvas, so it is opaque; later ones show holes.
add("gif-animated", "gif", gif(W, H, gif_colors, animation), composite(W, H, gif_colors, animation), (W, H), 0,
    "opaque", durations)


# ---------------------------------------------------------------- WebP
rgba_image = Image.frombytes("RGBA", (W, H), ref(rgba))


def add_webp(name, encoded, tolerance, alpha, exact=None):
    frames = [exact] if exact else [rgba_bytes(pillow_decoding(encoded))]
    add(name, "webp", encoded, frames, (W, H), tolerance, alpha)


add_webp("webp-lossy", save(rgb_image(), format="WEBP", quality=80), 4, "opaque")
add_webp("webp-lossless", save(rgb_image(), format="WEBP", lossless=True), 0, "opaque",
         exact=ref((*p, 255) for p in rgb))
add_webp("webp-lossless-alpha", save(rgba_image, format="WEBP", lossless=True, exact=True), 0, "straight",
         exact=ref(rgba))
add_webp("webp-lossy-alpha", save(rgba_image, format="WEBP", quality=80), 4, "straight")
# Animated: three full-canvas frames (Pillow stores later frames as sub-rectangles where they differ).
anim_frames = [rgb_image(), ImageOps.mirror(rgb_image()), ImageOps.flip(rgb_image())]
anim = save(anim_frames[0], format="WEBP", save_all=True, append_images=anim_frames[1:], lossless=True,
            duration=[80, 120, 200], loop=0)


def pillow_frames(encoded):
    """Every frame of an animation as Pillow (libwebp's animation decoder) composites it."""
    decoded = Image.open(io.BytesIO(encoded))
    frames = []
    for i in range(decoded.n_frames):
        decoded.seek(i)
        frames.append(rgba_bytes(decoded))
    return frames


add("webp-animated", "webp", anim, pillow_frames(anim), (W, H), 0, "opaque", [80, 120, 200])
# Lossy with alpha: frames carry ALPH chunks and are blended over the canvas; a 10 ms frame plays
# as 100 ms, as in browsers.
alpha_frames = [rgba_image, ImageOps.mirror(rgba_image), ImageOps.flip(rgba_image)]
anim = save(alpha_frames[0], format="WEBP", save_all=True, append_images=alpha_frames[1:], quality=80,
            duration=[50, 10, 70], loop=0)
add("webp-animated-alpha", "webp", anim, pillow_frames(anim), (W, H), 4, "straight", [50, 100, 70])


# ---------------------------------------------------------------- HEIF and AVIF (Debian 12's encoders)
# Encoded by heif-enc (libheif 1.15 with x265) and avifenc (libavif 0.11 with aom). References are
# the exact pixels for lossless AVIF; otherwise an independent decoder: pillow-heif (its own libheif
# 1.23 and libde265 1.1) for HEIF, Pillow's AVIF plugin (its own libavif 1.x and dav1d) for AVIF,
# against Imago's Debian libheif 1.15 + libde265 1.0 and libavif 0.11 + dav1d 1.0. YCbCr to RGB
# conversion may round differently between versions: tolerance 6 for those.
def encoded_with(command, images, ext):
    """Runs command(inputs, output) on PNG copies of `images` and returns the encoded bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for i, img in enumerate(images):
            inputs.append(os.path.join(tmp, f"in{i}.png"))
            img.save(inputs[-1])
        output = os.path.join(tmp, f"out.{ext}")
        subprocess.run(command(inputs, output), check=True, capture_output=True)
        with open(output, "rb") as f:
            return f.read()


def independent_frames(encoded):
    import pillow_heif
    pillow_heif.register_heif_opener()
    decoded = Image.open(io.BytesIO(encoded))
    frames = []
    for i in range(getattr(decoded, "n_frames", 1)):
        decoded.seek(i)
        frames.append(rgba_bytes(decoded))
    return frames


heif_lossy = encoded_with(lambda i, o: ["heif-enc", "-q", "80", *i, "-o", o], [rgb_image()], "heif")
add("heif-lossy", "heif", heif_lossy, independent_frames(heif_lossy), (W, H), 6, "opaque")
# Lossless x265 in 4:4:4, stored as a grid of tiles: the primary item is a 'grid' with its own ispe.
heif_grid = encoded_with(
    lambda i, o: ["heif-enc", "-L", "-p", "chroma=444", "--matrix_coefficients=0", *i, "-o", o],
    [rgb_image()], "heif")
add("heif-lossless-grid", "heif", heif_grid, independent_frames(heif_grid), (W, H), 6, "opaque")
heif_alpha = encoded_with(lambda i, o: ["heif-enc", "-q", "90", *i, "-o", o], [rgba_image], "heif")
add("heif-alpha", "heif", heif_alpha, independent_frames(heif_alpha), (W, H), 6, "straight")

avif_lossless = encoded_with(lambda i, o: ["avifenc", "-l", *i, o], [rgb_image()], "avif")
add("avif-lossless", "avif", avif_lossless, [rgba_bytes(rgb_image())], (W, H), 0, "opaque")
avif_alpha = encoded_with(lambda i, o: ["avifenc", "-l", *i, o], [rgba_image], "avif")
add("avif-lossless-alpha", "avif", avif_alpha, [rgba_bytes(rgba_image)], (W, H), 0, "straight")
avif_lossy = encoded_with(lambda i, o: ["avifenc", "--min", "20", "--max", "30", *i, o], [rgb_image()], "avif")
add("avif-lossy", "avif", avif_lossy, independent_frames(avif_lossy), (W, H), 6, "opaque")
# An image sequence ('avis'): 80 ms, 120 ms and a 10 ms frame that plays as 100 ms.
sequence = [rgb_image(), ImageOps.mirror(rgb_image()), ImageOps.flip(rgb_image())]
avif_animated = encoded_with(
    lambda i, o: ["avifenc", "-l", "--timescale", "1000", "--duration", "80", i[0], "--duration", "120", i[1],
                  "--duration", "10", i[2], o], sequence, "avif")
assert avif_animated[8:12] == b"avis", avif_animated[:32]
add("avif-animated", "avif", avif_animated, [rgba_bytes(f) for f in sequence], (W, H), 0, "opaque",
    [80, 120, 100])

# A long GIF for the playback tests: 200 frames of 8x8, each one a moving dot, 20 ms each.
long_frames = [{"x": 0, "y": 0, "w": 8, "h": 8, "delay": 2,
                "indices": [1 + (n % 7) if (x + y * 8) == n % 64 else 0 for y in range(8) for x in range(8)]}
               for n in range(200)]
add("gif-200-frames", "gif", gif(8, 8, gif_colors, long_frames), composite(8, 8, gif_colors, long_frames),
    (8, 8), 0, "opaque", [20] * 200)


# ---------------------------------------------------------------- Bombs: 65,535 x 65,535 in a few bytes
def write_bomb(name, data):
    write(name, data)
    print(f"{name}: {len(data)} bytes")


write_bomb("bomb.png", png(1, 1, 8, 0, [[(0,)]]).replace(
    png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)),
    png_chunk(b"IHDR", struct.pack(">IIBBBBB", 65535, 65535, 8, 0, 0, 0, 0))))
jpeg = bytearray(save(Image.new("RGB", (8, 8)), format="JPEG"))
sof = jpeg.index(b"\xFF\xC0")
jpeg[sof + 5:sof + 9] = struct.pack(">HH", 65535, 65535)
write_bomb("bomb.jpg", bytes(jpeg))
bomb_gif = bytearray(gif(1, 1, gif_colors, [{"x": 0, "y": 0, "w": 1, "h": 1, "indices": [1]}]))
bomb_gif[6:10] = struct.pack("<HH", 65535, 65535)
descriptor = bomb_gif.index(b"\x2C\x00\x00\x00\x00")
bomb_gif[descriptor + 5:descriptor + 9] = struct.pack("<HH", 65535, 65535)
write_bomb("bomb.gif", bytes(bomb_gif))
webp = bytearray(save(Image.new("RGB", (1, 1)), format="WEBP", lossless=True))
vp8l = webp.index(b"VP8L") + 8
assert webp[vp8l] == 0x2F
bits = struct.unpack("<I", webp[vp8l + 1:vp8l + 5])[0]
bits = (bits & ~0x0FFFFFFF) | 16383 | (16383 << 14)  # 16,384 x 16,384: the most WebP can declare
webp[vp8l + 1:vp8l + 5] = struct.pack("<I", bits)
write_bomb("bomb.webp", bytes(webp))



def with_ispe(encoded, width, height):
    """The file with every 'ispe' property declaring width x height."""
    data = bytearray(encoded)
    at = data.find(b"ispe")
    assert at > 0
    while at > 0:
        data[at + 8:at + 16] = struct.pack(">II", width, height)
        at = data.find(b"ispe", at + 4)
    return bytes(data)


write_bomb("bomb.heif", with_ispe(heif_lossy, 65535, 65535))
write_bomb("bomb.avif", with_ispe(avif_lossless, 65535, 65535))

# JPEG XL (jxl/make-jxl-fixtures.py, Debian's cjxl): its lossless files of PNG fixtures decode to
# those PNGs' references exactly (jxl-rgba16 to 8 bits as the PNG decoder rounds; djxl 0.7 cannot write
# it). The rest of the JXL corpus is compared with djxl at test time.
for name, source in [("jxl-lossless", "png-rgb"), ("jxl-alpha", "png-rgba"), ("jxl-gray", "png-gray"),
                     ("jxl-rgba16", "png-rgba16")]:
    png = next(entry for entry in manifest if entry["name"] == source)
    manifest.append(dict(png, name=name, file=f"jxl/{name}.jxl"))

with open(os.path.join(HERE, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
    f.write("\n")
print(f"{len(manifest)} fixtures")
