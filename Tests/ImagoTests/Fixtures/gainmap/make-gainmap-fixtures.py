#!/usr/bin/env python3
"""Makes the Ultra HDR (gain-map) JPEG fixtures with libultrahdr, through libvips 8.18's uhdrsave.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pyvips pyvips-binary
    /tmp/venv/bin/python make-gainmap-fixtures.py      # run in this folder

Each fixture is a small scRGB (linear, float) picture with highlights above SDR white (1.0), so
libultrahdr (2.0.2 in pyvips-binary 8.18.7) writes an SDR base JPEG plus a gain map JPEG: the MPF
second image, described by ISO 21496-1 metadata (a version-only APP2 in the primary image, the
full metadata in the gain map's). That libultrahdr writes no `hdrgm` XMP, so the `-xmp` variant is
rewritten here from the first file as libultrahdr 1.x wrote it (hdrgm XMP, no ISO segments, MPF
offsets recomputed), and read back through libvips to show libultrahdr takes it.

`reference.json` records what libvips/libultrahdr report about each file (`uhdrload`): the base
size, the gain map's size, bands and mean value (its `gainmap-data` JPEG) and the `gainmap-*` metadata fields
(content boosts and capacities linear, as libvips gives them; the files store their log2).
"""
import json
import math
import pyvips

def scene(width, height):
    """A horizontal ramp from dark to 4x SDR white, with a vertical colour tint: smooth, so it
    compresses to a few KB, and bright enough that the gain map is not flat."""
    x = pyvips.Image.xyz(width, height)
    u = x[0] / (width - 1)
    v = x[1] / (height - 1)
    luma = (u * u) * 4.0 + 0.02
    r = luma * (0.6 + 0.4 * v)
    g = luma * 0.8
    b = luma * (1.0 - 0.4 * v)
    image = r.bandjoin([g, b]).cast("float")
    return image.copy(interpretation="scrgb")

def metadata(image):
    fields = {}
    for name in image.get_fields():
        if name.startswith("gainmap-"):
            value = image.get(name)
            if isinstance(value, (list, tuple)):
                fields[name] = [round(v, 5) for v in value]
            elif isinstance(value, float):
                fields[name] = round(value, 5)
            elif isinstance(value, int):
                fields[name] = value
    return fields

def segments(jpeg):
    """The marker segments of a JPEG up to its first SOS, and the rest (from SOS on)."""
    assert jpeg[:2] == b"\xff\xd8"
    found, i = [], 2
    while jpeg[i + 1] != 0xDA:
        length = int.from_bytes(jpeg[i + 2:i + 4], "big")
        found.append(jpeg[i:i + 2 + length])
        i += 2 + length
    return found, jpeg[i:]

def segment(marker, payload):
    return bytes([0xFF, marker]) + (len(payload) + 2).to_bytes(2, "big") + payload

def mpf_entries(jpeg):
    """Where the MP entries of `jpeg`'s MPF segment start, from its TIFF header."""
    start = jpeg.index(b"MPF\x00") + 4
    mpf = jpeg[start:]
    count = int.from_bytes(mpf[8:10], "big")
    for n in range(count):
        tag = mpf[10 + 12 * n:10 + 12 * n + 12]
        if int.from_bytes(tag[:2], "big") == 0xB002:
            return int.from_bytes(tag[8:12], "big")

def mpf_images(jpeg):
    """(offset, size) of the images the MPF segment of `jpeg` lists, offsets from the file start."""
    start = jpeg.index(b"MPF\x00") + 4
    mpf = jpeg[start:]
    entries = mpf_entries(jpeg)
    images = []
    for n in range(2):
        entry = mpf[entries + 16 * n:entries + 16 * n + 16]
        size, offset = int.from_bytes(entry[4:8], "big"), int.from_bytes(entry[8:12], "big")
        images.append((0 if n == 0 else start + offset, size))
    return images

XMP_NS = b"http://ns.adobe.com/xap/1.0/\x00"

