#!/usr/bin/env python3
"""Keeps the top-left WIDTH×HEIGHT of an 8-bit RGBA PNG (standard library only).

Headless chromium's screenshot of a small window leaves its lower part
empty (the window size counts browser furniture), so make-images.sh renders
into a taller window and keeps the top.
usage: crop_png.py IN OUT WIDTH HEIGHT
"""
import struct
import sys
import zlib

source, target, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(source, "rb").read()
position, compressed, header = 8, b"", None
while position < len(data):
    (length,) = struct.unpack(">I", data[position:position + 4])
    kind, chunk = data[position + 4:position + 8], data[position + 8:position + 8 + length]
    position += 12 + length
    if kind == b"IHDR":
        header = struct.unpack(">IIBBBBB", chunk)
    elif kind == b"IDAT":
        compressed += chunk
source_width, _, depth, color, _, _, interlace = header
assert depth == 8 and color == 6 and interlace == 0, "8-bit RGBA, not interlaced"
raw, stride, previous, rows = zlib.decompress(compressed), source_width * 4, bytearray(source_width * 4), []
for y in range(height):
    kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        left = line[i - 4] if i >= 4 else 0
        up, corner = previous[i], previous[i - 4] if i >= 4 else 0
        if kind == 1:
            line[i] = (line[i] + left) & 255
        elif kind == 2:
            line[i] = (line[i] + up) & 255
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 255
        elif kind == 4:
            guess = left + up - corner
            a, b, c = abs(guess - left), abs(guess - up), abs(guess - corner)
            line[i] = (line[i] + (left if a <= b and a <= c else up if b <= c else corner)) & 255
    rows.append(bytes(line[:width * 4]))
    previous = line


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(b"".join(b"\x00" + row for row in rows), 9)) + chunk(b"IEND", b"")
open(target, "wb").write(png)
