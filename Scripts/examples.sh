#!/usr/bin/env bash
# Builds the two example packages (each depends on Floe by path) and runs their end-to-end
# scripts: Examples/Todo/test.sh and Examples/TodoServer/test.sh. Exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

for example in Todo TodoServer; do
    echo "== Examples/$example: build and test"
    start=$SECONDS
    bash "Examples/$example/test.sh"
    echo "Examples/$example: $((SECONDS - start)) s"
done
