#!/usr/bin/env python3
"""Makes the colour-management corpus in this folder. Run once; the outputs are committed.

    apt-get install liblcms2-utils liblcms2-dev webp libavif-bin libheif-examples \
        icc-profiles-free colord-data libgs-common gcc
    python3 -m venv /tmp/colour-venv
    /tmp/colour-venv/bin/pip install pillow pillow-heif pyvips pyvips-binary numpy
    /tmp/colour-venv/bin/python make-colour-fixtures.py

(cc and Debian's liblcms2-dev build make-profiles.c, for the profiles no Debian package ships.)

The source picture is thumbnail-photo.jpg from the parent folder scaled to 192x144 with a strip of
saturated patches along the bottom: original-srgb.png. Every fixture is that picture converted from
sRGB into the fixture's colour space by Little CMS (relative colorimetric, no black point
compensation), then written by a tool nobody on the project wrote (Pillow, pillow-heif, cwebp,
avifenc, jpgicc, tificc and libvips), with its profile (or CICP, or gAMA/cHRM) attached. Debian's
heif-enc is tried for the nclx HEIC but writes no colr box, so pillow-heif writes that one.

Beside each fixture NAME.EXT lies NAME.EXT.reference.png: that very file decoded by an independent
decoder (Pillow, pillow-heif, libvips) and converted to sRGB by Little CMS through the file's own
profile, 8-bit RGB with no colour chunks. Broken profiles are references of the pixels as they are
(a decoder must fall back to sRGB). HEIC and AVIF files are also decoded by Debian's heif-convert
and avifdec (the libheif and libavif Imago links), which must give the same pixels. manifest.json
lists every fixture; the script ends with a self-check table (CIEDE2000 and PSNR of each reference
against the original, and of the pixels read without colour management against the reference).
"""
import hashlib, io, json, os, random, re, shutil, struct, subprocess, tempfile, zlib

import numpy as np
import PIL
import pillow_heif
import pyvips
from PIL import Image, ImageCms, features

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, "..", "thumbnail-photo.jpg")
W, H = 192, 144
RELATIVE = ImageCms.Intent.RELATIVE_COLORIMETRIC
pillow_heif.register_heif_opener()
manifest = []
checks = []  # (file, reference, raw pixels without colour management, kind) for the self-check
extra_checks = []  # (label, image, image) pairs compared in the self-check too


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def output_of(command):
    """stdout and stderr of a command that may exit non-zero (a usage text)."""
    done = subprocess.run(command, capture_output=True, text=True)
    return done.stdout + done.stderr


def debian_version(package):
    return run(["dpkg-query", "-W", "-f=${Version}", package]).stdout


# ---------------------------------------------------------------- tools and their versions
LCMS = features.version("littlecms2")
PILLOW = f"Pillow {PIL.__version__} (libjpeg-turbo {features.version('libjpeg_turbo')}, zlib " \
         f"{features.version('zlib')}, Little CMS {LCMS})"
PILLOW_AVIF = f"Pillow {PIL.__version__} (libavif {features.version('avif')})"
HEIF_INFO = pillow_heif.libheif_info()
PILLOW_HEIF = f"pillow-heif {pillow_heif.__version__} (libheif {HEIF_INFO['libheif']}, {HEIF_INFO['HEIF']})"
VIPS = f"pyvips {pyvips.__version__} (libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}, " \
       f"pyvips-binary)"
CWEBP = f"cwebp {output_of(['cwebp', '-version']).strip()} (Debian webp {debian_version('webp')})"
AVIFENC = "avifenc " + re.search(r"Version: (\S+) .*?(aom \[enc/dec\]:[^,\s]+)", output_of(["avifenc", "--version"])) \
    .expand(r"\1 (\2") + f", Debian libavif-bin {debian_version('libavif-bin')})"
HEIFENC = "heif-enc " + re.search(r"libheif version: (\S+)", output_of(["heif-enc", "--help"])).group(1) + " (" \
    + re.search(r"x265 = (.*?) \[", output_of(["heif-enc", "--list-encoders"])).group(1) \
    + f", Debian libheif-examples {debian_version('libheif-examples')})"
JPGICC = re.search(r"(Little CMS ICC profile applier for JPEG - \S+ \[LittleCMS \S+\])", output_of(["jpgicc"])) \
    .group(1) + f" (Debian liblcms2-utils {debian_version('liblcms2-utils')})"
TIFICC = re.search(r"(Little CMS ICC profile applier for TIFF - \S+ \[LittleCMS \S+\])", output_of(["tificc"])) \
    .group(1) + f" (Debian liblcms2-utils {debian_version('liblcms2-utils')})"
BY_HAND = f"make-colour-fixtures.py (chunks written by hand; pixels by {PILLOW})"


# ---------------------------------------------------------------- profiles
def read(path):
    with open(path, "rb") as f:
        return f.read()


def icc_description(data):
    """The 'desc' tag's text exactly as stored: a v2 textDescriptionType's ASCII (without its
    terminating NUL) or a v4 multiLocalizedUnicodeType's en-US (else first) record."""
    count = struct.unpack(">I", data[128:132])[0]
    for i in range(count):
        signature, offset, size = struct.unpack(">4sII", data[132 + 12 * i:144 + 12 * i])
        if signature != b"desc":
            continue
        tag = data[offset:offset + size]
        if tag[:4] == b"desc":
            length = struct.unpack(">I", tag[8:12])[0]
            return tag[12:12 + length].rstrip(b"\0").decode("latin-1")
        if tag[:4] == b"mluc":
            records, record_size = struct.unpack(">II", tag[8:16])
            chosen = None
            for r in range(records):
                language, country, length, at = struct.unpack(">2s2sII", tag[16 + r * record_size:28 + r * record_size])
                if chosen is None or (language, country) == (b"en", b"US"):
                    chosen = (length, at)
            return tag[chosen[1]:chosen[1] + chosen[0]].decode("utf-16-be")
    return None


