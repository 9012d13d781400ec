#!/usr/bin/env bash
# Submits a whole farm render to Slurm: an array of N shard tasks, then the concat job that
# depends on all of them (afterok: it runs only if every shard succeeded).
#
#   ./slurm-submit.sh SOURCE OUTDIR OUTPUT N [render options…]   # this script
#
# Prints the two job ids (render, concat). OUTDIR must be on storage every node sees.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SOURCE="$1"
OUTDIR="$2"
OUTPUT="$3"
N="$4"
shift 4
mkdir -p "$OUTDIR"
render=$(sbatch --parsable --array="1-$N" --output="$OUTDIR/render-%a.log" "$HERE/slurm-render.sh" "$SOURCE" "$OUTDIR" "$@")
render="${render%%;*}"
concat=$(sbatch --parsable --dependency="afterok:$render" --kill-on-invalid-dep=yes --output="$OUTDIR/concat.log" \
    "$HERE/slurm-concat.sh" "$SOURCE" "$OUTDIR" "$OUTPUT")
echo "$render ${concat%%;*}"
