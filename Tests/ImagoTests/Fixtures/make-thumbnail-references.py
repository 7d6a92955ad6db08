#!/usr/bin/env python3
"""Makes the thumbnail quality corpus and its Pillow references (run once; the outputs are committed).

Sources: photo-like synthetic images (smooth gradients, hard edges, fine lines, text and noise),
as JPEG, PNG with alpha and lossy WebP. References: Pillow's `thumbnail((256, 256))` (Lanczos,
reducing_gap 2) of the fully decoded source (loaded first, so JPEG `draft` does not apply), saved
as PNG. ThumbnailQualityTests compares Imago's thumbnails with them (PSNR >= 32 dB).

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pillow
    /tmp/venv/bin/python Tests/ImagoTests/Fixtures/make-thumbnail-references.py
"""
import os
import random

from PIL import Image, ImageDraw, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))


def scene(width, height, seed, alpha, grain=0.08):
    rng = random.Random(seed)
    image = Image.new("RGBA", (width, height))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            pixels[x, y] = (x * 255 // width, y * 255 // height, (x + y) * 255 // (width + height), 255)
    draw = ImageDraw.Draw(image)
    for _ in range(40):
        x0, y0 = rng.randrange(width), rng.randrange(height)
        x1, y1 = x0 + rng.randrange(20, width // 3), y0 + rng.randrange(20, height // 3)
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256), 255)
        if rng.random() < 0.5:
            draw.ellipse((x0, y0, x1, y1), fill=colour)
        else:
            draw.rectangle((x0, y0, x1, y1), fill=colour)
    for i in range(0, width, 7):  # fine lines: aliasing shows here
        draw.line((i, 0, i + height // 2, height), fill=(20, 20, 20, 255), width=1)
    for i in range(30):
        draw.text((rng.randrange(width), rng.randrange(height)), "Imago thumbnails %d" % i, fill=(0, 0, 0, 255))
    image = image.filter(ImageFilter.GaussianBlur(0.6))
    noise = Image.effect_noise((width, height), 12).convert("L")
    r, g, b, a = image.split()
    r, g, b = (Image.blend(c, noise, grain) for c in (r, g, b))
    if alpha:  # a soft transparent vignette and a fully transparent corner
        mask = Image.new("L", (width, height), 0)
        ImageDraw.Draw(mask).ellipse((-width // 4, -height // 4, width * 5 // 4, height * 5 // 4), fill=255)
        a = mask.filter(ImageFilter.GaussianBlur(20))
    return Image.merge("RGBA", (r, g, b, a))


def reference(path, out):
    image = Image.open(path)
    image.load()  # no draft: the whole source, as a full decode
    image.thumbnail((256, 256), Image.LANCZOS)
    image.save(out)
    print(out, image.size)


def main():
    os.chdir(HERE)
    scene(1024, 768, 1, False, 0.03).convert("RGB").save("thumbnail-photo.jpg", quality=80)
    scene(1280, 896, 2, True, 0).save("thumbnail-alpha.png", optimize=True)
    scene(1024, 768, 3, False, 0.03).convert("RGB").save("thumbnail-photo.webp", quality=75)
    for name in ["thumbnail-photo.jpg", "thumbnail-alpha.png", "thumbnail-photo.webp"]:
        reference(name, name.rsplit(".", 1)[0] + "-" + name.rsplit(".", 1)[1] + ".pillow256.png")


if __name__ == "__main__":
    main()
