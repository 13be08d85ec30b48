#!/usr/bin/env python3
"""Pixel statistics of a PNG, for the report's rendering test (no PIL: zlib and struct only).

png_stats.py FILE [--region X0,Y0,X1,Y1] [--color RRGGBB ...] [--tolerance N] [--crop OUT.png]

Prints one "name value" line each: width, height, distinct (colours in the region), nonwhite
(share of pixels in the region that are not near-white), and per --color the number of pixels
in the region within a distance of N (sum of the channel differences, default 12) of it
(color_RRGGBB). --crop writes the region as a PNG.
"""
import struct
import sys
import zlib


def decode(path, max_rows=None):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = header
    if depth != 8 or interlace != 0 or ctype not in (0, 2, 4, 6):
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(min(height, max_rows or height)):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def pixel(rows, bpp, x, y):
    line = rows[y]
    if bpp >= 3:
        return tuple(line[x * bpp:x * bpp + 3])
    g = line[x * bpp]
    return (g, g, g)


def main(argv):
    path, region, colors, crop, tolerance = argv[0], None, [], None, 12
    i = 1
    while i < len(argv):
        if argv[i] == "--region":
            region = [int(v) for v in argv[i + 1].split(",")]
            i += 2
        elif argv[i] == "--color":
            colors.append(argv[i + 1].lstrip("#").lower())
            i += 2
        elif argv[i] == "--tolerance":
            tolerance = int(argv[i + 1])
            i += 2
        elif argv[i] == "--crop":
            crop = argv[i + 1]
            i += 2
        else:
            raise SystemExit(f"unknown argument {argv[i]}")
    width, height, bpp, rows = decode(path, region[3] if region else None)
    x0, y0, x1, y1 = region or (0, 0, width, height)
    x1, y1 = min(x1, width), min(y1, height, len(rows))
    targets = [tuple(int(c[k:k + 2], 16) for k in (0, 2, 4)) for c in colors]
    seen, nonwhite, counts, total = set(), 0, [0] * len(targets), 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            p = pixel(rows, bpp, x, y)
            seen.add(p)
            total += 1
            if min(p) < 235:
                nonwhite += 1
            for k, t in enumerate(targets):
                if sum(abs(p[j] - t[j]) for j in range(3)) <= tolerance:
                    counts[k] += 1
    print("width", width)
    print("height", height)
    print("distinct", len(seen))
    print("nonwhite", round(nonwhite / max(total, 1), 4))
    for c, n in zip(colors, counts):
        print("color_" + c, n)
    if crop:
        raw = b"".join(b"\x00" + bytes(b for x in range(x0, x1) for b in pixel(rows, bpp, x, y))
                       for y in range(y0, y1))
        def chunk(kind, body):
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        with open(crop, "wb") as out:
            out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", x1 - x0, y1 - y0, 8, 2, 0, 0, 0))
                      + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    main(sys.argv[1:])
