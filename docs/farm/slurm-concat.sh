#!/usr/bin/env bash
# Joins the parts of a cinepack farm render, as a Slurm job that runs once every shard succeeded:
#
#   sbatch --dependency=afterok:RENDER_JOB_ID slurm-concat.sh SOURCE OUTDIR OUTPUT   # this script
#
# Checks the parts belong together (none missing, duplicated or foreign), joins them without
# re-encoding and adds SOURCE's program audio once. OUTPUT appears only when complete; a retried
# job replaces it with the same movie (--force).
#SBATCH --job-name=cinepack-concat
#SBATCH --cpus-per-task=1
set -euo pipefail
SOURCE="$1"
OUTDIR="$2"
OUTPUT="$3"
exec "${CINEPACK:-cinepack}" concat -o "$OUTPUT" "$OUTDIR"/part-*.mov --audio-from "$SOURCE" --force
