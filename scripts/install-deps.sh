#!/usr/bin/env bash
# Installs what cinepack needs on Debian/Ubuntu: the C libraries it links (libxml2, zlib,
# OpenEXR) and the peer tools its interop tests compare against (ffmpeg, exiftool, mediainfo,
# xmllint, Python opentimelineio, numpy and OpenEXR). Safe to run again.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    pkg-config libxml2-dev zlib1g-dev libopenexr-dev \
    ffmpeg libimage-exiftool-perl mediainfo libxml2-utils python3-pip >/dev/null
python3 -m pip install --quiet --disable-pip-version-check opentimelineio numpy OpenEXR 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages opentimelineio numpy OpenEXR
