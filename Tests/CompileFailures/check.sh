#!/usr/bin/env bash
# Compile-time guarantees: every snippet in must-fail/ must be rejected with the error its
# `// expect-error:` line names (Swift 6 strict concurrency keeps live objects on their
# realm's actor; frozen objects are read-only), and every snippet in must-compile/ must build,
# so that the rejections are not an artefact of the setup.
# Usage: check.sh <directory holding Floe.swiftmodule>
set -u
modules="$(cd "$1" && pwd)"
cd "$(dirname "$0")"
status=0
compile() { swiftc -swift-version 6 -emit-sil -o /dev/null -I "$modules" "$1" 2>&1; }
for snippet in must-fail/*.swift; do
    expected=$(sed -n 's|^// expect-error: ||p' "$snippet")
    if output=$(compile "$snippet"); then
        echo "FAIL: $snippet compiled, but it must be rejected"
        status=1
    elif ! grep -qF -- "$expected" <<<"$output"; then
        echo "FAIL: $snippet was rejected, but not with \"$expected\":"
        grep 'error:' <<<"$output" | head -3
        status=1
    else
        echo "ok: $snippet is rejected ($expected)"
    fi
done
for snippet in must-compile/*.swift; do
    if output=$(compile "$snippet"); then
        echo "ok: $snippet compiles"
    else
        echo "FAIL: $snippet must compile:"
        grep 'error:' <<<"$output" | head -5
        status=1
    fi
done
exit $status
