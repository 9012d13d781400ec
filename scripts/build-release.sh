#!/usr/bin/env bash
# Release build of the command line tool, for the CPU it is built on.
#
# The renderer works on eight float lanes at a time. Swift's default x86-64 target has only the
# 4-lane SSE registers, so every eight-lane operation is two instructions, and the hot loops
# spill. On an x86-64 CPU with AVX2 and FMA (Intel since 2013, AMD since 2015) this script builds
# for those instructions (`-target-cpu haswell`): the same results bit for bit (Swift never fuses a
# multiply and an add on its own, and sqrt and division are exact either way), in less time.
# The binary then needs such a CPU: build it on the machine that runs it, or set
# CINEPACK_TARGET_CPU=x86-64 for a binary that runs on any x86-64 CPU (any value `swiftc
# -target-cpu` takes works the same way). Other architectures build with the compiler's default.
# Extra arguments go to `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."

cpu=${CINEPACK_TARGET_CPU:-}
if [[ -z "$cpu" && "$(uname -m)" == "x86_64" && -r /proc/cpuinfo ]]; then
    flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    cpu=haswell
    # Everything `haswell` lets the compiler use.
    for f in avx avx2 fma bmi1 bmi2 movbe f16c abm popcnt sse4_2; do
        [[ "$flags" == *" $f "* ]] || { cpu=x86-64; break; }
    done
fi

if [[ -n "$cpu" ]]; then
    echo "building for -target-cpu $cpu" >&2
    exec swift build -c release -Xswiftc -target-cpu -Xswiftc "$cpu" "$@"
fi
exec swift build -c release "$@"
