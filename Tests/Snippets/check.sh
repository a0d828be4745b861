#!/usr/bin/env bash
# Every Swift snippet in README.md and Docs/*.md, compiled and run: each document's snippets,
# in order, become one program (after the document's prelude in Tests/Snippets/<name>.prelude,
# which declares what its prose assumes, such as a `Dog` model and a `realm`), built against
# this checkout in a scratch package and run twice (a snippet must survive a second run).
# Usage: Tests/Snippets/check.sh   (from anywhere; needs only the Swift toolchain)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${SNIPPETS_WORK:-$root/.build-snippets}"
mkdir -p "$work/Sources"
targets=()
for doc in "$root"/README.md "$root"/Docs/*.md; do
    name="$(basename "$doc" .md | tr -c 'A-Za-z0-9\n' '_')"
    code="$(awk '/^```swift$/{inside=1; next} /^```$/{if(inside){print ""}; inside=0; next} inside{print}' "$doc")"
    [ -n "$code" ] || continue
    mkdir -p "$work/Sources/$name"
    {
        if [ -f "$root/Tests/Snippets/$name.prelude" ]; then cat "$root/Tests/Snippets/$name.prelude"; fi
        printf '%s\n' "$code"
    } > "$work/Sources/$name/main.swift"
    targets+=("$name")
done
{
    echo '// swift-tools-version:6.0'
    echo 'import PackageDescription'
    echo 'let package = Package(name: "Snippets", platforms: [.macOS(.v15)],'
    echo "    dependencies: [.package(name: \"Floe\", path: \"$root\")],"
    echo '    targets: ['
    for target in "${targets[@]}"; do
        echo "        .executableTarget(name: \"$target\", dependencies: [.product(name: \"Floe\", package: \"Floe\")]),"
    done
    echo '    ], swiftLanguageModes: [.v6])'
} > "$work/Package.swift"
cd "$work"
if ! swift build >"$work/build.log" 2>&1 || grep -qE "error|warning: " "$work/build.log"; then
    grep -E "error|warning: " "$work/build.log" | head -20
    echo "snippets: the build failed or warned (sources in $work/Sources)"
    exit 1
fi
bin="$(swift build --show-bin-path)"
status=0
for target in "${targets[@]}"; do
    run="$(mktemp -d)"
    for attempt in 1 2; do
        if ! (cd "$run" && "$bin/$target" >"$run/output.txt" 2>&1); then
            echo "snippets: $target failed on run $attempt:"
            cat "$run/output.txt"
            status=1
        fi
    done
    echo "ok: the snippets of $target compile and run (twice)"
    rm -rf "$run"
done
exit $status
