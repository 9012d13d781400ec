#!/usr/bin/env bash
# One shard of a cinepack render, as a Slurm job-array task (docs/farm.md):
#
#   sbatch --array=1-N slurm-render.sh SOURCE OUTDIR [render options…]   # this script
#
# Task K of the array renders shard K/N of SOURCE's program to OUTDIR/part-K.mov (K zero-padded so
# the parts sort in order). The array must be 1-N, every index once: N comes from Slurm. The
# part is written under a temporary name and renamed when complete, so a retried or requeued
# task simply writes the same part again. CINEPACK names the binary (default: cinepack on PATH).
#SBATCH --job-name=cinepack-render
#SBATCH --cpus-per-task=1
#SBATCH --requeue
set -euo pipefail
SOURCE="$1"
OUTDIR="$2"
shift 2
K="${SLURM_ARRAY_TASK_ID:?run this with sbatch --array=1-N}"
N="${SLURM_ARRAY_TASK_COUNT:?run this with sbatch --array=1-N}"
mkdir -p "$OUTDIR"
exec "${CINEPACK:-cinepack}" render "$SOURCE" --shard "$K/$N" -o "$OUTDIR/part-$(printf %05d "$K").mov" --force "$@"
