#!/usr/bin/env python3
"""Lists every public symbol of Floe that has no doc comment, and fails if there is one.

Reads the symbol graphs Scripts/docs.sh emits (Floe.symbols.json and Floe@<Module>.symbols.json
for Floe's extensions of other modules' types). A symbol counts as documented when the graph
gives it a doc comment: its own, or the one the compiler carries over from the protocol
requirement it implements or the declaration it overrides (the docs DocC shows for it).
Members DocC only lists as inherited (default implementations from a protocol extension,
marked as synthesized in the graph) are not Floe's to document here.

Usage: Scripts/undocumented.py SYMBOL-GRAPH-DIR
"""
import json
import os
import sys


def symbols(directory):
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".symbols.json"):
            continue
        if name != "Floe.symbols.json" and not name.startswith("Floe@"):
            continue
        with open(os.path.join(directory, name), encoding="utf-8") as graph:
            yield from json.load(graph).get("symbols", [])


def has_doc(symbol):
    lines = (symbol.get("docComment") or {}).get("lines") or []
    return any(line.get("text", "").strip() for line in lines)


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    missing = []
    total = 0
    for symbol in symbols(sys.argv[1]):
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        total += 1
        if has_doc(symbol):
            continue
        location = symbol.get("location") or {}
        uri = location.get("uri", "")
        path = uri.split("/Sources/", 1)[-1] if "/Sources/" in uri else uri
        line = (location.get("position") or {}).get("line", -1) + 1
        title = ".".join(symbol.get("pathComponents") or [symbol["names"]["title"]])
        missing.append((path, line, symbol["kind"]["displayName"], title))
    for path, line, kind, title in sorted(set(missing)):
        print(f"Sources/{path}:{line}: {kind} {title} has no doc comment")
    if missing:
        print(f"docs: {len(set(missing))} of {total} public symbols of Floe have no doc comment")
        return 1
    print(f"docs: all {total} public symbols of Floe have a doc comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