ICC = "/usr/share/color/icc"
PROFILE_FILES = {  # key: (path, Debian package)
    "adobergb": (f"{ICC}/compatibleWithAdobeRGB1998.icc", "icc-profiles-free"),
    "prophoto": (f"{ICC}/colord/ProPhotoRGB.icc", "colord-data"),
    "cmyk": (f"{ICC}/ghostscript/default_cmyk.icc", "libgs-common"),
    "cmyk-small": (f"{ICC}/ghostscript/ps_cmyk.icc", "libgs-common"),
    "gray": (f"{ICC}/Gray.icc", "icc-profiles-free"),
}
PROFILES = {key: read(path) for key, (path, _) in PROFILE_FILES.items()}
SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()  # Little CMS's built-in sRGB

# ICC parametric curves, Little CMS numbering: type 4 is the sRGB form Y = (aX+b)^g for X >= d, else cX.
SRGB_CURVE = (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
D65 = (0.3127, 0.3290)
P3_PRIMARIES = (0.680, 0.320, 0.265, 0.690, 0.150, 0.060)
BT2020_PRIMARIES = (0.708, 0.292, 0.170, 0.797, 0.131, 0.046)
ADOBE_PRIMARIES = (0.64, 0.33, 0.21, 0.71, 0.15, 0.06)
PNG_GAMMA = 55556  # gAMA: file gamma 0.55556, so decoding raises to 1 / 0.55556 (about 1.8)


def build_profiles(tmp):
    tool = os.path.join(tmp, "make-profiles")
    run(["cc", "-O1", "-o", tool, os.path.join(HERE, "make-profiles.c"), "-llcms2"])

    def build(name, description, white, primaries, curve):
        out = os.path.join(tmp, name + ".icc")
        run([tool, out, description, *map(repr, white + primaries), str(curve[0]), *map(repr, curve[1])])
        PROFILES[name] = with_fixed_date(read(out))
        PROFILE_FILES[name] = (f"built by make-profiles.c (Little CMS {debian_version('liblcms2-dev')})", "liblcms2-dev")

    build("displayp3", "Display P3", D65, P3_PRIMARIES, SRGB_CURVE)
    # Transfer 1 (BT.709) as Chromium shows it in images: the sRGB curve (its gfx::ColorSpace maps
    # BT.709, BT.601 and BT.2020 transfers to sRGB for images; the BT.709 inverse OETF is 3.7 ΔE
    # away from what the browser shows).
    build("cicp-9-1", "BT.2020 primaries, transfer 1 read as sRGB (CICP 9/1)", D65, BT2020_PRIMARIES, SRGB_CURVE)
    build("gama-chrm", "PNG gAMA 0.55556, cHRM Adobe RGB primaries, D65", D65, ADOBE_PRIMARIES,
          (1, [100000 / PNG_GAMMA]))


def with_fixed_date(profile):
    """Little CMS stamps the creation time into the header (and so into the MD5 profile ID): a fixed
    date keeps reruns byte-identical. The ID is the MD5 of the profile with its flags, rendering
    intent and ID fields zeroed (ICC.1:2010 7.2.18)."""
    data = bytearray(profile)
    data[24:36] = struct.pack(">6H", 2025, 1, 1, 0, 0, 0)
    if any(data[84:100]):
        zeroed = bytearray(data)
        zeroed[44:48] = zeroed[64:68] = b"\0" * 4
        zeroed[84:100] = b"\0" * 16
        data[84:100] = hashlib.md5(zeroed).digest()
    return bytes(data)


def cms(data):
    return ImageCms.ImageCmsProfile(io.BytesIO(data))


def convert(img, source, target, mode):
    """Little CMS through Pillow: relative colorimetric, no black point compensation. The result
    carries no profile (Pillow would note the target's in info, and its writers would embed it)."""
    out = ImageCms.profileToProfile(img, cms(source), cms(target), renderingIntent=RELATIVE, outputMode=mode,
                                    flags=ImageCms.Flags.NONE)
    out.info.pop("icc_profile", None)
    return out


def to_srgb(decoded, profile):
    return convert(decoded, profile, SRGB, "RGB")


# ---------------------------------------------------------------- the source picture
PATCHES = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (0, 255, 255), (255, 0, 255), (255, 255, 0),
           (255, 128, 0), (0, 128, 255), (128, 128, 128), (192, 96, 64), (0, 0, 0), (255, 255, 255)]


def original():
    img = Image.open(PHOTO).convert("RGB").resize((W, H), Image.LANCZOS)
    patch = W // len(PATCHES)
    for i, colour in enumerate(PATCHES):
        img.paste(Image.new("RGB", (patch, 16), colour), (i * patch, H - 16))
    return img


# ---------------------------------------------------------------- writers
def save(img, **options):
    out = io.BytesIO()
    img.save(out, **options)
    return out.getvalue()


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_chunks(data):
    chunks, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunks.append((kind, data[at + 8:at + 8 + length]))
        at += 12 + length
    return chunks


def png_with(plain, *extra):
    """A Pillow-written PNG (no colour chunks) with `extra` chunks inserted after IHDR."""
    assert plain[:8] == b"\x89PNG\r\n\x1a\n" and plain[12:16] == b"IHDR"
    assert not {k for k, _ in png_chunks(plain)} & {b"iCCP", b"sRGB", b"gAMA", b"cHRM", b"cICP"}
    end_of_ihdr = 8 + 12 + 13
    return plain[:end_of_ihdr] + b"".join(extra) + plain[end_of_ihdr:]


