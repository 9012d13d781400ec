#!/usr/bin/env python3
"""Writes a large, sparse, moov-last movie for the inspect benchmark.

  python3 Benchmarks/make_large_movie.py OUT.mov [GIGABYTES]

Layout: ftyp, mdat with a 64-bit size covering GIGABYTES of sparse (unwritten) data, then a moov
describing one raw-video track whose samples fill that mdat, with co64 chunk offsets. The disk
cost is only the moov; readers that touch mdat pay for it.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "tools"))
from make_corpus import box, co64, ftyp, full, hdlr, mdhd, mvhd, stsc, stsd, stts, tkhd, visual_entry  # noqa: E402


def main():
    out = sys.argv[1]
    gigabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 2.5
    width, height = 576, 576
    sample = width * height * 3
    count = int(gigabytes * (1 << 30)) // sample
    head = ftyp()
    mdat_header = struct.pack(">I4sQ", 1, b"mdat", 16 + count * sample)
    first = len(head) + len(mdat_header)
    # Variable sizes (all equal) so the stsz table has one entry per sample, as in real files.
    sizes = full("stsz", 0, 0, struct.pack(">II", 0, count) + struct.pack(">I", sample) * count)
    stbl = box("stbl", stsd(visual_entry("raw ", width, height)) + stts([(count, 1)]) + stsc([(1, 1, 1)]) + sizes
               + co64([first + i * sample for i in range(count)]))
    minf = box("minf", full("vmhd", 0, 1, b"\0" * 8) + box("dinf", full("dref", 0, 0, struct.pack(">I", 1) + full("url ", 0, 1))) + stbl)
    trak = box("trak", tkhd(duration=count * 20, width=width, height=height) + box("mdia", mdhd(30, count) + hdlr() + minf))
    moov = box("moov", mvhd(600, count * 20) + trak)
    with open(out, "wb") as f:
        f.write(head + mdat_header)
        f.seek(first + count * sample)
        f.write(moov)
    print(f"{out}: {count} samples, {os.path.getsize(out)} bytes, moov {len(moov)} bytes")


if __name__ == "__main__":
    main()
