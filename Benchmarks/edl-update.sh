#!/usr/bin/env bash
# EDL update benchmark (spec/format.md §8: an edit costs O(metadata), never a rewrite of the media).
#
#   Benchmarks/edl-update.sh [GIGABYTES] [RUNS]        (defaults: 2.5 GB, 20 updates)
#
# 1. Writes a sparse movie of GIGABYTES: ftyp (qt, cnpk), a 64-bit mdat of unwritten (sparse) raw
#    video, then moov with co64 offsets and moov/udta/cpED holding two empty 64 KiB slots
#    (spec/format.md §8). Disk cost: the moov only.
# 2. Runs the EDLUpdateBenchmark test in release mode against it: RUNS in-place updates, each
#    timed (open + update, fsync included) and counted through /proc/self/io (bytes handed to
#    read/write system calls and bytes sent to storage).
# 3. Counts the bytes that differ from a sparse copy taken before (cmp), independently of the
#    library's own report.
# Set CINEPACK_EDL_BENCH_REWRITE=1 to also time the full-rewrite fallback (writes GIGABYTES).
set -euo pipefail
cd "$(dirname "$0")/.."
GB=${1:-2.5}
RUNS=${2:-20}
SCRATCH=${SCRATCH:-.build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cinepack-edl-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MOVIE="$WORK/large.mov"

python3 - "$MOVIE" "$GB" <<'PY'
import os, struct, sys, zlib
sys.path.insert(0, os.path.join("corpus", "tools"))
from make_corpus import box, co64, ftyp, full, hdlr, mdhd, mvhd, stsc, stsd, stts, tkhd, visual_entry

out, gigabytes = sys.argv[1], float(sys.argv[2])
width, height = 576, 576
sample = width * height * 3
count = int(gigabytes * (1 << 30)) // sample
head = ftyp(brands=("qt  ", "cnpk"))
mdat_header = struct.pack(">I4sQ", 1, b"mdat", 16 + count * sample)
first = len(head) + len(mdat_header)

def slot(capacity=64 * 1024):
    header = b"EDLS" + struct.pack(">QI", 0, 0)
    record = header + struct.pack(">I", zlib.crc32(header)) 
    return full("cpES", 0, 0, record + b"\0" * (capacity - len(record)))

sizes = full("stsz", 0, 0, struct.pack(">II", 0, count) + struct.pack(">I", sample) * count)
stbl = box("stbl", stsd(visual_entry("raw ", width, height)) + stts([(count, 1)]) + stsc([(1, 1, 1)]) + sizes
           + co64([first + i * sample for i in range(count)]))
minf = box("minf", full("vmhd", 0, 1, b"\0" * 8) + box("dinf", full("dref", 0, 0, struct.pack(">I", 1) + full("url ", 0, 1))) + stbl)
trak = box("trak", tkhd(duration=count * 20, width=width, height=height) + box("mdia", mdhd(30, count) + hdlr() + minf))
moov = box("moov", mvhd(600, count * 20) + trak + box("udta", box("cpED", slot() + slot())))
with open(out, "wb") as f:
    f.write(head + mdat_header)
    f.seek(first + count * sample)
    f.write(moov)
print(f"movie: {out}: {count} raw frames, {os.path.getsize(out)} bytes ({os.path.getsize(out) / 2**30:.2f} GiB), "
      f"moov {len(moov)} bytes, {os.stat(out).st_blocks * 512} bytes on disk")
PY

cp --sparse=always "$MOVIE" "$WORK/before.mov"
if ! CINEPACK_EDL_BENCH_MOVIE="$MOVIE" CINEPACK_EDL_BENCH_RUNS="$RUNS" \
    swift test -c release --scratch-path "$SCRATCH" --filter EDLUpdateBenchmark >"$WORK/test.log" 2>&1 \
    || ! grep -q '^edl-bench' "$WORK/test.log"; then
    tail -40 "$WORK/test.log" >&2
    echo "benchmark failed" >&2
    exit 1
fi
grep '^edl-bench' "$WORK/test.log"

if [ "${CINEPACK_EDL_BENCH_REWRITE:-0}" != "1" ]; then
    echo "independent check: $(cmp -l "$WORK/before.mov" "$MOVIE" | wc -l) bytes differ from the file before the updates;" \
         "size $(stat -c %s "$WORK/before.mov") -> $(stat -c %s "$MOVIE")"
fi
