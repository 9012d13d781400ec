#!/usr/bin/env python3
"""Writes corpus/cinematic/*.mov: copies of demo-small.mov, each with one defect or one edge case
patched in by hand at a byte offset found by walking the boxes (ISO/IEC 14496-12, QTFF).

No cinepack code is involved: every patch keeps sizes and offsets, and the expectation of each
file comes from spec/format.md (see corpus/manifest.tsv). Run from the repository root:
    python3 corpus/tools/make_cinematic_corpus.py
"""
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SOURCE = os.path.join(ROOT, "cinematic", "demo-small.mov")
CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"udta", b"cpED", b"meta", b"ilst", b"edts", b"dinf", b"tref"}


def boxes(data, start, end, path=""):
    """Yields (path, type, offset, header length, end) of every box in [start, end), depth first."""
    off = start
    while off + 8 <= end:
        size, kind = struct.unpack(">I4s", data[off:off + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[off + 8:off + 16])[0]
            header = 16
        elif size == 0:
            size = end - off
        here = f"{path}/{kind.decode('latin-1')}"
        yield here, kind, off, header, off + size
        if kind in CONTAINERS:
            yield from boxes(data, off + header, off + size, here)
        off += size


def find(data, path):
    return [(o, h, e) for p, _, o, h, e in boxes(data, 0, len(data)) if p == path]


def write(name, data):
    with open(os.path.join(ROOT, "cinematic", name), "wb") as f:
        f.write(data)


def replace_once(data, old, new, start=0):
    assert len(old) == len(new)
    at = data.index(old, start)
    data[at:at + len(old)] = new
    return at


def slot_record(sequence, text, capacity):
    """spec/format.md §8: magic, u64 sequence, u32 length, u32 CRC-32 of bytes 0…15 and the text."""
    head = b"EDLS" + struct.pack(">QI", sequence, len(text))
    crc = zlib.crc32(head + text) & 0xFFFFFFFF
    record = head + struct.pack(">I", crc) + text
    return record + b"\0" * (capacity - len(record))


def main():
    demo = open(SOURCE, "rb").read()
    (ftyp, ftyp_header, ftyp_end), = find(demo, "/ftyp")
    slots = find(demo, "/moov/udta/cpED/cpES")
    assert len(slots) == 2

    # §2: without the cnpk brand the movie is not ours (its cinematic tracks are not read).
    data = bytearray(demo)
    data[:ftyp_end] = bytes(data[:ftyp_end]).replace(b"cnpk", b"mp42", 1)
    write("no-cnpk-brand.mov", bytes(data))

    # §2/§7: without the org.cinepack.version key, likewise (the key renamed, same length).
    data = bytearray(demo)
    replace_once(data, b"org.cinepack.version", b"org.example.versionx")
    write("no-version-key.mov", bytes(data))

    # §3: a mebx track whose keys lack org.cinepack.focus is not a focus-metadata track.
    data = bytearray(demo)
    replace_once(data, b"org.cinepack.focus", b"org.example.focus_")
    write("mebx-without-focus-key.mov", bytes(data))

    # §6.2: a detection type outside the table (777) is kept and shown as a number. The first
    # item of the first metadata sample is the detections item (local id 1): type at 8 + 4 + 8.
    data = bytearray(demo)
    tracks = [(o, e) for p, _, o, h, e in boxes(demo, 0, len(demo)) if p == "/moov/trak"]
    meta_trak = next((o, e) for o, e in tracks if b"mebx" in demo[o:e])
    stco = next(o for p, _, o, h, e in boxes(demo, meta_trak[0], meta_trak[1], "/moov") if p.endswith("/stco"))
    first_sample = struct.unpack(">I", demo[stco + 16:stco + 20])[0]
    size, local_id = struct.unpack(">II", demo[first_sample:first_sample + 8])
    assert local_id == 1 and struct.unpack(">H", demo[first_sample + 8:first_sample + 10])[0] == 1
    struct.pack_into(">H", data, first_sample + 8 + 4 + 8, 777)
    write("unknown-detection-type.mov", bytes(data))

    # §7: an outsider's file with f/2.0 captured on every frame but frame 0, whose f-number item
    # gets a local id no key declares (99), so it is skipped and frame 0 has no captured f-number.
    data = bytearray(demo)
    stsz = next(o for p, _, o, h, e in boxes(demo, meta_trak[0], meta_trak[1], "/moov") if p.endswith("/stsz"))
    count = struct.unpack(">I", demo[stco + 12:stco + 16])[0]
    assert struct.unpack(">II", demo[stsz + 12:stsz + 20]) == (0, count)
    for n in range(count):
        at = struct.unpack(">I", demo[stco + 16 + 4 * n:stco + 20 + 4 * n])[0]
        end = at + struct.unpack(">I", demo[stsz + 20 + 4 * n:stsz + 24 + 4 * n])[0]
        while at < end:
            size, local_id = struct.unpack(">II", demo[at:at + 8])
            if local_id == 4:  # org.cinepack.f-number in the demo's keys
                struct.pack_into(">f", data, at + 8, 2.0)
                if n == 0:
                    struct.pack_into(">I", data, at + 4, 99)
            at += size
    write("captured-f2.mov", bytes(data))

    # §6.1: a dtyp that disagrees with the table (f-number declared as type 77, u32): refused.
    data = bytearray(demo)
    key = demo.index(b"org.cinepack.f-number")
    dtyp = demo.index(b"dtyp", key)
    assert struct.unpack(">II", demo[dtyp + 4:dtyp + 12]) == (0, 23)
    struct.pack_into(">I", data, dtyp + 8, 77)
    write("dtyp-mismatch.mov", bytes(data))

    # §6.2: one bad sample (frame 7's focus target kind 9) refuses the movie's focus metadata.
    data = bytearray(demo)
    at = struct.unpack(">I", demo[stco + 16 + 4 * 7:stco + 20 + 4 * 7])[0]
    while struct.unpack(">I", demo[at + 4:at + 8])[0] != 2:  # local id 2: org.cinepack.focus
        at += struct.unpack(">I", demo[at:at + 4])[0]
    data[at + 8 + 1] = 9
    write("bad-metadata-sample.mov", bytes(data))

    # §8: slot records. Capacity = payload after the cpES version/flags.
    capacity = slots[0][2] - slots[0][0] - slots[0][1] - 4
    records = [s[0] + s[1] + 4 for s in slots]

    # Slot A torn (its CRC broken): slot B, sequence 0, is used, with a warning.
    data = bytearray(demo)
    data[records[0] + 16] ^= 0xFF
    write("edl-slot-a-torn.mov", bytes(data))

    # Both slots all zero (no magic): no edits, with a warning; a writer never leaves this.
    data = bytearray(demo)
    for r in records:
        data[r:r + capacity] = b"\0" * capacity
    write("edl-slots-zero.mov", bytes(data))

    # A cpES of version 1: its layout is unknown, so the EDL cannot be read or written.
    data = bytearray(demo)
    data[slots[0][0] + slots[0][1]] = 1
    write("edl-slot-version-1.mov", bytes(data))

    # Two valid slots with the same sequence (1): slot B is current (§8). No writer produces
    # this; the rule makes every reader agree anyway.
    data = bytearray(demo)
    for r, f in zip(records, (b"2.8", b"5.6")):
        text = b'<edl xmlns="urn:cinepack:edl:1" version="1"><aperture f-number="' + f + b'"/></edl>'
        data[r:r + capacity] = slot_record(1, text, capacity)
    write("edl-equal-sequences.mov", bytes(data))


if __name__ == "__main__":
    main()