def iccp(profile, name=b"ICC Profile"):
    return png_chunk(b"iCCP", name + b"\0\0" + zlib.compress(profile, 9))


def jpeg_with_app2(plain, segments):
    """A Pillow-written JPEG (no profile) with APP2 ICC_PROFILE segments inserted after APP0.
    segments: (sequence number, count, payload) triples, written as given."""
    assert plain[:4] == b"\xff\xd8\xff\xe0" and b"ICC_PROFILE" not in plain
    app0_end = 4 + struct.unpack(">H", plain[4:6])[0]
    app2 = b"".join(b"\xff\xe2" + struct.pack(">H", 2 + 14 + len(p)) + b"ICC_PROFILE\0" + bytes([n, c]) + p
                    for n, c, p in segments)
    return plain[:app0_end] + app2 + plain[app0_end:]


def jpeg_markers(data):
    """(marker, payload) of every segment before the first SOS."""
    out, at = [], 2
    while at < len(data):
        assert data[at] == 0xFF
        marker = data[at + 1]
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        out.append((marker, data[at + 4:at + 2 + length]))
        if marker == 0xDA:
            break
        at += 2 + length
    return out


def colr_boxes(data):
    """Every 'colr' property of an ISOBMFF file: ('prof', bytes) or ('nclx', (P, T, M, full))."""
    out, at = [], 0
    meta_end = data.find(b"mdat")
    while True:
        at = data.find(b"colr", at + 1)
        if at < 0 or (meta_end > 0 and at > meta_end):
            return out
        size = struct.unpack(">I", data[at - 4:at])[0]
        kind = data[at + 4:at + 8]
        if kind == b"nclx":
            p, t, m, f = struct.unpack(">HHHB", data[at + 8:at + 15])
            out.append(("nclx", (p, t, m, f >> 7)))
        elif kind in (b"prof", b"rICC"):
            out.append((kind.decode(), data[at + 8:at - 4 + size]))


def encoded_with(command, img, ext, suffix=".png"):
    """Runs command(input, output) on a copy of img (saved by Pillow as `suffix`); returns the output."""
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "in" + suffix)
        if isinstance(img, bytes):
            write_path(source, img)
        else:
            img.save(source)
        output = os.path.join(tmp, "out." + ext)
        run(command(source, output))
        return read(output)


def write_path(path, data):
    with open(path, "wb") as f:
        f.write(data)


# ---------------------------------------------------------------- decoding and the manifest
def decode(data):
    """The file's pixels as an independent decoder gives them, without colour management:
    Pillow for JPEG/PNG/WebP/AVIF (its own libjpeg-turbo, libpng-free PNG decoder, libwebp,
    libavif), pillow-heif for HEIC. Returns the PIL image (info holds any icc_profile)."""
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


def as_rgb(img):
    """What a decoder without colour management shows."""
    return img.convert("RGB")


def add(file, data, reference, fmt, profile, description, made_by, notes, raw=None, kind="colour", **extra):
    write(file, data)
    if fmt in ("heic", "avif"):
        notes += "; " + debian_decoder_agrees(data, fmt)
    ref_name = file + ".reference.png"
    assert reference.mode == "RGB" and reference.size == (W, H) or file.startswith("serve-")
    # A bare copy: Pillow would write a decoded image's icc_profile (kept in .info) into the PNG.
    bare = Image.frombytes(reference.mode, reference.size, reference.tobytes())
    write(ref_name, save(bare, format="PNG", optimize=True))
    entry = {"file": file, "reference": ref_name, "format": fmt, "profile": profile, "description": description,
             "width": reference.size[0], "height": reference.size[1], "made_by": made_by, "notes": notes}
    entry.update(extra)
    manifest.append(entry)
    decoded = decode(data) if raw is None else raw
    checks.append((file, reference, as_rgb(decoded) if raw is None else raw, kind))
    print(f"{file}: {len(data)} bytes")


def debian_decoder_agrees(data, fmt):
    """Decodes with Debian's own tools (the libheif and libavif Imago links) and compares with the
    reference decoder's pixels."""
    tool = {"heic": "heif-convert", "avif": "avifdec"}[fmt]
    with tempfile.TemporaryDirectory() as t:
        source, output = os.path.join(t, "in." + fmt), os.path.join(t, "out.png")
        write_path(source, data)
        run([tool, source, output])
        theirs = np.asarray(Image.open(output).convert("RGB")).astype(int)
    ours = np.asarray(as_rgb(decode(data))).astype(int)
    difference = int(np.abs(theirs - ours).max())
    assert difference <= 2, f"{tool} decodes differently: {difference}"
    version = debian_version("libheif-examples" if fmt == "heic" else "libavif-bin")
    return f"Debian's {tool} ({version}) decodes the same pixels (largest difference {difference})"


def reference_from_icc(data, expected_profile, what):
    """Decodes data and converts it to sRGB through the profile the decoder found in the file."""
    img = decode(data)
    found = img.info.get("icc_profile")
    assert found == expected_profile, f"{what}: the decoder found {len(found or b'')} bytes of profile"
    return to_srgb(img, found)


REF_PILLOW = f"reference: Pillow's decoding converted to sRGB by Pillow ImageCms (Little CMS {LCMS}), " \
             "relative colorimetric, through the embedded profile"
REF_HEIF = f"reference: pillow-heif's decoding (libheif {HEIF_INFO['libheif']}, libde265) converted to sRGB by " \
           f"Pillow ImageCms (Little CMS {LCMS}), relative colorimetric, through the embedded profile"
