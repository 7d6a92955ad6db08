"""Smart-crop fixtures: photographs whose salient object is off-centre, and where libvips'
`smartcrop` (attention and entropy) cuts them, for ImageProcessors.SmartCrop's tests.

Each scene is a real, dull background (scikit-image's gravel, grass or brick texture, grey) with a
real, colourful photograph (scikit-image's coffee cup, Chelsea the cat, the astronaut) pasted off
centre; Pillow composes and saves them (JPEG quality 90). libvips 8.18 (pyvips-binary) crops each
to each window with `smartcrop`; manifest.json records the object's box and libvips' crops.

    python -m venv /tmp/venv && /tmp/venv/bin/pip install scikit-image pillow pyvips pyvips-binary
    /tmp/venv/bin/python make-smartcrop-fixtures.py
"""
import json
import os

import pyvips
import skimage
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(skimage.__file__), "data")


def load(name):
    return Image.open(os.path.join(DATA, name))


SCENES = [
    # name, background texture, object picture, object width, object's top-left
    ("coffee-right", "gravel.png", "coffee.png", 300, (620, 120)),
    ("cat-top-left", "grass.png", "chelsea.png", 260, (40, 30)),
    ("astronaut-bottom", "brick.png", "astronaut.png", 240, (360, 380)),
]
WINDOWS = [(300, 300), (400, 200), (200, 400)]


def main():
    manifest = {"libvips": f"{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}", "scenes": []}
    for name, texture, picture, width, (x, y) in SCENES:
        background = load(texture).convert("L").resize((960, 640), Image.LANCZOS).convert("RGB")
        thing = load(picture).convert("RGB")
        height = thing.height * width // thing.width
        background.paste(thing.resize((width, height), Image.LANCZOS), (x, y))
        path = os.path.join(HERE, f"{name}.jpg")
        background.save(path, quality=90)
        crops = []
        for window_width, window_height in WINDOWS:
            for interesting in ["attention", "entropy"]:
                image = pyvips.Image.new_from_file(path)
                out = image.smartcrop(window_width, window_height, interesting=interesting)
                # extract_area records the crop's origin as the negated offset.
                crops.append({"width": window_width, "height": window_height, "interesting": interesting,
                              "left": -out.xoffset, "top": -out.yoffset})
        manifest["scenes"].append({"file": f"{name}.jpg", "object": {"x": x, "y": y, "width": width, "height": height},
                                   "crops": crops})
    with open(os.path.join(HERE, "manifest.json"), "w") as file:
        json.dump(manifest, file, indent=1)
        file.write("\n")


main()
