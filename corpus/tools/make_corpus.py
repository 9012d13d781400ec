#!/usr/bin/env python3
"""Writes the hand-made box-layer corpus: small valid movies and one file per defect.

Every byte is laid out here by hand from ISO/IEC 14496-12 and the QuickTime File Format, with no
cinepack code involved, so the files are an independent expectation for the reader.
Run from the repository root:  python3 corpus/tools/make_corpus.py
"""
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def box(kind, payload=b""):
    return struct.pack(">I4s", 8 + len(payload), kind.encode("latin-1")) + payload


def large_box(kind, payload=b""):
    return struct.pack(">I4sQ", 1, kind.encode("latin-1"), 16 + len(payload)) + payload


def full(kind, version, flags, payload=b""):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def ftyp(major="qt  ", brands=("qt  ",)):
    return box("ftyp", major.encode() + struct.pack(">I", 0x200) + b"".join(b.encode() for b in brands))


IDENTITY = struct.pack(">9i", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)


def mvhd(timescale=600, duration=600, next_id=2):
    return full("mvhd", 0, 0, struct.pack(">IIII", 0, 0, timescale, duration) + struct.pack(">iH", 0x10000, 0x100)
                + b"\0" * 10 + IDENTITY + b"\0" * 24 + struct.pack(">I", next_id))


def tkhd(track_id=1, duration=600, width=16, height=16, flags=3):
    return full("tkhd", 0, flags, struct.pack(">IIII", 0, 0, track_id, 0) + struct.pack(">I", duration) + b"\0" * 8
                + struct.pack(">hhhH", 0, 0, 0, 0) + IDENTITY + struct.pack(">II", width << 16, height << 16))


def mdhd(timescale=30, duration=3):
    return full("mdhd", 0, 0, struct.pack(">IIIIHH", 0, 0, timescale, duration, 0x55C4, 0))


def hdlr(handler="vide", name="VideoHandler", component=b"\0\0\0\0"):
    return full("hdlr", 0, 0, component + handler.encode() + b"\0" * 12 + name.encode() + b"\0")


def visual_entry(codec="raw ", width=16, height=16, children=b""):
    return box(codec, b"\0" * 6 + struct.pack(">H", 1) + b"\0" * 16 + struct.pack(">HH", width, height)
               + struct.pack(">II", 72 << 16, 72 << 16) + b"\0" * 4 + struct.pack(">H", 1)
               + bytes([4]) + b"test" + b"\0" * 27 + struct.pack(">Hh", 24, -1) + children)


def stsd(*entries):
    return full("stsd", 0, 0, struct.pack(">I", len(entries)) + b"".join(entries))


def stts(entries):
    return full("stts", 0, 0, struct.pack(">I", len(entries)) + b"".join(struct.pack(">II", c, d) for c, d in entries))


def stsc(entries):
    return full("stsc", 0, 0, struct.pack(">I", len(entries)) + b"".join(struct.pack(">III", *e) for e in entries))


def stsz(sizes, constant=0, count=None):
    count = len(sizes) if count is None else count
    body = struct.pack(">II", constant, count)
    if constant == 0:
        body += b"".join(struct.pack(">I", s) for s in sizes)
    return full("stsz", 0, 0, body)


def stco(offsets):
    return full("stco", 0, 0, struct.pack(">I", len(offsets)) + b"".join(struct.pack(">I", o) for o in offsets))


def co64(offsets):
    return full("co64", 0, 0, struct.pack(">I", len(offsets)) + b"".join(struct.pack(">Q", o) for o in offsets))


def stss(numbers):
    return full("stss", 0, 0, struct.pack(">I", len(numbers)) + b"".join(struct.pack(">I", n) for n in numbers))


SAMPLE = 16 * 16 * 3  # one raw 16x16 RGB frame


def movie(chunk_offsets, *, tables=None, extra_moov=b"", stco_box=None, stsz_box=None, stsc_box=None, stts_box=None):
    """A one-track raw-video moov with 3 samples of SAMPLE bytes, one chunk each."""
    stbl = box("stbl", stsd(visual_entry())
               + (stts_box or stts([(3, 1)]))
               + (stsc_box or stsc([(1, 1, 1)]))
               + (stsz_box or stsz([], constant=SAMPLE, count=3))
               + (stco_box or stco(chunk_offsets))
               + (tables or b""))
    minf = box("minf", full("vmhd", 0, 1, b"\0" * 8) + box("dinf", full("dref", 0, 0, struct.pack(">I", 1) + full("url ", 0, 1))) + stbl)
    trak = box("trak", tkhd() + box("mdia", mdhd() + hdlr() + minf))
    return box("moov", mvhd() + trak + extra_moov)


def frames():
    # Three frames of distinct solid colours, so a decoder can tell them apart.
    return b"".join(bytes([r, g, b]) * 256 for r, g, b in ((255, 0, 0), (0, 255, 0), (0, 0, 255)))


def moov_last(extra_top=b"", **kw):
    head = ftyp() + box("wide")
    mdat_offset = len(head) + 8
    data = box("mdat", frames())
    offsets = [mdat_offset + i * SAMPLE for i in range(3)]
    return head + data + movie(offsets, **kw) + extra_top


def moov_first(**kw):
    head = ftyp()
    provisional = movie([0, 0, 0], **kw)
    base = len(head) + len(provisional) + 8
    return head + movie([base + i * SAMPLE for i in range(3)], **kw) + box("mdat", frames())


def write(folder, name, data):
    path = os.path.join(ROOT, folder, name)
    with open(path, "wb") as f:
        f.write(data)


