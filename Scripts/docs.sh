#!/usr/bin/env bash
# Builds the DocC catalog (Sources/Floe/Floe.docc) with the toolchain's docc, no plugin:
# emits Floe's symbol graph, converts the catalog against it, and fails on any warning
# (a broken symbol link, an article that does not resolve, a malformed directive) and on any
# public symbol without a doc comment (Scripts/undocumented.py lists them from the graph).
# Usage: Scripts/docs.sh [output-dir]   (default: .build-docs/Floe.doccarchive)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="$root/.build-docs"
graphs="$scratch/symbol-graphs"
output="${1:-$scratch/Floe.doccarchive}"
docc="${DOCC:-$(dirname "$(readlink -f "$(command -v swift)")")/docc}"
[ -x "$docc" ] || docc="$(command -v docc)"

# Kept between runs: an up-to-date build emits nothing, and its graph is still the right one.
mkdir -p "$graphs"
# A scratch path of its own: the symbol-graph flags would otherwise rebuild the main build.
swift build --scratch-path "$scratch/build" --target Floe \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" >"$scratch/build.log" 2>&1 \
    || { tail -40 "$scratch/build.log" || true; echo "docs: the symbol graph build failed"; exit 1; }
# Only Floe's own graph: the toolchain's modules it imports bring graphs of their own.
find "$graphs" -name '*.symbols.json' ! -name 'Floe.symbols.json' ! -name 'Floe@*.symbols.json' -delete

log="$scratch/docc.log"
set +e
"$docc" convert Sources/Floe/Floe.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name Floe --fallback-bundle-identifier org.floe.Floe \
    --output-dir "$output" --warnings-as-errors >"$log" 2>&1
status=$?
set -e
warnings=$(grep -cE '(warning|error):' "$log" || true)
if [ "$status" -ne 0 ] || [ "$warnings" -ne 0 ]; then
    grep -E -A3 '(warning|error):' "$log" | head -80 || true
    echo "docs: docc reported $warnings warnings or errors (exit $status)"
    exit 1
fi
python3 Scripts/undocumented.py "$graphs"
echo "docs: built $output"