def xmp_variant(jpeg, metadata):
    """The same file with the gain map described by `hdrgm` XMP (as libultrahdr 1.x wrote it:
    hdrgm:Version and a Container directory in the primary image, the parameters as attributes
    in the gain map's), and the ISO 21496-1 segments removed: a reader must use the XMP."""
    (_, primary_size), (map_offset, map_size) = mpf_images(jpeg)
    primary, gainmap = jpeg[:primary_size], jpeg[map_offset:map_offset + map_size]
    log2 = lambda v: "%.6f" % math.log2(v)
    params = (
        'hdrgm:Version="1.0" hdrgm:GainMapMin="%s" hdrgm:GainMapMax="%s" hdrgm:Gamma="%g" '
        'hdrgm:OffsetSDR="%g" hdrgm:OffsetHDR="%g" hdrgm:HDRCapacityMin="%s" hdrgm:HDRCapacityMax="%s" '
        'hdrgm:BaseRenditionIsHDR="False"' % (
            log2(metadata["gainmap-min-content-boost"][0]), log2(metadata["gainmap-max-content-boost"][0]),
            metadata["gainmap-gamma"][0], metadata["gainmap-offset-sdr"][0], metadata["gainmap-offset-hdr"][0],
            log2(metadata["gainmap-hdr-capacity-min"]), log2(metadata["gainmap-hdr-capacity-max"])))
    def xmp(description, body=""):
        return segment(0xE1, XMP_NS + (
            '<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 5.1.2">'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            '<rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" '
            'xmlns:Container="http://ns.google.com/photos/1.0/container/" '
            'xmlns:Item="http://ns.google.com/photos/1.0/container/item/" %s>%s</rdf:Description>'
            '</rdf:RDF></x:xmpmeta>' % (description, body)).encode())
    def without_iso(found):
        return [s for s in found if not (s[1] == 0xE2 and s[4:].startswith(b"urn:iso:std:iso:ts:21496:-1"))]
    map_segments, map_rest = segments(gainmap)
    new_map = b"\xff\xd8" + xmp(params) + b"".join(without_iso(map_segments)) + map_rest
    directory = (
        '<Container:Directory><rdf:Seq>'
        '<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>'
        '<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="%d"/></rdf:li>'
        '</rdf:Seq></Container:Directory>' % len(new_map))
    primary_segments, primary_rest = segments(primary)
    primary_segments = without_iso(primary_segments)
    head = b"\xff\xd8" + b"".join(s for s in primary_segments if s[1] in (0xE0, 0xE1)) + xmp('hdrgm:Version="1.0"', directory)
    tail = b"".join(s for s in primary_segments if s[1] not in (0xE0, 0xE1))
    # The MPF segment lists both images; its offsets count from its TIFF header.
    mpf_at = tail.index(b"MPF\x00")
    size = len(head) + len(tail) + len(primary_rest)
    tiff_start = len(head) + mpf_at + 4
    mpf = bytearray(tail)
    entries = mpf_at + 4 + mpf_entries(jpeg)
    mpf[entries + 4:entries + 8] = size.to_bytes(4, "big")
    mpf[entries + 16 + 4:entries + 16 + 8] = len(new_map).to_bytes(4, "big")
    mpf[entries + 16 + 8:entries + 16 + 12] = (size - tiff_start).to_bytes(4, "big")
    return head + bytes(mpf) + primary_rest + new_map

references = {}
for name, size in {
    "ultrahdr-64x48.jpg": (64, 48, 4),
    "ultrahdr-96x64.jpg": (96, 64, 2),
    "ultrahdr-64x48-xmp.jpg": None,
}.items():
    if name.endswith("-xmp.jpg"):
        source = name.replace("-xmp", "")
        with open(source, "rb") as f:
            jpeg = f.read()
        with open(name, "wb") as f:
            f.write(xmp_variant(jpeg, references[source]))
    else:
        width, height, factor = size
        scene(width, height).uhdrsave(name, Q=85, gainmap_scale_factor=factor)
    loaded = pyvips.Image.uhdrload(name)
    gainmap = pyvips.Image.new_from_buffer(loaded.get("gainmap-data"), "")
    entry = {"width": loaded.width, "height": loaded.height}
    entry["gainmapWidth"] = gainmap.width
    entry["gainmapHeight"] = gainmap.height
    entry["gainmapBands"] = gainmap.bands
    entry["gainmapMean"] = round(gainmap.avg(), 3)  # its pixels as libjpeg decodes them, averaged
    entry.update(metadata(loaded))
    references[name] = entry

with open("reference.json", "w") as out:
    json.dump(references, out, indent=2, sort_keys=True)
    out.write("\n")
print(json.dumps(references, indent=2, sort_keys=True))
