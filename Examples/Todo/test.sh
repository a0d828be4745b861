#!/usr/bin/env bash
# Runs the todo example against a fresh file and checks what it prints: add, done, list, an
# unknown id, and watch reporting changes from its change stream.
set -euo pipefail
cd "$(dirname "$0")"
swift build
todo="$(swift build --show-bin-path)/todo"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
file="$dir/list.floe"

expect() {   # expect NAME EXPECTED ACTUAL
    if [ "$2" != "$3" ]; then
        printf 'FAIL %s\nexpected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"
        exit 1
    fi
    echo "ok $1"
}

expect "add" "added 1" "$("$todo" --file "$file" add "buy milk")"
expect "add again" "added 2" "$("$todo" --file "$file" add "walk the dog")"
expect "done" "done 1" "$("$todo" --file "$file" done 1)"
expect "list" "$(printf '[x] 1 buy milk\n[ ] 2 walk the dog')" "$("$todo" --file "$file" list)"
if "$todo" --file "$file" done 9 2>/dev/null; then echo "FAIL done of a missing todo succeeded"; exit 1; fi
echo "ok done of a missing todo fails"

# watch prints the list, then the changes its stream reports for writes made while it runs.
watched=$( (printf 'add call mom\ndone 2\n'; sleep 3) | timeout 10 "$todo" --file "$file" watch || true)
expect "watch" "$(printf '2 todos\n[x] 1 buy milk\n[ ] 2 walk the dog\nadded [ ] 3 call mom\nchanged [x] 2 walk the dog')" "$watched"
expect "list after watch" "$(printf '[x] 1 buy milk\n[x] 2 walk the dog\n[ ] 3 call mom')" "$("$todo" --file "$file" list)"

# The default file is todo.floe in the current directory.
(cd "$dir" && "$todo" add "default file" >/dev/null)
[ -f "$dir/todo.floe" ] || { echo "FAIL no todo.floe in the current directory"; exit 1; }
echo "ok default file"
echo "todo example: all checks passed"