def valid():
    write("valid", "raw-moov-last.mov", moov_last())
    write("valid", "raw-moov-first.mov", moov_first())
    # 64-bit sizes: the mdat uses largesize; chunk offsets in co64.
    head = ftyp()
    data = large_box("mdat", frames())
    first = len(head) + 16
    write("valid", "large-size-co64.mov", head + data + movie([], stco_box=co64([first + i * SAMPLE for i in range(3)])))
    # Size 0 on the last top-level box (mdat runs to end of file), moov first.
    head = ftyp()
    mov = movie([0, 0, 0])
    base = len(head) + len(mov) + 8
    body = head + movie([base + i * SAMPLE for i in range(3)])
    write("valid", "size-zero-mdat.mov", body + struct.pack(">I4s", 0, b"mdat") + frames())
    # Unknown boxes (top level, in moov, in a track) and a uuid box: kept and shown, never fatal.
    unknown = box("zzzz", b"opaque payload") + box("uuid", bytes(range(16)) + b"user data")
    write("valid", "unknown-boxes.mov", moov_last(extra_top=unknown, extra_moov=box("xtra", b"\1\2\3")))
    # QuickTime meta (no version/flags) with keys + ilst, in moov.
    key = b"com.apple.quicktime.artist"
    keys = full("keys", 0, 0, struct.pack(">I", 1) + struct.pack(">I4s", 8 + len(key), b"mdta") + key)
    ilst = box("ilst", box("\0\0\0\1", box("data", struct.pack(">II", 1, 0) + b"cinepack corpus")))
    qt_meta = box("meta", hdlr("mdta", "", component=b"\0\0\0\0") + keys + ilst)
    write("valid", "quicktime-meta.mov", moov_last(extra_moov=qt_meta))
    # ISO meta (full box) in udta.
    iso_meta = full("meta", 0, 0, hdlr("mdir", "") + box("ilst"))
    write("valid", "iso-meta.mov", moov_last(extra_moov=box("udta", iso_meta)))
    # Compressed movie: moov = cmov(dcom zlib, cmvd(size, zlib(moov))).
    head = ftyp() + box("wide")
    data = box("mdat", frames())
    inner = movie([len(head) + 8 + i * SAMPLE for i in range(3)])
    cmov = box("moov", box("cmov", box("dcom", b"zlib") + box("cmvd", struct.pack(">I", len(inner)) + zlib.compress(inner))))
    write("valid", "compressed-moov.mov", head + data + cmov)
    # Three chunks → one chunk of three samples, with a sync table (sample 1 only).
    head = ftyp() + box("wide")
    data = box("mdat", frames())
    write("valid", "one-chunk-stss.mov", head + data + movie([len(head) + 8], stsc_box=stsc([(1, 3, 1)]), tables=stss([1])))


def invalid():
    good = moov_last()
    moov_at = good.index(b"moov") - 4

    # A box larger than its parent: tkhd claims more bytes than trak holds.
    data = bytearray(good)
    tk = data.index(b"tkhd") - 4
    struct.pack_into(">I", data, tk, 5000)
    write("invalid", "box-larger-than-parent.mov", bytes(data))

    # A box size below the 8-byte header.
    data = bytearray(good)
    struct.pack_into(">I", data, data.index(b"mdhd") - 4, 4)
    write("invalid", "size-below-header.mov", bytes(data))

    # Size 0 inside moov (only legal for the last top-level box).
    data = bytearray(good)
    struct.pack_into(">I", data, data.index(b"mvhd") - 4, 0)
    write("invalid", "size-zero-inside-moov.mov", bytes(data))

    # 100 nested containers.
    nested = b""
    for _ in range(100):
        nested = box("udta", nested)
    write("invalid", "nesting-100-deep.mov", moov_last(extra_moov=nested))

    # stsz sample_count whose × 4 overflows 32 bits and far exceeds the box.
    write("invalid", "stsz-count-overflow.mov", moov_last(stsz_box=full("stsz", 0, 0, struct.pack(">II", 0, 0x40000001) + b"\0" * 12)))

    # Chunk offsets past the end of the file.
    head = ftyp() + box("wide")
    data = box("mdat", frames())
    write("invalid", "stco-past-end.mov", head + data + movie([len(head) + 8, 10_000_000, 20_000_000]))

    # stsc first_chunk 0, and first_chunk decreasing.
    write("invalid", "stsc-first-chunk-zero.mov", moov_last(stsc_box=stsc([(0, 1, 1)])))
    write("invalid", "stsc-decreasing.mov", moov_last(stsc_box=stsc([(2, 1, 1), (1, 1, 1)])))

    # cmov claiming 4 GB uncompressed.
    bomb = box("moov", box("cmov", box("dcom", b"zlib") + box("cmvd", struct.pack(">I", 0xFFFFFFF0) + zlib.compress(b"\0" * 1000))))
    write("invalid", "cmov-claims-4gb.mov", ftyp() + bomb)

    # Truncated in the middle of the moov.
    write("invalid", "truncated-mid-box.mov", good[: moov_at + 200])

    # Two moov boxes.
    write("invalid", "two-moov.mov", good + good[moov_at:])

    # No moov at all.
    write("invalid", "no-moov.mov", ftyp() + box("mdat", frames()))

    # stts whose total duration passes 2^63: 3 samples of 2^32-1 ticks is fine, so use runs
    # of huge deltas: 2 entries of count 0xFFFFFFFF and delta 0xFFFFFFFF (≈ 2^64 ticks) against
    # a matching stsz count is impossible, so the runs alone must trip the overflow check.
    write("invalid", "stts-total-overflow.mov",
          moov_last(stts_box=stts([(0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (3, 1)])))

    # Not a movie at all.
    write("invalid", "not-a-movie.mov", b"\x89PNG\r\n\x1a\n" + b"\0" * 64)


if __name__ == "__main__":
    valid()
    invalid()
