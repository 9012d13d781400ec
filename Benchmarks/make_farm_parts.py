#!/usr/bin/env python3
"""Writes N large, sparse farm parts for the concat benchmark.

  python3 Benchmarks/make_farm_parts.py OUTDIR N GIGABYTES_PER_PART

Each part is what `cinepack render --shard K/N` writes, at a size a long 4K render reaches: ftyp,
a 64-bit mdat of GIGABYTES of sparse (unwritten) data holding the samples of one raw-video track,
then a moov with that track (co64 offsets, one stsz entry per sample) and the part record
moov/udta/cpRP of spec/farm.md §2, written here from the spec (same source, EDL and settings in
every part; shard K holds frames [K·count, (K+1)·count)). Disk cost: the moovs only.
"""
import hashlib
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "tools"))
from make_corpus import box, co64, ftyp, full, hdlr, mdhd, mvhd, stsc, stsd, stts, tkhd, visual_entry  # noqa: E402


def record(k, n, first, end, program_end):
    settings = b"codec=png\nbenchmark=sparse\n"
    payload = struct.pack(">IIQQQQI", k, n, first, end, 0, program_end, 1)
    payload += b"\x11" * 8 + hashlib.sha256(b"<edl/>").digest() + hashlib.sha256(settings).digest() + b"\x00"
    payload += struct.pack(">H", len(settings)) + settings + struct.pack(">H", 9) + b"bench.mov"
    return box("udta", full("cpRP", 0, 0, payload))


def main():
    outdir, n, gigabytes = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    os.makedirs(outdir, exist_ok=True)
    width, height = 3840, 2160
    sample = width * height * 3 // 8  # about what a PNG of a 4K frame weighs
    count = int(gigabytes * (1 << 30)) // sample
    for k in range(1, n + 1):
        head = ftyp()
        mdat_header = struct.pack(">I4sQ", 1, b"mdat", 16 + count * sample)
        first = len(head) + len(mdat_header)
        sizes = full("stsz", 0, 0, struct.pack(">II", 0, count) + struct.pack(">I", sample) * count)
        stbl = box("stbl", stsd(visual_entry("png ", width, height)) + stts([(count, 20)]) + stsc([(1, 1, 1)]) + sizes
                   + co64([first + i * sample for i in range(count)]))
        minf = box("minf", full("vmhd", 0, 1, b"\0" * 8) + box("dinf", full("dref", 0, 0, struct.pack(">I", 1) + full("url ", 0, 1))) + stbl)
        trak = box("trak", tkhd(duration=count * 20, width=width, height=height) + box("mdia", mdhd(600, count * 20) + hdlr() + minf))
        moov = box("moov", mvhd(600, count * 20) + trak + record(k, n, (k - 1) * count, k * count, n * count))
        path = os.path.join(outdir, f"part-{k:05d}.mov")
        with open(path, "wb") as f:
            f.write(head + mdat_header)
            f.seek(first + count * sample)
            f.write(moov)
        print(f"{path}: {count} samples, {os.path.getsize(path)} bytes, moov {len(moov)} bytes")


if __name__ == "__main__":
    main()