REF_AVIF = f"reference: Pillow's AVIF decoding (libavif {features.version('avif')}) converted to sRGB by Pillow " \
           f"ImageCms (Little CMS {LCMS}), relative colorimetric"


def main():
    tmp = tempfile.mkdtemp()
    try:
        build_profiles(tmp)
        make_all(tmp)
    finally:
        shutil.rmtree(tmp)
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(manifest)} fixtures")
    self_check()


def make_all(tmp):
    source = original()
    write("original-srgb.png", save(source, format="PNG", optimize=True))

    def in_space(key, mode="RGB"):
        return convert(source, SRGB, PROFILES[key], mode)

    adobe = in_space("adobergb")
    adobe_icc = PROFILES["adobergb"]
    adobe_desc = icc_description(adobe_icc)

    # ------------------------------------------------------------ ICC profiles in each container
    def icc_jpeg(name, img, key):
        data = save(img, format="JPEG", quality=95, subsampling=0, icc_profile=PROFILES[key])
        add(name, data, reference_from_icc(data, PROFILES[key], name), "jpeg", "rgb",
            icc_description(PROFILES[key]), PILLOW,
            f"quality 95, 4:4:4, profile in APP2 ({len(PROFILES[key])} bytes, {PROFILE_FILES[key][0]}); {REF_PILLOW}")

    def icc_png(name, img, key):
        data = save(img, format="PNG", optimize=True, icc_profile=PROFILES[key])
        assert [k for k, _ in png_chunks(data)].count(b"iCCP") == 1
        add(name, data, reference_from_icc(data, PROFILES[key], name), "png", "rgb",
            icc_description(PROFILES[key]), PILLOW,
            f"8-bit RGB, iCCP ({len(PROFILES[key])} bytes, {PROFILE_FILES[key][0]}); {REF_PILLOW}")

    def icc_heic(name, img, key):
        data = save(img, format="HEIF", quality=-1, chroma=444, matrix_coefficients=0,
                    icc_profile=PROFILES[key])
        boxes = colr_boxes(data)
        assert ("prof", PROFILES[key]) in boxes, boxes
        others = [b for b in boxes if b[0] != "prof"]
        add(name, data, reference_from_icc(data, PROFILES[key], name), "heic", "rgb",
            icc_description(PROFILES[key]), PILLOW_HEIF,
            f"lossless x265, 4:4:4, RGB (matrix 0, signalled in the HEVC VUI only: no nclx box); colr prof ({len(PROFILES[key])} bytes, "
            f"{PROFILE_FILES[key][0]}); other colr boxes: {others}; {REF_HEIF}")

    icc_jpeg("adobergb.jpg", adobe, "adobergb")
    icc_png("adobergb.png", adobe, "adobergb")

    with_iccp = save(adobe, format="PNG", icc_profile=adobe_icc)
    webp = encoded_with(lambda i, o: ["cwebp", "-quiet", "-lossless", "-exact", "-metadata", "icc", i, "-o", o],
                        with_iccp, "webp")
    assert webp[12:16] == b"VP8X" and b"ICCP" in webp[:64]
    add("adobergb.webp", webp, reference_from_icc(webp, adobe_icc, "adobergb.webp"), "webp", "rgb", adobe_desc,
        CWEBP, f"lossless (cwebp -lossless -metadata icc from a PNG with the iCCP); ICCP chunk "
               f"({len(adobe_icc)} bytes); {REF_PILLOW}")

    icc_heic("adobergb.heic", adobe, "adobergb")

    with tempfile.TemporaryDirectory() as t:
        icc_path = os.path.join(t, "profile.icc")
        write_path(icc_path, adobe_icc)
        avif = encoded_with(lambda i, o: ["avifenc", "-l", "-s", "6", "--icc", icc_path, i, o], adobe, "avif")
    boxes = colr_boxes(avif)
    assert ("prof", adobe_icc) in boxes, boxes
    ref = reference_from_icc(avif, adobe_icc, "adobergb.avif")
    assert ref.size == (W, H)
    assert np.array_equal(np.asarray(as_rgb(decode(avif))), np.asarray(adobe)), "avifenc -l was not lossless"
    add("adobergb.avif", avif, ref, "avif", "rgb", adobe_desc, AVIFENC,
        f"lossless (avifenc -l: 4:4:4, matrix 0), --icc ({len(adobe_icc)} bytes); colr boxes "
        f"{[b if b[0] == 'nclx' else 'prof' for b in boxes]}; {REF_AVIF} through the embedded profile")

    prophoto = in_space("prophoto")
    icc_jpeg("prophoto.jpg", prophoto, "prophoto")
    icc_png("prophoto.png", prophoto, "prophoto")

    p3 = in_space("displayp3")
    icc_jpeg("displayp3.jpg", p3, "displayp3")
    icc_png("displayp3.png", p3, "displayp3")
    icc_heic("displayp3-icc.heic", p3, "displayp3")

    # ------------------------------------------------------------ CICP (nclx), no ICC
    def nclx_avif(name, img, cicp, key, notes):
        p, t, m = cicp
        data = encoded_with(lambda i, o: ["avifenc", "-s", "6", "-y", "444", "--min", "0", "--max", "0",
                                          "--cicp", f"{p}/{t}/{m}", i, o], img, "avif")
        boxes = colr_boxes(data)
        assert boxes == [("nclx", (p, t, m, 1))], boxes
        decoded = decode(data)
        assert "icc_profile" not in decoded.info or not decoded.info["icc_profile"]
        add(name, data, to_srgb(decoded, PROFILES[key]), "avif", "nclx", None, AVIFENC,
            f"nclx colr {p}/{t}/{m} full range, no ICC; 4:4:4, quantizer 0 (lossless AV1, but the YCbCr "
            f"matrix {m} makes it near-lossless); {notes}; {REF_AVIF} through a profile Little CMS built "
            f"from the CICP values")

    nclx_avif("displayp3-nclx.avif", p3, (12, 13, 6), "displayp3",
              "pixels converted to Display P3 with the Display P3 profile (CICP 12 = P3 primaries with D65 white, "
              "13 = the sRGB transfer)")
    bt2020 = in_space("cicp-9-1")
    nclx_avif("bt2020-nclx.avif", bt2020, (9, 1, 9), "cicp-9-1",
              "BT.2020 primaries, BT.709 transfer, BT.2020 non-constant-luminance matrix; the profile reads "
              "transfer 1 with the sRGB curve, as Chromium shows images")

    # Debian's heif-enc 1.15.1 takes --colour_primaries/--transfer_characteristic/--matrix_coefficients
    # for its RGB to YCbCr conversion but writes no colr box at all (checked here), so pillow-heif
    # (libheif 1.23) writes this one.
    probe = encoded_with(lambda i, o: ["heif-enc", "-q", "96", "-p", "chroma=444", "--matrix_coefficients=6",
                                       "--colour_primaries=12", "--transfer_characteristic=13",
                                       "--full_range_flag=1", i, "-o", o], p3, "heic")
    assert colr_boxes(probe) == [], "heif-enc writes nclx now: use it for displayp3-nclx.heic"
    heic = save(p3, format="HEIF", quality=96, chroma=444, color_primaries=12, transfer_characteristics=13,
                matrix_coefficients=6, full_range_flag=1)
    boxes = colr_boxes(heic)
    assert boxes == [("nclx", (12, 13, 6, 1))], boxes
    decoded = decode(heic)
    assert not decoded.info.get("icc_profile")
    add("displayp3-nclx.heic", heic, to_srgb(decoded, PROFILES["displayp3"]), "heic", "nclx", None, PILLOW_HEIF,
        "nclx colr 12/13/6 full range, no ICC; x265 quality 96, 4:4:4; P3 pixels (Debian's heif-enc 1.15.1 "
        "writes no colr box for its nclx options, so pillow-heif made this one); " + REF_HEIF.replace(
            "through the embedded profile", "through the Display P3 profile Little CMS built from the CICP values"))

    # ------------------------------------------------------------ CMYK: jpgicc separates and embeds
    srgb_jpeg = save(source, format="JPEG", quality=100, subsampling=0)
    cmyk_icc = PROFILES["cmyk"]
    with tempfile.TemporaryDirectory() as t:
        icc_path = os.path.join(t, "cmyk.icc")
        write_path(icc_path, cmyk_icc)
        cmyk = encoded_with(lambda i, o: ["jpgicc", "-t1", "-i*sRGB", f"-o{icc_path}", "-e", "-q95", i, o],
                            srgb_jpeg, "jpg", suffix=".jpg")
    markers = jpeg_markers(cmyk)
    adobe14 = [p for m, p in markers if m == 0xEE and p.startswith(b"Adobe")]
    icc_segments = [p for m, p in markers if m == 0xE2 and p.startswith(b"ICC_PROFILE\0")]
    decoded = decode(cmyk)
    assert decoded.mode == "CMYK"
    # Pillow un-inverts when an Adobe marker is present. Patch 11 is white: no ink.
    white = np.asarray(decoded)[H - 8, W - 8]
    stored = (255 - white) if adobe14 else white
    inverted = bool(stored.mean() > 128)
    assert white.max() < 8, f"white should carry no ink once decoded: {white}"
    ref = reference_from_icc(cmyk, cmyk_icc, "cmyk.jpg")
    transform = adobe14[0][11] if adobe14 else None
    # The same separation done by Pillow's Little CMS in one go, without JPEG: how far the reference can be
    # from the original once SWOP's gamut has clipped the saturated patches.
    swop_round_trip = to_srgb(in_space("cmyk", "CMYK"), cmyk_icc)
    extra_checks.append(("cmyk.jpg against the original sent through SWOP and back", ref, swop_round_trip))
    add("cmyk.jpg", cmyk, ref, "jpeg", "cmyk", icc_description(cmyk_icc), JPGICC,
        f"jpgicc -t1 -i*sRGB -o{os.path.basename(PROFILE_FILES['cmyk'][0])} -e -q95 on a quality-100 4:4:4 sRGB "
        f"JPEG of the original; {PROFILE_FILES['cmyk'][0]} ({len(cmyk_icc)} bytes) in {len(icc_segments)} APP2 "
        f"segments; Adobe APP14 marker: {'yes, transform ' + str(transform) if adobe14 else 'no'}"
        f"{' (YCCK: the JPEG stores YCCK, which libjpeg turns back into CMYK)' if transform == 2 else ''}; the CMYK "
        f"values are {'inverted (Adobe style: 255 = no ink)' if inverted else 'plain (0 = no ink)'}; Pillow's "
        f"decoding un-inverts (it does whenever an Adobe marker is present) before the conversion. {REF_PILLOW}; raw pixels for the self-check: Pillow's naive "
        f"CMYK to RGB", adobe_app14=bool(adobe14), adobe_transform=transform, stored_inverted=inverted)

    # ------------------------------------------------------------ gray with a linear (gamma 1.0) profile
    gray_icc = PROFILES["gray"]
    gray = in_space("gray", "L")
    for ext, fmt, options in [("jpg", "jpeg", dict(format="JPEG", quality=95)),
                              ("png", "png", dict(format="PNG", optimize=True))]:
        name = f"gray-profile.{ext}"
        data = save(gray, icc_profile=gray_icc, **options)
        decoded = decode(data)
        assert decoded.mode == "L"
        add(name, data, reference_from_icc(data, gray_icc, name), fmt, "gray", icc_description(gray_icc),
            PILLOW, f"8-bit grayscale{', quality 95' if ext == 'jpg' else ''}; {PROFILE_FILES['gray'][0]} "
                    f"({len(gray_icc)} bytes): kTRC gamma 1.0 (linear), so reading the values as sRGB is far "
                    f"too dark; {REF_PILLOW}; the self-check compares it with the original's luminance",
            kind="gray")

    # ------------------------------------------------------------ 16-bit PNG: tificc converts, libvips writes
    # Both conversions are Debian's tificc at 16 bits with -c0 (no precalculated transform: Little CMS
    # evaluates the whole pipeline per pixel). A precalculated 16-bit transform is a 33-point grid,
    # several levels off near the gamut edges where the curves are steep (libvips's icc_transform
    # at depth 16 turned sRGB green into 5,255,10 on the way back).
    with tempfile.TemporaryDirectory() as t:
        icc_path = os.path.join(t, "adobe.icc")
        write_path(icc_path, adobe_icc)
        wide_srgb = pyvips.Image.new_from_array(np.asarray(source).astype(np.uint16) * 257, interpretation="rgb16")
        wide_srgb.tiffsave(os.path.join(t, "in.tif"), keep=0)
        run(["tificc", "-t1", "-c0", "-w16", "-i*sRGB", f"-o{icc_path}", "-e", os.path.join(t, "in.tif"),
             os.path.join(t, "adobe.tif")])
        wide = pyvips.Image.new_from_file(os.path.join(t, "adobe.tif"))
        assert wide.format == "ushort" and wide.bands == 3, (wide.format, wide.bands)
        assert wide.get("icc-profile-data") == adobe_icc
        data = wide.pngsave_buffer(bitdepth=16, compression=9, keep=pyvips.enums.ForeignKeep.ICC)
        chunks = dict(png_chunks(data))
        assert chunks[b"IHDR"][8:10] == b"\x10\x02", chunks[b"IHDR"]
        assert zlib.decompress(chunks[b"iCCP"].split(b"\0", 1)[1][1:]) == adobe_icc
        loaded = pyvips.Image.new_from_buffer(data, "")
        assert loaded.format == "ushort" and loaded.get("icc-profile-data") == adobe_icc
        loaded.tiffsave(os.path.join(t, "decoded.tif"))
        run(["tificc", "-t1", "-c0", "-w16", "-o*sRGB", os.path.join(t, "decoded.tif"), os.path.join(t, "srgb.tif")])
        back = pyvips.Image.new_from_file(os.path.join(t, "srgb.tif"))
        assert back.format == "ushort"
        ref = Image.fromarray(np.round(back.numpy().astype(np.float64) / 257).astype(np.uint8), "RGB")
        raw = Image.fromarray(np.round(loaded.numpy().astype(np.float64) / 257).astype(np.uint8), "RGB")
    add("rgb16-iccp.png", data, ref, "png", "rgb", adobe_desc, f"{TIFICC} and {VIPS}",
        f"16 bits per channel RGB, iCCP {PROFILE_FILES['adobergb'][0]}; the sRGB original (v * 257) converted "
        f"at 16 bits by tificc -t1 -c0 -w16, PNG written by libvips pngsave; reference: libvips's decoding "
        f"converted to sRGB by tificc -t1 -c0 -w16 through the embedded profile, then rounded to 8 bits (v / 257)",
        raw=raw)

    # ------------------------------------------------------------ PNG gAMA + cHRM, sRGB chunk
    gc = in_space("gama-chrm")
    white_x, white_y = D65
    chrm = png_chunk(b"cHRM", struct.pack(">8I", *[round(v * 100000) for v in (white_x, white_y) + ADOBE_PRIMARIES]))
    data = png_with(save(gc, format="PNG", optimize=True), png_chunk(b"gAMA", struct.pack(">I", PNG_GAMMA)), chrm)
    add("gama-chrm.png", data, to_srgb(decode(data), PROFILES["gama-chrm"]), "png", "chromaticities", None, BY_HAND,
        f"gAMA {PNG_GAMMA} (decoding exponent 100000/{PNG_GAMMA} = {100000 / PNG_GAMMA:.5f}) and cHRM white "
        f"0.3127,0.3290, red 0.64,0.33, green 0.21,0.71, blue 0.15,0.06 (Adobe RGB primaries, D65); no iCCP, no "
        f"sRGB; pixels converted with a Little CMS profile built from those values (pure power curve); reference: "
        f"Pillow's decoding converted to sRGB through that profile")

    misleading_chrm = png_chunk(b"cHRM", struct.pack(">8I", *[round(v * 100000) for v in D65 + BT2020_PRIMARIES]))
    data = png_with(save(source, format="PNG", optimize=True), png_chunk(b"sRGB", b"\0"),
                    png_chunk(b"gAMA", struct.pack(">I", 100000)), misleading_chrm)
    add("srgb-chunk.png", data, as_rgb(decode(data)), "png", "srgb-chunk", None, BY_HAND,
        "sRGB chunk (perceptual) plus a misleading gAMA 100000 (gamma 1.0) and cHRM of BT.2020 primaries; the "
        "sRGB chunk wins, so the reference is the pixels as they are (the sRGB original)")

    # ------------------------------------------------------------ broken profiles: pixels as they are
    broken = "; Adobe RGB pixels, so ignoring the profile and applying it differ; reference: the pixels as " \
             "they are (a decoder must fall back to sRGB)"
    plain_png = save(adobe, format="PNG", optimize=True)
    half = adobe_icc[:len(adobe_icc) // 2]
    data = png_with(plain_png, iccp(half))
    add("broken-truncated-iccp.png", data, as_rgb(decode(data)), "png", "broken", None, BY_HAND,
        f"iCCP whose inflated profile is the first {len(half)} of the {len(adobe_icc)} bytes of "
        f"{PROFILE_FILES['adobergb'][0]} (the header still claims {len(adobe_icc)})" + broken)

    small_cmyk = PROFILES["cmyk-small"]
    data = png_with(plain_png, iccp(small_cmyk))
    add("broken-colorspace.png", data, as_rgb(decode(data)), "png", "broken", None, BY_HAND,
        f"RGB PNG whose iCCP is a valid CMYK profile: {PROFILE_FILES['cmyk-small'][0]} "
        f"('{icc_description(small_cmyk)}', {len(small_cmyk)} bytes, data colour space 'CMYK')" + broken)

    plain_jpeg = save(adobe, format="JPEG", quality=95, subsampling=0)
    garbage = random.Random(20240611).randbytes(len(adobe_icc))
    data = jpeg_with_app2(plain_jpeg, [(1, 1, garbage)])
    add("broken-garbage.jpg", data, as_rgb(decode(data)), "jpeg", "broken", None, BY_HAND,
        f"one APP2 ICC_PROFILE segment (1 of 1) holding {len(garbage)} random bytes (Python random, seed "
        f"20240611); JPEG by {PILLOW}, quality 95, 4:4:4" + broken)

    third = -(-len(adobe_icc) // 3)
    parts = [adobe_icc[i:i + third] for i in range(0, len(adobe_icc), third)]
    data = jpeg_with_app2(plain_jpeg, [(1, 3, parts[0]), (1, 3, parts[1]), (3, 3, parts[2])])
    add("broken-order.jpg", data, as_rgb(decode(data)), "jpeg", "broken", None, BY_HAND,
        f"{PROFILE_FILES['adobergb'][0]} split over 3 APP2 segments ({', '.join(str(len(p)) for p in parts)} "
        f"bytes) numbered 1, 1, 3 of 3: two claim number 1 and none number 2" + broken)

    lying = struct.pack(">I", 2 * len(adobe_icc)) + adobe_icc[4:]
    data = jpeg_with_app2(plain_jpeg, [(1, 1, lying)])
    add("broken-size.jpg", data, as_rgb(decode(data)), "jpeg", "broken", None, BY_HAND,
        f"{PROFILE_FILES['adobergb'][0]} ({len(adobe_icc)} bytes) in one APP2 segment with its header's size "
        f"field set to {2 * len(adobe_icc)}" + broken)

    # ------------------------------------------------------------ the image proxy: libvips thumbnail
    photo = Image.open(PHOTO).convert("RGB")
    serve = save(convert(photo, SRGB, adobe_icc, "RGB"), format="JPEG", quality=92, optimize=True,
                 icc_profile=adobe_icc)
    write("serve-source-adobergb.jpg", serve)
    with tempfile.TemporaryDirectory() as t:
        path = os.path.join(t, "serve-source-adobergb.jpg")
        write_path(path, serve)
        # libvips 8.18's thumbnail leaves a tagged image in its own space (and keeps its profile)
        # unless output_profile is given: checked here, so the reference is made with "srgb" (libvips's
        # built-in sRGB profile) and relative intent, spelled out.
        default = pyvips.Image.thumbnail(path, 256)
        assert default.get("icc-profile-data") == adobe_icc, "libvips converts by default now"
        thumb = pyvips.Image.thumbnail(path, 256, output_profile="srgb", intent="relative")
        assert thumb.interpretation == "srgb", thumb.interpretation
        embedded = thumb.get("icc-profile-data") if thumb.get_typeof("icc-profile-data") else None
        assert embedded is not None and embedded != adobe_icc, "libvips did not convert"
        thumb = thumb.copy()
        if embedded is not None:
            thumb.remove("icc-profile-data")
        out = thumb.pngsave_buffer(keep=0, compression=9)
        # Ignoring the profile: the same thumbnail of the same pixels with the profile dropped.
        untagged = pyvips.Image.new_from_file(path).copy()
        untagged.remove("icc-profile-data")
        raw = Image.fromarray(untagged.thumbnail_image(256).numpy(), "RGB")
        plain_thumb = pyvips.Image.thumbnail_buffer(save(photo, format="PNG"), 256)
        expected = Image.fromarray(plain_thumb.numpy(), "RGB")
    assert not {k for k, _ in png_chunks(out)} & {b"iCCP", b"sRGB", b"gAMA", b"cHRM", b"cICP"}
    ref = Image.open(io.BytesIO(out))
    assert ref.mode == "RGB" and ref.size == (256, 192), (ref.mode, ref.size)
    write("serve-source-adobergb.vips-thumbnail-256.png", out)
    manifest.append({
        "file": "serve-source-adobergb.jpg", "reference": "serve-source-adobergb.vips-thumbnail-256.png",
        "format": "jpeg", "profile": "rgb", "description": adobe_desc, "width": 1024, "height": 768,
        "made_by": PILLOW,
        "notes": f"thumbnail-photo.jpg at full size converted to Adobe RGB, quality 92, 4:2:0, optimised Huffman "
                 f"tables, profile in APP2; "
                 f"reference: {VIPS} pyvips.Image.thumbnail(file, 256, output_profile='srgb', intent='relative') "
                 f"(256x192; libvips imports through the embedded profile and exports to its built-in sRGB; "
                 f"without output_profile this libvips leaves the pixels in Adobe RGB), saved as PNG without a "
                 f"profile",
        "reference_width": 256, "reference_height": 192,
    })
    checks.append(("serve-source-adobergb.jpg", ref, raw, "serve", expected))
    print(f"serve-source-adobergb.jpg: {len(serve)} bytes; thumbnail {len(out)} bytes")


# ---------------------------------------------------------------- self-check
def srgb_to_lab(rgb):
    c = np.asarray(rgb, dtype=np.float64) / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375],
                  [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = linear @ m.T / np.array([0.95047, 1.0, 1.08883])  # D65 white
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def ciede2000(lab1, lab2):
    L1, a1, b1 = np.moveaxis(lab1, -1, 0)
    L2, a2, b2 = np.moveaxis(lab2, -1, 0)
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    C_bar = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(C_bar ** 7 / (C_bar ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp = L2 - L1
    dCp = C2p - C1p
    dhp = h2p - h1p
    dhp = np.where(dhp > 180, dhp - 360, np.where(dhp < -180, dhp + 360, dhp))
    dhp = np.where(C1p * C2p == 0, 0, dhp)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dhp) / 2)
    Lp_bar = (L1 + L2) / 2
    Cp_bar = (C1p + C2p) / 2
    hp_sum = h1p + h2p
    hp_bar = np.where(np.abs(h1p - h2p) > 180, np.where(hp_sum < 360, hp_sum + 360, hp_sum - 360), hp_sum) / 2
    hp_bar = np.where(C1p * C2p == 0, hp_sum, hp_bar)
    T = (1 - 0.17 * np.cos(np.radians(hp_bar - 30)) + 0.24 * np.cos(np.radians(2 * hp_bar))
         + 0.32 * np.cos(np.radians(3 * hp_bar + 6)) - 0.20 * np.cos(np.radians(4 * hp_bar - 63)))
    d_theta = 30 * np.exp(-(((hp_bar - 275) / 25) ** 2))
    R_C = 2 * np.sqrt(Cp_bar ** 7 / (Cp_bar ** 7 + 25.0 ** 7))
    S_L = 1 + 0.015 * (Lp_bar - 50) ** 2 / np.sqrt(20 + (Lp_bar - 50) ** 2)
    S_C = 1 + 0.045 * Cp_bar
    S_H = 1 + 0.015 * Cp_bar * T
    R_T = -np.sin(np.radians(2 * d_theta)) * R_C
    return np.sqrt((dLp / S_L) ** 2 + (dCp / S_C) ** 2 + (dHp / S_H) ** 2 + R_T * (dCp / S_C) * (dHp / S_H))


def test_ciede2000():
    """Pairs 1, 7 and 25 of Sharma, Wu and Dalal's CIEDE2000 test data."""
    pairs = [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
             ((50, 0, 0), (50, -1, 2), 2.3669),
             ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644)]
    for lab1, lab2, expected in pairs:
        got = float(ciede2000(np.array(lab1, float), np.array(lab2, float)))
        assert abs(got - expected) < 1e-4, (lab1, lab2, got, expected)


def compare(x, y):
    a, b = np.asarray(x.convert("RGB")), np.asarray(y.convert("RGB"))
    de = float(ciede2000(srgb_to_lab(a), srgb_to_lab(b)).mean())
    mse = float(((a.astype(np.float64) - b) ** 2).mean())
    psnr = float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)
    return de, psnr


