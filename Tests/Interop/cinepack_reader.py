#!/usr/bin/env python3
"""An independent reader for cinepack movies, written from spec/format.md alone.

It shares no code with the Swift implementation: it walks the boxes itself (ISO/IEC 14496-12 and
QTFF), finds the tracks by the role rules of spec §3, locates samples through the sample tables,
decodes the 16-bit grey PNG disparity maps (zlib + the five PNG filters, no imaging library) and
the focus-metadata samples of §6 (keys looked up by name), and reads the movie parameters of §7.

    python3 Tests/Interop/cinepack_reader.py FILE

prints one JSON document on stdout:

    {"brands": {major, minor_version, compatible},
     "tracks": {
       "video": {id, codec, width, height, timescale, frames, samples},
       "disparity": {id, width, height, min, max, encoding, timescale, frames, samples,
                     "frame0_stats": {min, max, mean, valid, invalid}, "frame_stats": [... per frame]}
                    | null,
       "metadata": {id, timescale, samples, "keys": {"local id": name},
                    "frames": [{"detections": [{id, group, type, flags, rect: [x, y, w, h], disparity,
                                                confidence, reserved}],
                                "focus": {kind, flags, reserved, strong, in_transition, target_id,
                                          disparity, value1, value2, progress},
                                "decision": {kind, flags, reserved, strong, target_id, disparity,
                                             value1} | null,
                                "f_number": x | null, "scene": n | null, "unknown_items": n}]} | null,
       "audio": {id, codec, samples} | null},
     "parameters": {key: value, with the §7 defaults filled in},
     "parameters_stored": {key: value, exactly what moov/meta holds},
     "edl": {sequence, slot, text, slots: [{slot, valid, sequence}], warnings} | {unreadable} | null}

Video, disparity and metadata also carry "fields": {tkhd_flags, media_header, handler_name,
compressor, depth} (the last two for visual sample entries), the values §4 says writers write.

"samples" lists [file offset, size, decode time, duration] of every sample in decode order; the
frame lists are in frame order (§4). Disparity statistics are over the valid (non-zero) codes of
each map, in diopters. Floats are the binary32 values of the file as Python floats (exact; they
print as the shortest decimal that round-trips to the double, which converts back to the same
binary32). Non-finite floats, which JSON cannot carry, are the strings "NaN", "Infinity" and
"-Infinity". Box paths in messages index repeated siblings from 0: moov/trak[1] is the second trak.

Choices where the spec leaves room (see the notes at the end of this file).

Exit status: 0 success; 2 the file violates the spec (one line on stderr naming the box, sample or
offset and the clause); 1 usage or I/O error. Standard library only.
"""

import json
import math
import struct
import sys
import zlib
from fractions import Fraction

SPEC = "spec/format.md"
ISO = "ISO/IEC 14496-12"

# Limits that keep a hostile file from making the reader allocate without bound.
MAX_MOOV = 512 << 20          # bytes of moov read into memory
MAX_SAMPLES = 10_000_000      # samples per track
MAX_DEPTH = 32                # box nesting
MAX_PNG_PIXELS = 1 << 26      # per disparity map
MAX_SAMPLE_READ = 256 << 20   # bytes of one sample read into memory


class SpecError(Exception):
    """The file does not follow the spec; the message names where and which clause."""


def fail(message, clause):
    raise SpecError(f"{message} ({clause})")


def fourcc(raw):
    """Printable form of a box type / four-character code."""
    if all(32 <= b < 127 for b in raw):
        return raw.decode("ascii")
    return "0x" + raw.hex()


def f32(x):
    """x rounded to the nearest binary32 (ties to even), as a Python float."""
    return struct.unpack(">f", struct.pack(">f", x))[0]


