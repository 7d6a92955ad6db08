"""Phone-sized photographs for Benchmarks/serve-bench.sh's photograph mode.

Real pictures shipped with scikit-image (astronaut, chelsea, coffee, the Hubble deep field, an
immunohistochemistry slide, two motorcycles, a retina, a rocket) and matplotlib (Grace Hopper),
each cut to 4:3 and scaled to 4032x3024 by Pillow (Lanczos), with sensor-like noise (Gaussian,
sigma 5 levels, by numpy) so that the files carry what a phone's do: 2 to 3 MB at JPEG quality 92,
4:2:0 (Pillow's libjpeg-turbo). Three variants of each (other cut, mirrored, another noise) make
30 sources; every third file is progressive, as a third of what phones and editors upload.

    python make-photos.py DIR [COUNT]
"""
import os
import sys

import matplotlib
import numpy
import skimage
from PIL import Image, ImageOps

WIDTH, HEIGHT = 4032, 3024


def pictures():
    data = os.path.join(os.path.dirname(skimage.__file__), "data")
    names = ["astronaut.png", "chelsea.png", "coffee.png", "hubble_deep_field.jpg", "ihc.png",
             "motorcycle_left.png", "motorcycle_right.png", "retina.jpg", "rocket.jpg"]
    paths = [os.path.join(data, name) for name in names]
    paths.append(os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "sample_data", "grace_hopper.jpg"))
    return [Image.open(path).convert("RGB") for path in paths]


def cut(image, variant):
    """A 4:3 window (landscape), placed by `variant`."""
    width, height = image.size
    if width * 3 >= height * 4:
        cut_height, cut_width = height, height * 4 // 3
    else:
        cut_width, cut_height = width, width * 3 // 4
    spare_x, spare_y = width - cut_width, height - cut_height
    x = [spare_x // 2, 0, spare_x][variant % 3]
    y = [spare_y // 2, spare_y, 0][variant % 3]
    return image.crop((x, y, x + cut_width, y + cut_height))


def main():
    folder = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    os.makedirs(folder, exist_ok=True)
    sources = pictures()
    for index in range(count):
        variant = index // len(sources)
        picture = cut(sources[index % len(sources)], variant)
        if variant % 2 == 1:
            picture = ImageOps.mirror(picture)
        large = numpy.asarray(picture.resize((WIDTH, HEIGHT), Image.LANCZOS), dtype=numpy.float32)
        noise = numpy.random.default_rng(index).normal(0, 5, large.shape).astype(numpy.float32)
        pixels = numpy.clip(large + noise, 0, 255).astype(numpy.uint8)
        Image.fromarray(pixels).save(
            os.path.join(folder, f"{index}.jpg"), quality=92, subsampling="4:2:0", progressive=index % 3 == 2)


main()