def self_check():
    test_ciede2000()
    source = Image.open(os.path.join(HERE, "original-srgb.png"))
    rows = []
    for file, reference, raw, kind, *expected in checks:
        target = expected[0] if expected else source
        if kind == "gray":  # the original's luminance as sRGB gray
            linear = np.asarray(source, dtype=np.float64) / 255
            linear = np.where(linear <= 0.04045, linear / 12.92, ((linear + 0.055) / 1.055) ** 2.4)
            y = linear @ np.array([0.2126729, 0.7151522, 0.0721750])
            v = np.where(y <= 0.0031308, 12.92 * y, 1.055 * y ** (1 / 2.4) - 0.055)
            target = Image.fromarray(np.round(v * 255).astype(np.uint8), "L").convert("RGB")
        a = compare(reference, target)
        b = compare(raw, reference)
        rows.append((file + (" (a: vs the original's luminance)" if kind == "gray" else ""), *a, *b))
    header = ("fixture", "a: dE00 ref/orig", "a: PSNR", "b: dE00 raw/ref", "b: PSNR")
    width = max(len(r[0]) for r in rows)
    print()
    print(f"{header[0]:<{width}}  {header[1]:>16}  {header[2]:>8}  {header[3]:>15}  {header[4]:>8}")
    for name, de_a, psnr_a, de_b, psnr_b in rows:
        print(f"{name:<{width}}  {de_a:>16.3f}  {psnr_a:>8.2f}  {de_b:>15.3f}  {psnr_b:>8.2f}")
    for label, x, y in extra_checks:
        print(f"{label}: dE00 {compare(x, y)[0]:.3f}, PSNR {compare(x, y)[1]:.2f}")
    print("a: the reference against the sRGB original (serve source: against libvips's thumbnail of the "
          "untagged sRGB photo); b: the decoded pixels read without colour management against the reference")
    total = sum(os.path.getsize(os.path.join(HERE, f)) for f in os.listdir(HERE))
    print(f"folder: {len(os.listdir(HERE))} files, {total} bytes")


if __name__ == "__main__":
    main()
