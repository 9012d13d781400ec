#!/usr/bin/env bash
# Format check with the toolchain's swift-format and the repository's .swift-format.
set -euo pipefail
cd "$(dirname "$0")/.."
swift format lint --strict --recursive --configuration .swift-format Sources Tests FuzzTesting/Sources Examples/EditorClient/Sources Examples/EditorClient/Package.swift Package.swift
