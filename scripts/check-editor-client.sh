#!/usr/bin/env bash
# Builds the example editor client (Examples/EditorClient: a separate package using only the public
# library API), runs it on the demo clip and checks that it agrees with the command line: the focus
# it saved is what `cinepack focus --json` reads back, and its still is byte-identical to
# `cinepack render --at`.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --product cinepack
swift build --package-path Examples/EditorClient
cinepack="$(swift build --show-bin-path)/cinepack"
client="$(swift build --package-path Examples/EditorClient --show-bin-path)/editor-client"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$cinepack" demo -o "$work/clip.mov" --seconds 4 --size 160x90 >/dev/null

# Focus at 2 s is on person A (detection 4) before; the client puts a strong decision on the dog (7).
"$client" "$work/clip.mov" --at 2s --object 7 --still "$work/client.png" | tee "$work/client.txt"
grep -q '^focus at 2s after: detection 7, ' "$work/client.txt"

"$cinepack" focus "$work/clip.mov" --at 2s --json >"$work/focus.json"
python3 - "$work/focus.json" "$work/client.txt" <<'PY'
import json, re, sys
frame = json.load(open(sys.argv[1]))["frames"][0]
text = open(sys.argv[2]).read()
after = float(re.search(r"^focus at 2s after: detection 7, ([0-9.eE+-]+) D$", text, re.M).group(1))
assert frame["primary"] == {"kind": "detection", "id": 7}, frame
assert frame["strength"] == "strong", frame
assert abs(frame["focus_disparity"] - after) < 1e-6, (frame["focus_disparity"], after)
PY

"$cinepack" render "$work/clip.mov" --at 2s -o "$work/cli.png" >/dev/null
cmp "$work/client.png" "$work/cli.png"
echo "editor-client agrees with cinepack focus and cinepack render"
