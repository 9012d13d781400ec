#!/usr/bin/env bash
# Installs what cinepack needs on Debian/Ubuntu: the C libraries it links (libxml2, zlib,
# libdeflate, OpenEXR), the peer tools its interop tests compare against (ffmpeg, exiftool,
# mediainfo, xmllint, Python opentimelineio, numpy and OpenEXR), and what the farm recipe tests
# run (Slurm and munge for a one-node cluster, PyYAML, openjd-model). Safe to run again.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    pkg-config libxml2-dev zlib1g-dev libdeflate-dev libopenexr-dev \
    ffmpeg libimage-exiftool-perl mediainfo libxml2-utils python3-pip \
    slurm-wlm munge python3-yaml >/dev/null
python3 -m pip install --quiet --disable-pip-version-check opentimelineio numpy OpenEXR pyyaml openjd-model 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages opentimelineio numpy OpenEXR pyyaml openjd-model
