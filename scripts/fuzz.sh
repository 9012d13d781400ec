#!/usr/bin/env bash
# Runs the libFuzzer targets of FuzzTesting/ for a fixed number of inputs each (CI calls this from
# .ci/run), after replaying every saved crasher in corpus/fuzz-crashers/. Seeds come from corpus/.
# A crash fails the script and leaves its input in corpus/fuzz-crashers/ (add a line to
# corpus/README.md and commit it: MutationFuzzTests and this script replay it from then on).
#   FUZZ_RUNS   inputs per target (default 20000; about a minute for the three on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${FUZZ_RUNS:-20000}

cd FuzzTesting
swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
bin=$(swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --show-bin-path)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$root/corpus/fuzz-crashers"

# target, seed folders
run() {
    local target=$1
    shift
    local seeds="$work/$target"
    mkdir -p "$seeds"
    for folder in "$@"; do
        [ -d "$folder" ] && find "$folder" -maxdepth 1 -type f ! -name '*.md' ! -name '*.tsv' -exec cp {} "$seeds/" \;
    done
    # Saved crashers first: each must now pass.
    local crashers=("$root"/corpus/fuzz-crashers/"$target"-*)
    if [ -e "${crashers[0]}" ]; then
        "$bin/$target" -rss_limit_mb=2048 -timeout=10 "${crashers[@]}"
    fi
    echo "== $target: $runs runs"
    "$bin/$target" "$seeds" -runs="$runs" -rss_limit_mb=2048 -timeout=10 -max_len=1048576 \
        -artifact_prefix="$root/corpus/fuzz-crashers/$target-" -print_final_stats=1 2>&1 | tail -n 12
    return "${PIPESTATUS[0]}"
}

run FuzzBoxReader "$root/corpus/valid" "$root/corpus/invalid"
run FuzzMetadataDecoder
run FuzzEDLReader "$root/corpus/edl/valid"
