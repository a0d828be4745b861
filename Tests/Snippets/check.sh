#!/usr/bin/env bash
# Every Swift snippet in README.md, Docs/*.md and the DocC catalog's articles
# (Sources/Floe/Floe.docc/*.md), compiled and run: each document's snippets, in order, become
# one program (after the document's prelude in Tests/Snippets/<name>.prelude, which declares
# what its prose assumes, such as a `Dog` model and a `realm`), built against this checkout in
# a scratch package and run twice (a snippet must survive a second run). A catalog article's
# program and prelude are named Catalog_<article>.
# A snippet whose first line is `// Package.swift` is a fragment of a package manifest: it is
# put inside `Package(name:...)` in a manifest of its own and must load (`swift package
# dump-package`), so what a document tells you to paste into Package.swift compiles too.
# Usage: Tests/Snippets/check.sh   (from anywhere; needs only the Swift toolchain and python3)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${SNIPPETS_WORK:-$root/.build-snippets}"
rm -rf "$work/Sources" "$work/Manifests"
mkdir -p "$work/Sources" "$work/Manifests"
# Writes Sources/<name>/main.swift for each document with Swift snippets (prelude first) and
# Manifests/<name>-<n>/Package.swift for each manifest fragment; prints the program names.
mapfile -t targets < <(python3 - "$root" "$work" <<'PY'
import glob, os, re, sys

root, work = sys.argv[1], sys.argv[2]
documents = [(os.path.join(root, "README.md"), "")]
documents += [(path, "") for path in sorted(glob.glob(os.path.join(root, "Docs", "*.md")))]
documents += [(path, "Catalog_") for path in sorted(glob.glob(os.path.join(root, "Sources", "Floe", "Floe.docc", "*.md")))]
for path, prefix in documents:
    name = prefix + re.sub(r"[^A-Za-z0-9]", "_", os.path.basename(path)[:-3])
    snippets, current = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if current is None and line.strip() == "```swift":
            current = []
        elif current is not None and line.strip() == "```":
            snippets.append(current)
            current = None
        elif current is not None:
            current.append(line)
    code = []
    for number, snippet in enumerate(snippets, 1):
        if snippet and snippet[0].strip() == "// Package.swift":
            directory = os.path.join(work, "Manifests", "%s-%d" % (name, number))
            os.makedirs(directory)
            with open(os.path.join(directory, "Package.swift"), "w", encoding="utf-8") as manifest:
                manifest.write("// swift-tools-version:6.0\nimport PackageDescription\n\n"
                               "let package = Package(\n    name: \"App\",\n")
                manifest.write("\n".join(snippet[1:]) + "\n)\n")
        else:
            code += snippet + [""]
    if not code:
        continue
    os.makedirs(os.path.join(work, "Sources", name))
    prelude = os.path.join(root, "Tests", "Snippets", name + ".prelude")
    with open(os.path.join(work, "Sources", name, "main.swift"), "w", encoding="utf-8") as program:
        if os.path.exists(prelude):
            program.write(open(prelude, encoding="utf-8").read())
        program.write("\n".join(code) + "\n")
    print(name)
PY
)
status=0
for manifest in "$work"/Manifests/*/; do
    [ -f "$manifest/Package.swift" ] || continue
    if ! (cd "$manifest" && swift package dump-package >"$manifest/dump.json" 2>"$manifest/errors.txt"); then
        echo "snippets: the Package.swift fragment in $(basename "$manifest") does not load:"
        cat "$manifest/errors.txt"
        status=1
    else
        echo "ok: the Package.swift fragment in $(basename "$manifest") loads"
    fi
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
    grep -E "error|warning: " "$work/build.log" | head -40
    echo "snippets: the build failed or warned (sources in $work/Sources)"
    exit 1
fi
bin="$(swift build --show-bin-path)"
for target in "${targets[@]}"; do
    run="$(mktemp -d)"
    ran=0
    for attempt in 1 2; do
        if (cd "$run" && timeout 60 "$bin/$target" >"$run/output.txt" 2>&1); then
            ran=$((ran + 1))
        else
            echo "snippets: $target failed on run $attempt (a snippet must end, and survive a second run):"
            cat "$run/output.txt"
            status=1
        fi
    done
    [ "$ran" -eq 2 ] && echo "ok: the snippets of $target compile and run (twice)"
    rm -rf "$run"
done
exit $status