def jfloat(x):
    """A float for JSON: non-finite values become strings (JSON has no NaN)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


# ---------------------------------------------------------------------------------------------
# Bytes and boxes


class Buffer:
    """Bytes from the file with the absolute file offset of their first byte, so every message
    can name a file offset."""

    def __init__(self, data, base):
        self.data = data
        self.base = base

    def take(self, off, n, end, what, clause=ISO + " §4.2"):
        """n bytes at absolute offset off, which must end at or before absolute offset end."""
        if n < 0 or off + n > end or off < self.base or off + n > self.base + len(self.data):
            fail(f"{what}: needs {n} bytes at offset {off} but only {max(0, end - off)} remain", clause)
        rel = off - self.base
        return self.data[rel:rel + n]

    def u8(self, off, end, what, clause=ISO + " §4.2"):
        return self.take(off, 1, end, what, clause)[0]

    def u16(self, off, end, what, clause=ISO + " §4.2"):
        return struct.unpack(">H", self.take(off, 2, end, what, clause))[0]

    def u32(self, off, end, what, clause=ISO + " §4.2"):
        return struct.unpack(">I", self.take(off, 4, end, what, clause))[0]

    def i32(self, off, end, what, clause=ISO + " §4.2"):
        return struct.unpack(">i", self.take(off, 4, end, what, clause))[0]

    def u64(self, off, end, what, clause=ISO + " §4.2"):
        return struct.unpack(">Q", self.take(off, 8, end, what, clause))[0]

    def f32(self, off, end, what, clause=ISO + " §4.2"):
        return struct.unpack(">f", self.take(off, 4, end, what, clause))[0]


class Box:
    __slots__ = ("type", "start", "payload", "end", "path")

    def __init__(self, typ, start, payload, end, path):
        self.type = typ        # raw 4 bytes
        self.start = start     # absolute offset of the header
        self.payload = payload  # absolute offset of the payload
        self.end = end         # absolute offset one past the box
        self.path = path       # e.g. "moov/trak[1]/mdia"

    @property
    def name(self):
        return fourcc(self.type)

    def __repr__(self):
        return f"'{self.path}' at offset {self.start}"


def parse_header(raw, off, end, parent, allow_zero):
    """(type, header length, total size) of the box header in raw (which starts at off)."""
    if end - off < 8:
        fail(f"{parent}: {end - off} trailing bytes at offset {off}, too few for a box header", ISO + " §4.2")
    size, typ = struct.unpack(">I4s", raw[:8])
    header = 8
    if size == 1:
        if end - off < 16:
            fail(f"box '{fourcc(typ)}' at offset {off} in {parent}: 64-bit size needs 16 header bytes, {end - off} remain",
                 ISO + " §4.2")
        size = struct.unpack(">Q", raw[8:16])[0]
        header = 16
    elif size == 0:
        if not allow_zero:
            fail(f"box '{fourcc(typ)}' at offset {off} in {parent}: size 0 (to end of file) is only allowed at top level",
                 ISO + " §4.2")
        size = end - off
    if typ == b"uuid":
        header += 16
    if size < header:
        fail(f"box '{fourcc(typ)}' at offset {off} in {parent}: size {size} is smaller than its {header}-byte header",
             ISO + " §4.2")
    if off + size > end:
        fail(f"box '{fourcc(typ)}' at offset {off} in {parent}: size {size} runs to {off + size}, past the end of its "
             f"parent at {end}", ISO + " §4.2")
    return typ, header, size


def children(buf, start, end, path, depth, terminator_ok=False):
    """The boxes in [start, end) of buf. A QTFF 4-byte zero terminator is accepted where allowed."""
    if depth > MAX_DEPTH:
        fail(f"{path}: boxes nested deeper than {MAX_DEPTH}", ISO + " §4.2")
    boxes = []
    counts = {}
    off = start
    while off < end:
        if terminator_ok and end - off == 4 and buf.take(off, 4, end, path) == b"\0\0\0\0":
            break
        raw = buf.take(off, min(16, end - off), end, path)
        typ, header, size = parse_header(raw, off, end, path, allow_zero=False)
        index = counts.get(typ, 0)
        counts[typ] = index + 1
        boxes.append(Box(typ, off, off + header, off + size, f"{path}/{fourcc(typ)}" + (f"[{index}]" if index else "")))
        off += size
    return boxes


def only(boxes, typ, parent, clause, required=True):
    found = [b for b in boxes if b.type == typ]
    if len(found) > 1:
        fail(f"{parent}: {len(found)} '{fourcc(typ)}' boxes, expected one", clause)
    if not found:
        if required:
            fail(f"{parent}: no '{fourcc(typ)}' box", clause)
        return None
    return found[0]


def full_box(buf, box, clause=ISO + " §4.2"):
    """(version, flags) of a full box."""
    v = buf.u32(box.payload, box.end, f"{box.path} version/flags", clause)
    return v >> 24, v & 0xFFFFFF


# ---------------------------------------------------------------------------------------------
# The file


class File:
    def __init__(self, path):
        self.f = open(path, "rb")
        self.f.seek(0, 2)
        self.size = self.f.tell()

    def read(self, off, n, what, clause):
        if off < 0 or n < 0 or off + n > self.size:
            fail(f"{what}: bytes {off}..{off + n} lie outside the file of {self.size} bytes", clause)
        if n > MAX_SAMPLE_READ:
            fail(f"{what}: {n} bytes is more than this reader will read at once", clause)
        self.f.seek(off)
        data = self.f.read(n)
        if len(data) != n:
            fail(f"{what}: short read at offset {off}", clause)
        return data


def top_level(file):
    boxes = []
    off = 0
    while off < file.size:
        raw = file.read(off, min(32, file.size - off), "top level", ISO + " §4.2")
        typ, header, size = parse_header(raw, off, file.size, "the file", allow_zero=True)
        boxes.append(Box(typ, off, off + header, off + size, fourcc(typ)))
        off += size
    return boxes


def read_ftyp(file, boxes):
    if not boxes or boxes[0].type != b"ftyp":
        fail("the file does not start with an 'ftyp' box", SPEC + " §2")
    b = boxes[0]
    if b.end - b.payload < 8 or (b.end - b.payload) % 4:
        fail(f"'ftyp' at offset {b.start}: payload of {b.end - b.payload} bytes is not 8 + 4·n", ISO + " §4.3")
    data = file.read(b.payload, b.end - b.payload, "ftyp", ISO + " §4.3")
    major = data[0:4]
    minor = struct.unpack(">I", data[4:8])[0]
    compatible = [data[i:i + 4] for i in range(8, len(data), 4)]
    if major != b"qt  ":
        fail(f"'ftyp' at offset {b.start}: major brand '{fourcc(major)}', expected 'qt  '", SPEC + " §2")
    if minor != 0x20250100:
        fail(f"'ftyp' at offset {b.start}: minor version 0x{minor:08x}, expected 0x20250100", SPEC + " §2")
    for brand in (b"qt  ", b"cnpk"):
        if brand not in compatible:
            fail(f"'ftyp' at offset {b.start}: compatible brand '{fourcc(brand)}' missing", SPEC + " §2")
    return {"major": fourcc(major), "minor_version": minor, "compatible": [fourcc(c) for c in compatible]}


# ---------------------------------------------------------------------------------------------
# Tracks


class SampleEntry:
    def __init__(self, box):
        self.box = box
        self.type = box.type
        self.width = None
        self.height = None
        self.depth = None
        self.compressor = None
        self.children = []
        self.keys = None       # mebx: {local id: (name, (dtyp namespace, type) or None)}


class Track:
    def __init__(self, box):
        self.box = box
        self.id = None
        self.enabled = False
        self.handler = None
        self.timescale = None
        self.references = {}   # type bytes -> [track ids]
        self.entries = []
        self.samples = []      # (offset, size, decode time, duration, composition offset) in decode order
        self.keys = None       # the mebx keys of the first sample entry
        self.flags = 0         # tkhd flags
        self.media_header = None  # type of the first box of minf (vmhd, smhd, nmhd, gmhd …)
        self.handler_name = None

    def where(self):
        return f"track {self.id} ({self.box.path})"


def parse_tkhd(buf, track, box):
    version, flags = full_box(buf, box)
    if version == 0:
        track.id = buf.u32(box.payload + 12, box.end, f"{box.path} track_ID")
    elif version == 1:
        track.id = buf.u32(box.payload + 20, box.end, f"{box.path} track_ID")
    else:
        fail(f"{box.path} at offset {box.start}: unknown version {version}", ISO + " §8.3.2")
    if track.id == 0:
        fail(f"{box.path} at offset {box.start}: track_ID 0", ISO + " §8.3.2")
    track.enabled = bool(flags & 1)
    track.flags = flags


def parse_mdhd(buf, track, box):
    version, _ = full_box(buf, box)
    if version == 0:
        track.timescale = buf.u32(box.payload + 12, box.end, f"{box.path} timescale")
    elif version == 1:
        track.timescale = buf.u32(box.payload + 20, box.end, f"{box.path} timescale")
    else:
        fail(f"{box.path} at offset {box.start}: unknown version {version}", ISO + " §8.4.2")
    if track.timescale == 0:
        fail(f"{box.path} at offset {box.start}: timescale 0", ISO + " §8.4.2")


def parse_hdlr(buf, box):
    """handler_type (QTFF: component subtype), the u32 after version/flags and pre_defined."""
    full_box(buf, box)
    return buf.take(box.payload + 8, 4, box.end, f"{box.path} handler_type", ISO + " §8.4.3")


def parse_tref(buf, track, box, depth):
    for ref in children(buf, box.payload, box.end, box.path, depth):
        n = ref.end - ref.payload
        if n % 4:
            fail(f"{ref.path} at offset {ref.start}: {n} bytes is not a list of u32 track ids", ISO + " §8.3.3")
        ids = list(struct.unpack(f">{n // 4}I", buf.take(ref.payload, n, ref.end, ref.path)))
        track.references.setdefault(ref.type, []).extend(ids)


def parse_stsd(buf, track, box, depth):
    full_box(buf, box, ISO + " §8.5.2")
    count = buf.u32(box.payload + 4, box.end, f"{box.path} entry_count", ISO + " §8.5.2")
    entries = children(buf, box.payload + 8, box.end, box.path, depth)
    if count != len(entries) or count == 0:
        fail(f"{box.path} at offset {box.start}: entry_count {count} but {len(entries)} sample entries", ISO + " §8.5.2")
    for e in entries:
        entry = SampleEntry(e)
        if track.handler == b"vide":
            # 6 reserved, u16 data_reference_index, 16 bytes (QTFF version/revision/vendor/quality),
            # u16 width, u16 height, hres, vres, u32 reserved, u16 frame_count, 32-byte name,
            # u16 depth, i16 pre_defined: children at payload + 78 (ISO §12.1.3, QTFF).
            buf.take(e.payload, 78, e.end, f"{e.path} visual sample entry fields", ISO + " §12.1.3")
            entry.width = buf.u16(e.payload + 24, e.end, e.path)
            entry.height = buf.u16(e.payload + 26, e.end, e.path)
            entry.depth = buf.u16(e.payload + 74, e.end, e.path)
            name = buf.take(e.payload + 42, 32, e.end, e.path)
            entry.compressor = name[1:1 + min(name[0], 31)].decode("utf-8", "replace")
            entry.children = children(buf, e.payload + 78, e.end, e.path, depth + 1, terminator_ok=True)
        elif track.handler == b"meta" and e.type == b"mebx":
            buf.take(e.payload, 8, e.end, f"{e.path} sample entry fields", "QTFF timed metadata sample description")
            dri = buf.u16(e.payload + 6, e.end, e.path)
            if dri != 1:
                fail(f"{e.path} at offset {e.start}: data_reference_index {dri}, expected 1", SPEC + " §6.1")
            entry.children = children(buf, e.payload + 8, e.end, e.path, depth + 1, terminator_ok=True)
            entry.keys = parse_mebx_keys(buf, entry, depth + 2)
        track.entries.append(entry)


def parse_mebx_keys(buf, entry, depth):
    """{local id: (name, dtyp)} from the mebx 'keys' box (one box per key; QTFF)."""
    keys_box = only(entry.children, b"keys", entry.box.path, SPEC + " §6.1")
    keys = {}
    names = set()
    for kb in children(buf, keys_box.payload, keys_box.end, keys_box.path, depth):
        local_id = struct.unpack(">I", kb.type)[0]
        if local_id in (0, 0xFFFFFFFF):
            fail(f"{kb.path} at offset {kb.start}: local id {local_id} is reserved", SPEC + " §6.1")
        if local_id in keys:
            fail(f"{kb.path} at offset {kb.start}: local id {local_id} declared twice", SPEC + " §6.1")
        inner = children(buf, kb.payload, kb.end, kb.path, depth + 1)
        keyd = only(inner, b"keyd", kb.path, SPEC + " §6.1")
        n = keyd.end - keyd.payload
        if n < 4:
            fail(f"{keyd.path} at offset {keyd.start}: {n} bytes, too short for a namespace", SPEC + " §6.1")
        namespace = buf.take(keyd.payload, 4, keyd.end, keyd.path)
        raw_name = buf.take(keyd.payload + 4, n - 4, keyd.end, keyd.path)
        if namespace != b"mdta":
            # Not one of ours; keep it under a name that cannot collide with an mdta key.
            name = f"{fourcc(namespace)}:{raw_name.hex()}"
        else:
            try:
                name = raw_name.decode("utf-8")
            except UnicodeDecodeError:
                fail(f"{keyd.path} at offset {keyd.start}: key name is not UTF-8", SPEC + " §6.1")
        dtyp = only(inner, b"dtyp", kb.path, SPEC + " §6.1", required=False)
        dt = None
        if dtyp is not None:
            if dtyp.end - dtyp.payload < 8:
                fail(f"{dtyp.path} at offset {dtyp.start}: too short", SPEC + " §6.1")
            dt = (buf.u32(dtyp.payload, dtyp.end, dtyp.path), buf.u32(dtyp.payload + 4, dtyp.end, dtyp.path))
        if namespace == b"mdta" and name in names:
            fail(f"{kb.path} at offset {kb.start}: key '{name}' declared under two local ids", SPEC + " §6.1")
        names.add(name)
        keys[local_id] = (name, dt)
    return keys


def parse_sample_table(buf, track, stbl, depth):
    boxes = children(buf, stbl.payload, stbl.end, stbl.path, depth)
    stsd = only(boxes, b"stsd", stbl.path, ISO + " §8.5.2")
    parse_stsd(buf, track, stsd, depth + 1)

    # stts: durations in decode order.
    stts = only(boxes, b"stts", stbl.path, ISO + " §8.6.1.2")
    full_box(buf, stts)
    n = buf.u32(stts.payload + 4, stts.end, f"{stts.path} entry_count")
    if 8 + 8 * n > stts.end - stts.payload:
        fail(f"{stts.path} at offset {stts.start}: {n} entries do not fit in the box", ISO + " §8.6.1.2")
    stts_runs = [struct.unpack(">II", buf.take(stts.payload + 8 + 8 * i, 8, stts.end, stts.path)) for i in range(n)]

    # stsz (stz2 is not used by cinepack writers and not read here).
    stsz = only(boxes, b"stsz", stbl.path, ISO + " §8.7.3", required=False)
    if stsz is None:
        if any(b.type == b"stz2" for b in boxes):
            fail(f"{stbl.path}: 'stz2' compact sample sizes are not supported by this reader", ISO + " §8.7.3")
        fail(f"{stbl.path}: no 'stsz' box", ISO + " §8.7.3")
    full_box(buf, stsz)
    constant = buf.u32(stsz.payload + 4, stsz.end, f"{stsz.path} sample_size")
    count = buf.u32(stsz.payload + 8, stsz.end, f"{stsz.path} sample_count")
    if count > MAX_SAMPLES:
        fail(f"{stsz.path} at offset {stsz.start}: {count} samples is more than this reader accepts", ISO + " §8.7.3")
    if constant == 0:
        if 12 + 4 * count > stsz.end - stsz.payload:
            fail(f"{stsz.path} at offset {stsz.start}: {count} sizes do not fit in the box", ISO + " §8.7.3")
        sizes = list(struct.unpack(f">{count}I", buf.take(stsz.payload + 12, 4 * count, stsz.end, stsz.path)))
    else:
        sizes = [constant] * count

    # Chunk offsets.
    stco = only(boxes, b"stco", stbl.path, ISO + " §8.7.5", required=False)
    co64 = only(boxes, b"co64", stbl.path, ISO + " §8.7.5", required=False)
    if (stco is None) == (co64 is None):
        fail(f"{stbl.path}: needs exactly one of 'stco' and 'co64'", ISO + " §8.7.5")
    cbox = stco or co64
    width = 4 if stco else 8
    full_box(buf, cbox)
    nchunks = buf.u32(cbox.payload + 4, cbox.end, f"{cbox.path} entry_count")
    if 8 + width * nchunks > cbox.end - cbox.payload:
        fail(f"{cbox.path} at offset {cbox.start}: {nchunks} offsets do not fit in the box", ISO + " §8.7.5")
    raw = buf.take(cbox.payload + 8, width * nchunks, cbox.end, cbox.path)
    chunk_offsets = list(struct.unpack(f">{nchunks}{'I' if width == 4 else 'Q'}", raw))

    # stsc: samples per chunk.
    stsc = only(boxes, b"stsc", stbl.path, ISO + " §8.7.4")
    full_box(buf, stsc)
    ns = buf.u32(stsc.payload + 4, stsc.end, f"{stsc.path} entry_count")
    if 8 + 12 * ns > stsc.end - stsc.payload:
        fail(f"{stsc.path} at offset {stsc.start}: {ns} entries do not fit in the box", ISO + " §8.7.4")
    stsc_runs = [struct.unpack(">III", buf.take(stsc.payload + 8 + 12 * i, 12, stsc.end, stsc.path)) for i in range(ns)]

    offsets = []
    for i, (first, per_chunk, sdi) in enumerate(stsc_runs):
        last = stsc_runs[i + 1][0] - 1 if i + 1 < len(stsc_runs) else nchunks
        if first < 1 or (i == 0 and first != 1) or last < first - 1 or last > nchunks:
            fail(f"{stsc.path} entry {i}: first_chunk {first} is out of order or past {nchunks} chunks", ISO + " §8.7.4")
        if sdi < 1 or sdi > len(track.entries):
            fail(f"{stsc.path} entry {i}: sample_description_index {sdi} names no sample entry", ISO + " §8.7.4")
        if sdi != 1:
            fail(f"{stsc.path} entry {i}: sample_description_index {sdi}; this reader expects one sample entry",
                 ISO + " §8.7.4")
        for chunk in range(first, last + 1):
            pos = chunk_offsets[chunk - 1]
            for _ in range(per_chunk):
                if len(offsets) >= count:
                    fail(f"{stsc.path}: chunks hold more samples than the {count} of 'stsz'", ISO + " §8.7.4")
                offsets.append(pos)
                pos += sizes[len(offsets) - 1]
    if len(offsets) != count:
        fail(f"{stsc.path}: chunks hold {len(offsets)} samples, 'stsz' declares {count}", ISO + " §8.7.4")
    if nchunks and not stsc_runs:
        fail(f"{stsc.path}: no entries but {nchunks} chunks", ISO + " §8.7.4")

    durations = []
    for sc, delta in stts_runs:
        if len(durations) + sc > count:
            fail(f"{stts.path}: entries cover more than the {count} samples", ISO + " §8.6.1.2")
        durations.extend([delta] * sc)
    if len(durations) != count:
        fail(f"{stts.path}: entries cover {len(durations)} samples, 'stsz' declares {count}", ISO + " §8.6.1.2")

    comp = [0] * count
    ctts = only(boxes, b"ctts", stbl.path, ISO + " §8.6.1.3", required=False)
    if ctts is not None:
        version, _ = full_box(buf, ctts)
        nc = buf.u32(ctts.payload + 4, ctts.end, f"{ctts.path} entry_count")
        if 8 + 8 * nc > ctts.end - ctts.payload:
            fail(f"{ctts.path} at offset {ctts.start}: {nc} entries do not fit", ISO + " §8.6.1.3")
        i = 0
        for k in range(nc):
            sc = buf.u32(ctts.payload + 8 + 8 * k, ctts.end, ctts.path)
            off = (buf.i32 if version == 1 else buf.u32)(ctts.payload + 12 + 8 * k, ctts.end, ctts.path)
            if i + sc > count:
                fail(f"{ctts.path}: entries cover more than the {count} samples", ISO + " §8.6.1.3")
            comp[i:i + sc] = [off] * sc
            i += sc

    t = 0
    for k in range(count):
        track.samples.append((offsets[k], sizes[k], t, durations[k], comp[k]))
        t += durations[k]


def parse_trak(buf, box, depth):
    track = Track(box)
    boxes = children(buf, box.payload, box.end, box.path, depth)
    parse_tkhd(buf, track, only(boxes, b"tkhd", box.path, ISO + " §8.3.2"))
    tref = only(boxes, b"tref", box.path, ISO + " §8.3.3", required=False)
    if tref is not None:
        parse_tref(buf, track, tref, depth + 1)
    mdia = only(boxes, b"mdia", box.path, ISO + " §8.4.1")
    mboxes = children(buf, mdia.payload, mdia.end, mdia.path, depth + 1)
    parse_mdhd(buf, track, only(mboxes, b"mdhd", mdia.path, ISO + " §8.4.2"))
    hdlr = only(mboxes, b"hdlr", mdia.path, ISO + " §8.4.3")
    track.handler = parse_hdlr(buf, hdlr)
    # name: after version/flags, pre_defined, handler_type and 12 reserved bytes; C string
    # (ISO) or Pascal string (QTFF): strip a leading length byte that matches, and the terminator.
    raw = buf.take(hdlr.payload + 24, hdlr.end - hdlr.payload - 24, hdlr.end, hdlr.path)
    if raw and raw[0] == len(raw) - 1:
        raw = raw[1:]
    track.handler_name = raw.split(b"\0")[0].decode("utf-8", "replace")
    minf = only(mboxes, b"minf", mdia.path, ISO + " §8.4.4")
    mi = children(buf, minf.payload, minf.end, minf.path, depth + 2)
    headers = [b for b in mi if b.type in (b"vmhd", b"smhd", b"nmhd", b"gmhd", b"hmhd", b"sthd")]
    track.media_header = headers[0].name if headers else None
    stbl = only(mi, b"stbl", minf.path, ISO + " §8.5.1")
    parse_sample_table(buf, track, stbl, depth + 3)
    return track


# ---------------------------------------------------------------------------------------------
# Roles (§3)


def find_roles(tracks):
    video, disparity, metadata, audio = [], [], [], []
    for t in tracks:
        entry = t.entries[0]
        if t.handler == b"vide":
            has_cpdq = any(c.type == b"cpdq" for c in entry.children)
            if has_cpdq:
                disparity.append(t)
            elif t.enabled and b"auxl" not in t.references:
                video.append(t)
        elif t.handler == b"meta" and entry.type == b"mebx":
            # §3: a mebx track is the focus-metadata track when its keys declare both
            # org.cinepack.detections and org.cinepack.focus; any other is not ours and is ignored.
            t.keys = entry.keys
            names = {name for name, _ in t.keys.values()}
            if {"org.cinepack.detections", "org.cinepack.focus"} <= names:
                metadata.append(t)
        elif t.handler == b"soun":
            audio.append(t)
    if len(video) != 1:
        fail(f"{len(video)} video tracks (handler 'vide', enabled, no 'auxl' reference); exactly one is required",
             SPEC + " §1, §3")
    for role, found in (("disparity", disparity), ("focus-metadata", metadata), ("audio", audio)):
        if len(found) > 1:
            fail(f"{len(found)} {role} tracks (ids {[t.id for t in found]}); at most one is allowed", SPEC + " §1")
    v = video[0]
    d = disparity[0] if disparity else None
    m = metadata[0] if metadata else None
    if d is not None:
        if d.enabled:
            fail(f"disparity {d.where()}: track_enabled is set", SPEC + " §3")
        if d.references.get(b"auxl") != [v.id]:
            fail(f"disparity {d.where()}: 'auxl' reference is {d.references.get(b'auxl')}, expected [{v.id}] "
                 "(the video track)", SPEC + " §3")
    if m is not None:
        if m.references.get(b"cdsc") != [v.id]:
            fail(f"focus-metadata {m.where()}: 'cdsc' reference is {m.references.get(b'cdsc')}, expected [{v.id}]",
                 SPEC + " §3")
    return v, d, m, (audio[0] if audio else None)


# ---------------------------------------------------------------------------------------------
# Timing


def frame_order(video):
    """Sample indices of the video track in frame order (§4): presentation order through ctts."""
    n = len(video.samples)
    if all(s[4] == 0 for s in video.samples):
        return list(range(n))
    return sorted(range(n), key=lambda k: (video.samples[k][2] + video.samples[k][4], k))


def check_same_timing(video, other, role, clause):
    if other.timescale != video.timescale:
        fail(f"{role} {other.where()}: media timescale {other.timescale}, the video's is {video.timescale}; the "
             "tracks share one", SPEC + " §3")
    if len(other.samples) != len(video.samples):
        fail(f"{role} {other.where()}: {len(other.samples)} samples, the video track has {len(video.samples)}", clause)
    for k, (vs, os_) in enumerate(zip(video.samples, other.samples)):
        vt, vd = Fraction(vs[2], video.timescale), Fraction(vs[3], video.timescale)
        ot, od = Fraction(os_[2], other.timescale), Fraction(os_[3], other.timescale)
        if vt != ot or vd != od:
            fail(f"{role} {other.where()} sample {k}: decode time {ot} s duration {od} s, video sample {k} has "
                 f"{vt} s and {vd} s", clause)


def read_sample(file, track, k, role):
    off, size, _, _, _ = track.samples[k]
    return file.read(off, size, f"{role} {track.where()} sample {k}", ISO + " §8.7")


# ---------------------------------------------------------------------------------------------
# PNG (16-bit greyscale only, as §5 requires)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def unfilter(data, pos, width, height, bpp, where):
    """Reverses the PNG filters (PNG spec §9) of height rows of width·bpp bytes starting at
    data[pos]. Returns (bytes of the raw rows, position after them)."""
    stride = width * bpp
    out = bytearray(stride * height)
    prev = bytearray(stride)
    for y in range(height):
        if pos + 1 + stride > len(data):
            fail(f"{where}: image data ends in row {y}", "PNG §9")
        ftype = data[pos]
        row = bytearray(data[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if ftype == 0:
            pass
        elif ftype == 1:  # Sub
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif ftype == 2:  # Up
            row = bytearray((a + b) & 0xFF for a, b in zip(row, prev))
        elif ftype == 3:  # Average
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:  # Paeth
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
                row[i] = (row[i] + pred) & 0xFF
        else:
            fail(f"{where}: row {y} has filter type {ftype}", "PNG §9.2")
        out[y * stride:(y + 1) * stride] = row
        prev = row
    return out, pos


def decode_grey16_png(data, where):
    """(width, height, [codes]) of a 16-bit greyscale PNG."""
    if data[:8] != PNG_SIGNATURE:
        fail(f"{where}: not a PNG (bad signature)", SPEC + " §5")
    pos = 8
    ihdr = None
    idat = []
    seen_iend = False
    first = True
    while pos < len(data):
        if pos + 8 > len(data):
            fail(f"{where}: truncated chunk header at byte {pos}", "PNG §5.3")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        if length > 0x7FFFFFFF or pos + 12 + length > len(data):
            fail(f"{where}: chunk '{fourcc(ctype)}' at byte {pos} runs past the sample", "PNG §5.3")
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            fail(f"{where}: chunk '{fourcc(ctype)}' at byte {pos} has a bad CRC", "PNG §5.3")
        if first and ctype != b"IHDR":
            fail(f"{where}: first chunk is '{fourcc(ctype)}', not IHDR", "PNG §5.6")
        first = False
        if ctype == b"IHDR":
            if length != 13 or ihdr is not None:
                fail(f"{where}: bad IHDR", "PNG §11.2.2")
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            seen_iend = True
            pos += 12 + length
            break
        elif not (ctype[0] & 0x20):
            fail(f"{where}: unknown critical chunk '{fourcc(ctype)}'", "PNG §5.4")
        pos += 12 + length
    if ihdr is None or not idat or not seen_iend:
        fail(f"{where}: missing IHDR, IDAT or IEND", "PNG §5.6")
    width, height, depth, colour, compression, filt, interlace = ihdr
    if depth != 16 or colour != 0:
        fail(f"{where}: bit depth {depth}, colour type {colour}; the disparity map must be 16-bit greyscale "
             "(colour type 0, bit depth 16)", SPEC + " §5")
    if compression != 0 or filt != 0 or interlace not in (0, 1):
        fail(f"{where}: compression {compression}, filter {filt}, interlace {interlace}", "PNG §11.2.2")
    if width == 0 or height == 0 or width * height > MAX_PNG_PIXELS:
        fail(f"{where}: size {width}×{height}", "PNG §11.2.2")
    try:
        z = zlib.decompressobj()
        raw = z.decompress(b"".join(idat), 2 * (width * 2 + 1) * height + 1024)
        if not z.eof:
            fail(f"{where}: zlib stream does not end (or inflates beyond the image size)", "PNG §10")
    except zlib.error as e:
        fail(f"{where}: zlib: {e}", "PNG §10")
    bpp = 2
    if interlace == 0:
        pixels, end = unfilter(raw, 0, width, height, bpp, where)
    else:
        pixels = bytearray(width * height * bpp)
        end = 0
        for (x0, y0, dx, dy) in ADAM7:
            pw = (width - x0 + dx - 1) // dx
            ph = (height - y0 + dy - 1) // dy
            if pw == 0 or ph == 0:
                continue
            sub, end = unfilter(raw, end, pw, ph, bpp, where)
            for j in range(ph):
                for i in range(pw):
                    s = (j * pw + i) * 2
                    d = ((y0 + j * dy) * width + x0 + i * dx) * 2
                    pixels[d:d + 2] = sub[s:s + 2]
    if end != len(raw):
        fail(f"{where}: {len(raw) - end} bytes of image data after the last row", "PNG §10")
    codes = struct.unpack(f">{width * height}H", bytes(pixels))
    return width, height, codes


# ---------------------------------------------------------------------------------------------
# Disparity (§5)


def read_cpdq(buf, track):
    entry = track.entries[0]
    if entry.type != b"png ":
        fail(f"disparity {track.where()}: sample entry '{entry.box.name}', expected 'png '", SPEC + " §1, §5")
    cpdq = only(entry.children, b"cpdq", entry.box.path, SPEC + " §5")
    version, flags = full_box(buf, cpdq, SPEC + " §5")
    if version != 0 or flags != 0:
        fail(f"{cpdq.path} at offset {cpdq.start}: version {version} flags {flags}, expected 0 and 0", SPEC + " §5")
    if cpdq.end - cpdq.payload != 16:
        fail(f"{cpdq.path} at offset {cpdq.start}: payload of {cpdq.end - cpdq.payload} bytes, expected 16", SPEC + " §5")
    lo = buf.f32(cpdq.payload + 4, cpdq.end, cpdq.path, SPEC + " §5")
    hi = buf.f32(cpdq.payload + 8, cpdq.end, cpdq.path, SPEC + " §5")
    enc = buf.u32(cpdq.payload + 12, cpdq.end, cpdq.path, SPEC + " §5")
    if not (math.isfinite(lo) and math.isfinite(hi) and lo >= 0 and hi > lo):
        fail(f"{cpdq.path} at offset {cpdq.start}: range {lo}…{hi} (minimum ≥ 0, maximum > minimum, both finite)",
             SPEC + " §5")
    if enc != 1:
        fail(f"{cpdq.path} at offset {cpdq.start}: encoding {enc}; only 1 (linear 16-bit) is defined, the reader "
             "must refuse the track", SPEC + " §5")
    return lo, hi, enc


def disparity_stats(codes, lo, hi):
    invalid = 0
    cmin, cmax, total, valid = None, None, 0, 0
    for c in codes:
        if c == 0:
            invalid += 1
            continue
        valid += 1
        total += c
        if cmin is None or c < cmin:
            cmin = c
        if cmax is None or c > cmax:
            cmax = c
    span = hi - lo

    def d(code):
        # §5: binary32, each step rounded, left to right. One binary64 operation on binary32
        # operands rounded to binary32 equals the binary32 operation (no double-rounding error).
        return f32(lo + f32(f32((code - 1) / 65534) * f32(hi - lo)))

    if valid == 0:
        return {"min": None, "max": None, "mean": None, "valid": 0, "invalid": invalid}
    # The mean of a linear map is the map of the mean code.
    mean = lo + (total / valid - 1) / 65534 * span
    return {"min": d(cmin), "max": d(cmax), "mean": mean, "valid": valid, "invalid": invalid}


# ---------------------------------------------------------------------------------------------
# Focus metadata (§6)


KNOWN_KEYS = {
    "org.cinepack.detections": 0,
    "org.cinepack.focus": 0,
    "org.cinepack.decision": 0,
    "org.cinepack.f-number": 23,
    "org.cinepack.scene": 77,
}


def decode_focus_fields(p, where, clause):
    """The first 16 bytes, shared by §6.3 (focus) and §6.4 (decision)."""
    version, kind, flags, reserved, target_id = struct.unpack(">BBBBI", p[:8])
    if version != 1:
        fail(f"{where}: version {version}, expected 1", clause)
    if kind > 4:
        fail(f"{where}: target kind {kind} is not one of 0…4", clause)
    if kind in (1, 2) and target_id == 0:
        fail(f"{where}: target kind {kind} with target id 0 (a detection or group id is ≥ 1)", clause)
    if kind in (0, 3, 4) and target_id != 0:
        fail(f"{where}: target kind {kind} with target id {target_id}, expected 0", clause)
    disparity, v1 = struct.unpack(">ff", p[8:16])
    if kind in (0, 1, 2) and v1 != 0:
        fail(f"{where}: target kind {kind} with target value 1 = {v1}, expected 0", clause)
    return {
        "kind": kind,
        "flags": flags,
        "reserved": reserved,
        "strong": bool(flags & 1),
        "target_id": target_id,
        "disparity": jfloat(disparity),
        "value1": jfloat(v1),
    }


def decode_sample(data, keys, where):
    frame = {"detections": None, "focus": None, "decision": None, "f_number": None, "scene": None, "unknown_items": 0}
    if len(data) == 0:
        fail(f"{where}: empty sample", SPEC + " §6.2")
    pos = 0
    seen = set()
    while pos < len(data):
        if len(data) - pos < 8:
            fail(f"{where} byte {pos}: {len(data) - pos} trailing bytes, too few for an item header", SPEC + " §6.2")
        size, local_id = struct.unpack(">II", data[pos:pos + 8])
        if size < 8 or pos + size > len(data):
            fail(f"{where} byte {pos}: item size {size} (local id {local_id}) overlaps the end of the "
                 f"{len(data)}-byte sample", SPEC + " §6.2")
        payload = data[pos + 8:pos + size]
        item = f"{where} item at byte {pos} (local id {local_id})"
        pos += size
        # §6.1: items whose local id is not declared, or names a key this reader does not know,
        # are skipped (forward compatibility).
        name = keys[local_id][0] if local_id in keys else None
        if name not in KNOWN_KEYS:
            frame["unknown_items"] += 1
            continue
        if name in seen:
            fail(f"{item}: a second '{name}' item in one sample", SPEC + " §6.2")
        seen.add(name)
        if name == "org.cinepack.detections":
            if len(payload) < 4:
                fail(f"{item}: detections payload of {len(payload)} bytes", SPEC + " §6.2")
            version, count = struct.unpack(">HH", payload[:4])
            if version != 1:
                fail(f"{item}: detections version {version}, expected 1", SPEC + " §6.2")
            if len(payload) < 4 + 40 * count:
                fail(f"{item}: {count} detections need {4 + 40 * count} bytes, the payload has {len(payload)}",
                     SPEC + " §6.2")
            dets = []
            for k in range(count):
                r = payload[4 + 40 * k:4 + 40 * (k + 1)]
                did, group, dtype, flags = struct.unpack(">IIHH", r[:12])
                x, y, w, h, disp, conf = struct.unpack(">6f", r[12:36])
                reserved = struct.unpack(">I", r[36:40])[0]
                if did == 0:
                    fail(f"{item}: detection {k} has id 0 (ids are ≥ 1)", SPEC + " §6.2")
                if not 0 <= conf <= 1:
                    fail(f"{item}: detection {k} (id {did}) has confidence {conf}, outside 0…1", SPEC + " §6.2")
                dets.append({"id": did, "group": group, "type": dtype, "flags": flags,
                             "rect": [jfloat(x), jfloat(y), jfloat(w), jfloat(h)],
                             "disparity": jfloat(disp), "confidence": jfloat(conf), "reserved": reserved})
            frame["detections"] = dets
        elif name == "org.cinepack.focus":
            if len(payload) < 20:
                fail(f"{item}: focus payload of {len(payload)} bytes, expected 20", SPEC + " §6.3")
            focus = decode_focus_fields(payload, item, SPEC + " §6.3")
            v2 = struct.unpack(">f", payload[16:20])[0]
            focus["in_transition"] = bool(focus["flags"] & 2)
            if focus["kind"] != 4 and focus["in_transition"] and not 0 <= v2 <= 1:
                fail(f"{item}: transition progress {v2} is outside 0…1", SPEC + " §6.3")
            focus["value2"] = jfloat(v2)
            # Kind 4 stores point y here; its progress is not stored (0 is assumed).
            focus["progress"] = 0.0 if focus["kind"] == 4 else jfloat(v2)
            frame["focus"] = focus
        elif name == "org.cinepack.decision":
            if len(payload) < 16:
                fail(f"{item}: decision payload of {len(payload)} bytes, expected 16", SPEC + " §6.4")
            decision = decode_focus_fields(payload, item, SPEC + " §6.4")
            frame["decision"] = decision
        elif name == "org.cinepack.f-number":
            if len(payload) != 4:
                fail(f"{item}: f-number payload of {len(payload)} bytes, expected 4 (f32)", SPEC + " §6.1")
            frame["f_number"] = jfloat(struct.unpack(">f", payload)[0])
        elif name == "org.cinepack.scene":
            if len(payload) != 4:
                fail(f"{item}: scene payload of {len(payload)} bytes, expected 4 (u32)", SPEC + " §6.5")
            frame["scene"] = struct.unpack(">I", payload)[0]
    if frame["detections"] is None:
        fail(f"{where}: no 'org.cinepack.detections' item; every sample carries one", SPEC + " §6.2")
    if frame["focus"] is None:
        fail(f"{where}: no 'org.cinepack.focus' item; every sample carries one", SPEC + " §6.2")
    return frame


def check_metadata_keys(track):
    for local_id, (name, dt) in track.keys.items():
        # §6.1: a well-known type (namespace 0) other than the table's makes the track unreadable;
        # no dtyp, or one in another namespace, leaves the name to decide.
        if name in KNOWN_KEYS and dt is not None and dt[0] == 0 and dt[1] != KNOWN_KEYS[name]:
            fail(f"focus-metadata {track.where()}: key '{name}' (local id {local_id}) has well-known type {dt[1]}, "
                 f"expected {KNOWN_KEYS[name]}", SPEC + " §6.1")


# ---------------------------------------------------------------------------------------------
# Movie parameters (§7)


PARAMETER_DEFAULTS = {
    "org.cinepack.version": "1",
    "org.cinepack.lens.focal-length-35mm": 26.0,
    "org.cinepack.aperture.default": 4.5,
    "org.cinepack.aperture.minimum": 1.4,
    "org.cinepack.aperture.maximum": 16.0,
    "org.cinepack.focus.max-disparity-rate": 0.5,
    "org.cinepack.focus.min-transition": 0.3333,
    "org.cinepack.focus.max-transition": 1.0,
    "org.cinepack.focus.gap-bridge": 1.0,
    "org.cinepack.focus.weak-suppression": 2.0,
}


def read_parameters(buf, moov_boxes, depth):
    meta = only(moov_boxes, b"meta", "moov", SPEC + " §7", required=False)
    if meta is None:
        return {}
    boxes = children(buf, meta.payload, meta.end, meta.path, depth)  # QTFF: no version/flags
    hdlr = only(boxes, b"hdlr", meta.path, SPEC + " §7")
    if parse_hdlr(buf, hdlr) != b"mdta":
        fail(f"{hdlr.path} at offset {hdlr.start}: handler '{fourcc(parse_hdlr(buf, hdlr))}', expected 'mdta'",
             SPEC + " §7")
    keys_box = only(boxes, b"keys", meta.path, SPEC + " §7")
    full_box(buf, keys_box, "QTFF metadata key table")
    n = buf.u32(keys_box.payload + 4, keys_box.end, f"{keys_box.path} entry_count", "QTFF metadata key table")
    pos = keys_box.payload + 8
    names = []
    for i in range(n):
        size = buf.u32(pos, keys_box.end, f"{keys_box.path} key {i + 1} size", "QTFF metadata key table")
        if size < 8 or pos + size > keys_box.end:
            fail(f"{keys_box.path} key {i + 1} at offset {pos}: size {size} is outside the box", "QTFF metadata key table")
        namespace = buf.take(pos + 4, 4, keys_box.end, keys_box.path)
        raw = buf.take(pos + 8, size - 8, keys_box.end, keys_box.path)
        if namespace != b"mdta":
            fail(f"{keys_box.path} key {i + 1} at offset {pos}: namespace '{fourcc(namespace)}', expected 'mdta'",
                 SPEC + " §7")
        try:
            names.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            fail(f"{keys_box.path} key {i + 1} at offset {pos}: name is not UTF-8", SPEC + " §7")
        pos += size
    if pos != keys_box.end:
        fail(f"{keys_box.path}: {keys_box.end - pos} bytes after the {n} keys", "QTFF metadata key table")
    ilst = only(boxes, b"ilst", meta.path, SPEC + " §7")
    values = {}
    for item in children(buf, ilst.payload, ilst.end, ilst.path, depth + 1):
        index = struct.unpack(">I", item.type)[0]
        if index < 1 or index > len(names):
            fail(f"{item.path} at offset {item.start}: key index {index} is outside 1…{len(names)}", SPEC + " §7")
        name = names[index - 1]
        datas = [b for b in children(buf, item.payload, item.end, item.path, depth + 2) if b.type == b"data"]
        if len(datas) != 1:
            fail(f"{item.path} at offset {item.start} ('{name}'): {len(datas)} 'data' boxes, expected one", SPEC + " §7")
        d = datas[0]
        indicator = buf.u32(d.payload, d.end, f"{d.path} type indicator", "QTFF value atom")
        buf.u32(d.payload + 4, d.end, f"{d.path} locale", "QTFF value atom")
        value = buf.take(d.payload + 8, d.end - d.payload - 8, d.end, d.path)
        if indicator >> 24 != 0:
            fail(f"{d.path} at offset {d.start} ('{name}'): type set {indicator >> 24}, expected 0", "QTFF value atom")
        wkt = indicator & 0xFFFFFF
        expected = PARAMETER_DEFAULTS.get(name)
        if name in values:
            fail(f"{item.path} at offset {item.start}: '{name}' appears twice", SPEC + " §7")
        if wkt == 23:
            if len(value) != 4:
                fail(f"{d.path} at offset {d.start} ('{name}'): f32 value of {len(value)} bytes", SPEC + " §7")
            v = struct.unpack(">f", value)[0]
            if isinstance(expected, str):
                fail(f"{d.path} ('{name}'): stored as f32, the spec says UTF-8", SPEC + " §7")
            values[name] = jfloat(v)
        elif wkt == 1:
            try:
                s = value.decode("utf-8")
            except UnicodeDecodeError:
                fail(f"{d.path} at offset {d.start} ('{name}'): not UTF-8", SPEC + " §7")
            if isinstance(expected, float):
                fail(f"{d.path} ('{name}'): stored as UTF-8, the spec says f32", SPEC + " §7")
            values[name] = s
        else:
            if expected is not None:
                fail(f"{d.path} ('{name}'): type indicator {wkt}, the spec says "
                     f"{'1 (UTF-8)' if isinstance(expected, str) else '23 (f32)'}", SPEC + " §7")
            values[name] = {"type": wkt, "hex": value.hex()}  # unknown key: kept
    return values


# ---------------------------------------------------------------------------------------------


def track_fields(track):
    """The header fields spec/format.md §4 says writers fill in (readers do not depend on them)."""
    entry = track.entries[0]
    out = {"tkhd_flags": track.flags, "media_header": track.media_header, "handler_name": track.handler_name}
    if entry.depth is not None:
        out["compressor"] = entry.compressor
        out["depth"] = entry.depth
    return out


EMPTY_SLOT_CRC = 0x271743C4


def read_edl_slots(buf, moov_boxes, depth):
    """§8: the current EDL of moov/udta/cpED, or None without slots. Returns {"sequence", "slot",
    "text", "slots": [{"slot", "valid", "sequence"}], "warnings"}, or {"unreadable": why} when a
    cpES has a version other than 0 (its layout is unknown, so neither slot is used)."""
    for udta in (b for b in moov_boxes if b.type == b"udta"):
        found = [b for b in children(buf, udta.payload, udta.end, udta.path, depth) if b.type == b"cpED"]
        if not found:
            continue
        cped = found[0]
        slots = children(buf, cped.payload, cped.end, cped.path, depth + 1)
        if len(slots) != 2 or any(b.type != b"cpES" for b in slots):
            fail(f"{cped.path} at offset {cped.start}: {len(slots)} children; exactly two 'cpES' slots are required",
                 SPEC + " §8")
        records = []
        for name, box in zip("AB", slots):
            version, _ = full_box(buf, box, SPEC + " §8")
            if version != 0:
                # A later layout: not an error in the movie, but neither slot may be used (§8).
                return {"unreadable": f"slot {name} has version {version}"}
            rec = buf.take(box.payload + 4, box.end - box.payload - 4, box.end, box.path)
            valid = None
            if len(rec) >= 20 and rec[:4] == b"EDLS":
                sequence, length, crc = struct.unpack(">QII", rec[4:20])
                if 20 + length <= len(rec) and zlib.crc32(rec[:16] + rec[20:20 + length]) & 0xFFFFFFFF == crc:
                    valid = (sequence, rec[20:20 + length])
            records.append((name, valid))
        valid = [(n, r) for n, r in records if r is not None]
        warnings = [f"slot {n} holds no valid record" for n, r in records if r is None]
        if not valid:
            return {"sequence": 0, "slot": None, "text": None, "warnings": warnings,
                    "slots": [{"slot": n, "valid": False, "sequence": None} for n, _ in records]}
        # Highest sequence; on a tie slot B (the later one) is current.
        best = max(valid, key=lambda item: (item[1][0], item[0]))
        sequence, text = best[1]
        return {"sequence": sequence, "slot": best[0] if sequence else None,
                "text": text.decode("utf-8", "replace") if sequence else None, "warnings": warnings,
                "slots": [{"slot": n, "valid": r is not None, "sequence": r[0] if r else None} for n, r in records]}
    return None


def samples_json(track):
    """[offset, size, decode time, duration] of every sample, in decode order."""
    return [[s[0], s[1], s[2], s[3]] for s in track.samples]


def read(path):
    file = File(path)
    top = top_level(file)
    brands = read_ftyp(file, top)
    moovs = [b for b in top if b.type == b"moov"]
    if len(moovs) != 1:
        fail(f"{len(moovs)} top-level 'moov' boxes, expected one", ISO + " §8.2.1")
    moov = moovs[0]
    if moov.end - moov.start > MAX_MOOV:
        fail(f"'moov' at offset {moov.start} is {moov.end - moov.start} bytes, more than this reader reads", ISO + " §8.2.1")
    buf = Buffer(file.read(moov.start, moov.end - moov.start, "moov", ISO + " §8.2.1"), moov.start)
    moov_boxes = children(buf, moov.payload, moov.end, "moov", 1)

    tracks = []
    for b in moov_boxes:
        if b.type == b"trak":
            t = parse_trak(buf, b, 2)
            tracks.append(t)
    ids = [t.id for t in tracks]
    if len(set(ids)) != len(ids):
        fail(f"duplicate track ids {ids}", ISO + " §8.3.2")

    params = read_parameters(buf, moov_boxes, 2)
    edl = read_edl_slots(buf, moov_boxes, 2)
    version = params.get("org.cinepack.version")
    if version is None:
        fail("moov/meta has no 'org.cinepack.version' key; a cinepack movie is identified by the 'cnpk' brand and "
             "this key", SPEC + " §2, §7")
    try:
        major = int(str(version).split(".")[0])
    except ValueError:
        fail(f"'org.cinepack.version' is '{version}', not a version number", SPEC + " §7")
    if major > 1:
        fail(f"'org.cinepack.version' is '{version}'; this reader knows version 1 and must refuse a higher one",
             SPEC + " §7")
    resolved = dict(PARAMETER_DEFAULTS)
    resolved.update(params)

    video, disparity, metadata, audio = find_roles(tracks)
    order = frame_order(video)
    ventry = video.entries[0]

    # Built-in video codecs (§4): cheap structural checks of every sample.
    for n, k in enumerate(order):
        off, size = video.samples[k][0], video.samples[k][1]
        if ventry.type == b"png ":
            if file.read(off, min(8, size), f"video sample {k}", ISO + " §8.7") != PNG_SIGNATURE:
                fail(f"video {video.where()} sample {k} at offset {off}: not a PNG file", SPEC + " §4")
        elif ventry.type == b"raw ":
            if size != ventry.width * ventry.height * 3:
                fail(f"video {video.where()} sample {k}: {size} bytes, raw RGB {ventry.width}×{ventry.height} needs "
                     f"{ventry.width * ventry.height * 3}", SPEC + " §4")
            if ventry.depth != 24:
                fail(f"video {video.where()}: 'raw ' sample entry depth {ventry.depth}, expected 24", SPEC + " §4")
        else:
            file.read(off, 0, f"video sample {k}", ISO + " §8.7")
            if off + size > file.size:
                fail(f"video {video.where()} sample {k}: bytes {off}..{off + size} outside the file", ISO + " §8.7")

    out = {
        "brands": brands,
        "tracks": {
            "video": {"id": video.id, "codec": ventry.box.name, "width": ventry.width, "height": ventry.height,
                      "timescale": video.timescale, "frames": len(video.samples), "samples": samples_json(video),
                      "fields": track_fields(video)},
            "disparity": None,
            "metadata": None,
            "audio": None if audio is None else {"id": audio.id, "codec": audio.entries[0].box.name,
                                                 "samples": len(audio.samples)},
        },
        "parameters": resolved,
        "parameters_stored": params,
        "edl": edl,
    }

    if disparity is not None:
        check_same_timing(video, disparity, "disparity", SPEC + " §5")
        lo, hi, enc = read_cpdq(buf, disparity)
        dentry = disparity.entries[0]
        stats = []
        for n, k in enumerate(order):
            where = f"disparity {disparity.where()} sample {k} (frame {n}) at offset {disparity.samples[k][0]}"
            w, h, codes = decode_grey16_png(read_sample(file, disparity, k, "disparity"), where)
            if (w, h) != (dentry.width, dentry.height):
                fail(f"{where}: PNG is {w}×{h}, the sample entry says {dentry.width}×{dentry.height}",
                     ISO + " §12.1.3")
            s = disparity_stats(codes, lo, hi)
            stats.append(s)
        out["tracks"]["disparity"] = {
            "id": disparity.id, "width": dentry.width, "height": dentry.height,
            "min": lo, "max": hi, "encoding": enc, "frames": len(disparity.samples),
            "timescale": disparity.timescale, "samples": samples_json(disparity),
            "frame0_stats": stats[0] if stats else None,
            "frame_stats": stats,
            "fields": track_fields(disparity),
        }

    if metadata is not None:
        check_same_timing(video, metadata, "focus-metadata", SPEC + " §6.2")
        check_metadata_keys(metadata)
        frames = []
        for n, k in enumerate(order):
            where = f"focus-metadata {metadata.where()} sample {k} (frame {n}) at offset {metadata.samples[k][0]}"
            frames.append(decode_sample(read_sample(file, metadata, k, "focus-metadata"), metadata.keys, where))
        out["tracks"]["metadata"] = {
            "id": metadata.id,
            "timescale": metadata.timescale,
            "samples": samples_json(metadata),
            "keys": {str(local_id): name for local_id, (name, _) in sorted(metadata.keys.items())},
            "frames": frames,
            "fields": track_fields(metadata),
        }
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: cinepack_reader.py FILE", file=sys.stderr)
        return 1
    try:
        result = read(argv[1])
    except SpecError as e:
        print(f"cinepack_reader: {argv[1]}: spec violation: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"cinepack_reader: {argv[1]}: {e}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout, indent=1, allow_nan=False, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))


# Choices this reader makes where spec/format.md leaves room:
# - §3: a mebx track is the focus-metadata track when its keys declare org.cinepack.detections and
#   org.cinepack.focus; another mebx track is ignored. §6.1: a dtyp with another well-known type is
#   refused; a missing dtyp is accepted (the name decides).
# - §6.1: the mebx 'keys' box is a plain container of key boxes (QTFF), unlike the moov/meta 'keys'
#   of §7, which is a full box with an entry count; keyd and dtyp are plain boxes.
# - §6.1/§6.2: items whose local id is not declared, or names an unknown key, are skipped and
#   counted in "unknown_items"; a second item of the same known key in one sample is an error.
# - §6.2-§6.4: payload version ≠ 1 is refused; focus/decision payloads longer than 20/16 bytes are
#   accepted (the rest ignored); f-number and scene are exactly 4 bytes (§6.2 says so). One bad
#   sample refuses the file (exit 2), as §6.2 asks.
# - §6.3: target kind > 4 is refused (its value fields cannot be interpreted).
# - §6.5: an absent scene item is reported as null (status 0).
# - §2/§7: without the cnpk brand or the org.cinepack.version key the file is not a cinepack movie:
#   this reader exits 2 rather than read it as a plain movie.
# - §5: disparities are decoded in binary32, step by step (the statistics' mean excepted).
# - §8: EDL slots: highest valid sequence, slot B on a tie; with a cpES version ≠ 0 neither slot is
#   used ("unreadable"), the rest of the movie is read.
# - §4/§5/§6.2 with a reordered video codec (ctts): frame n is video sample order[n] in presentation
#   order, and its map / metadata are the disparity / metadata samples with that sample's index.
# - §5: the PNG's size must equal the sample entry's width and height.
