#!/usr/bin/env bash
# Builds the libFuzzer targets with AddressSanitizer and runs each for a bounded time over its
# seed corpus (Fuzz/Corpus/<target>). Usage: Scripts/fuzz.sh [seconds per target, default 60]
#   Scripts/fuzz.sh ci    a fixed seed and a fixed number of inputs per target (about a minute
#                         each here), so that a run that passed once passes again
# A crash leaves its input as Fuzz/crash-*: add it to Fuzz/Regressions/<target>/ (FuzzRegressionTests
# replays those in swift test), then fix it.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-60}"
if [ "$mode" = "ci" ]; then
    limits_file="-seed=1 -runs=30000"
    limits_predicate="-seed=1 -runs=100000"
    limits_sync="-seed=1 -runs=30000"
else
    limits_file="-max_total_time=$mode"
    limits_predicate="-max_total_time=$mode"
    limits_sync="-max_total_time=$mode"
fi
export FLOE_FUZZ=1
for product in floe-fuzz-file floe-fuzz-predicate floe-fuzz-sync; do
    log="$(mktemp)"
    if ! swift build -c debug --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address --product "$product" >"$log" 2>&1; then
        grep -v "ld.gold: warning: Cannot export local symbol" "$log" | tail -20
        echo "building $product failed"
        exit 1
    fi
done
bin="$(swift build -c debug --scratch-path .build-fuzz --show-bin-path)"
status=0
for target in file predicate sync; do
    work="$(mktemp -d)"
    cp Fuzz/Corpus/"$target"/* "$work"/
    limits="limits_$target"
    echo "== fuzzing $target (${!limits})"
    log="$(mktemp)"
    # The Swift runtime's backtracer would hold the output open after a crash: libFuzzer's
    # own report (and the saved input) is what a crash needs.
    if ! SWIFT_BACKTRACE=enable=no "$bin/floe-fuzz-$target" "$work" ${!limits} -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -artifact_prefix=Fuzz/crash-"$target"- -print_final_stats=1 >"$log" 2>&1; then
        status=1
        grep -E "ERROR|Fatal error|SUMMARY|Test unit written" "$log" | head -20
    fi
    tail -8 "$log"
    rm -rf "$work"
done
exit $status
