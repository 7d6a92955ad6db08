#!/usr/bin/env python3
"""Writes copyright.jpg: a 48x32 JPEG (libvips, no metadata of its own) with
- APP1 Exif, big-endian: IFD0 Make "Imago", Orientation 6, Artist "Ada Artist",
  Copyright "(c) Imago Test", a GPS IFD (GPSLatitudeRef "N", GPSLatitude 1/1 2/1 3/1);
- APP1 XMP: dc:rights, dc:creator, dc:subject, xmp:CreatorTool, xmpRights:Marked;
- APP13 Photoshop 3.0: 8BIM 0x0404 with IPTC 1:90 (UTF-8), 2:80 by-line, 2:25 keyword, 2:116 copyright.
Run with the test venv's Python (pyvips): .build/test-venv/bin/python make-copyright-jpeg.py
"""
import struct
import pyvips

base = pyvips.Image.black(48, 32).add([40, 90, 160]).cast("uchar").copy(interpretation="srgb")
jpeg = base.jpegsave_buffer(Q=90, keep="none")
assert jpeg[:2] == b"\xff\xd8"

def ifd(entries, next_ifd, data_start):
    """entries: (tag, type, count, value bytes); returns (ifd bytes, data bytes), big-endian."""
    out = struct.pack(">H", len(entries))
    data = b""
    for tag, typ, count, value in sorted(entries):
        if len(value) <= 4:
            out += struct.pack(">HHI", tag, typ, count) + value.ljust(4, b"\0")
        else:
            out += struct.pack(">HHII", tag, typ, count, data_start + len(data))
            data += value + (b"\0" if len(value) % 2 else b"")
    return out + struct.pack(">I", next_ifd), data

def ascii(text):
    raw = text.encode() + b"\0"
    return (2, len(raw), raw)

ifd0_tags = [
    (0x010F,) + ascii("Imago"),
    (0x0112, 3, 1, struct.pack(">H", 6)),
    (0x013B,) + ascii("Ada Artist"),
    (0x8298,) + ascii("(c) Imago Test"),
    (0x8825, 4, 1, struct.pack(">I", 0)),  # GPS IFD offset, patched below
]
ifd0_size = 2 + 12 * len(ifd0_tags) + 4
# Lay out: header (8), IFD0, its data, then the GPS IFD and its data.
_, data0 = ifd(ifd0_tags, 0, 8 + ifd0_size)
gps_offset = 8 + ifd0_size + len(data0)
ifd0_tags[-1] = (0x8825, 4, 1, struct.pack(">I", gps_offset))
ifd0_bytes, data0 = ifd(ifd0_tags, 0, 8 + ifd0_size)
gps_tags = [
    (0x0001,) + ascii("N"),
    (0x0002, 5, 3, struct.pack(">IIIIII", 1, 1, 2, 1, 3, 1)),
]
gps_bytes, gps_data = ifd(gps_tags, 0, gps_offset + 2 + 12 * len(gps_tags) + 4)
tiff = b"MM\0\x2a" + struct.pack(">I", 8) + ifd0_bytes + data0 + gps_bytes + gps_data

xmp = """<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:xmpRights="http://ns.adobe.com/xap/1.0/rights/"
    xmp:CreatorTool="Imago &amp; friends" xmpRights:Marked="True">
   <dc:rights><rdf:Alt><rdf:li xml:lang="x-default">&#169; Imago Test</rdf:li></rdf:Alt></dc:rights>
   <dc:creator><rdf:Seq><rdf:li>Ada Artist</rdf:li></rdf:Seq></dc:creator>
   <dc:subject><rdf:Bag><rdf:li>secret keyword</rdf:li></rdf:Bag></dc:subject>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>""".encode()

def record(number, dataset, value):
    return bytes([0x1C, number, dataset]) + struct.pack(">H", len(value)) + value

iptc = record(1, 90, b"\x1b%G") + record(2, 80, b"Ada Artist") + record(2, 25, b"secret keyword") + record(2, 116, b"(c) Imago Test")
resource = b"8BIM" + struct.pack(">H", 0x0404) + b"\0\0" + struct.pack(">I", len(iptc)) + iptc + (b"\0" if len(iptc) % 2 else b"")

def segment(marker, body):
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body

insert = (segment(0xE1, b"Exif\0\0" + tiff) + segment(0xE1, b"http://ns.adobe.com/xap/1.0/\0" + xmp)
          + segment(0xED, b"Photoshop 3.0\0" + resource))
at = 2
if jpeg[2:4] == b"\xff\xe0":
    at = 4 + struct.unpack(">H", jpeg[4:6])[0]
with open("copyright.jpg", "wb") as f:
    f.write(jpeg[:at] + insert + jpeg[at:])

check = pyvips.Image.new_from_file("copyright.jpg")
print(check.width, check.height, check.get("exif-ifd0-Copyright"), check.get("orientation"), len(check.get("xmp-data")), len(check.get("iptc-data")))
