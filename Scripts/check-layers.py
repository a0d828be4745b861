#!/usr/bin/env python3
"""Fails when a file in a lower folder of Sources/Floe names a type declared in a higher one,
or when Sources/FloeSync imports SPI other than the realm's `@_spi(Sync)`.

The folders, lowest first, are the layers of Docs/Architecture.md. Only top-level
declarations count as a layer's types (nested names such as `Iterator` are everyone's).
Comments and string literals are ignored. Usage: Scripts/check-layers.py [Sources/Floe]
"""
import os
import re
import sys

# Floors, lowest first; the folders of one floor may name each other's types (see
# Docs/Architecture.md for why Model and Schema share one). Errors and Locking are the floor every layer
# stands on.
FLOORS = [["Errors", "Locking", "Geo"], ["Storage"], ["Engine"], ["Model", "Schema"], ["Collections"], ["Mapping"],
          ["Query"], ["Results"], ["Realm"], ["Changes"], ["Projection"]]
LAYERS = {folder: level for level, floor in enumerate(FLOORS) for folder in floor}

DECLARATION = re.compile(
    r"^(?:@[\w()., ]+\s+)*(?:(?:public|internal|package|private|fileprivate|final|open|indirect)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+(\w+)")
IDENTIFIER = re.compile(r"\b[A-Z_]\w*\b")
GENERICS = re.compile(r"(?:struct|class|enum|actor|protocol|typealias|func|init|subscript)\s*[\w`]*\s*<([^>]*)>")
ASSOCIATED = re.compile(r"\bassociatedtype\s+(\w+)")
# The ports' implementations are told apart in one file (Docs/Architecture.md, "Ports below"):
# a cast of a source to `ObjectContext` or `FrozenSource` anywhere else is refused.
SOURCE_CAST = re.compile(r"\b(?:as[?!]?|is)\s+(?:ObjectContext|FrozenSource)\b")
SOURCE_CAST_HOME = os.path.join("Mapping", "ObjectSource+Implementations.swift")


def local_names(lines):
    """Generic parameters and associated types: names a file declares for itself."""
    names = set()
    for line in lines:
        for parameters in GENERICS.findall(line):
            for parameter in parameters.split(","):
                names.add(parameter.split(":")[0].strip())
        names.update(ASSOCIATED.findall(line))
    return names


def strip(source):
    """The source without comments and string literals (their words name nothing)."""
    source = re.sub(r'"""(?:.|\n)*?"""', '""', source)
    source = re.sub(r"/\*(?:.|\n)*?\*/", "", source)
    lines = []
    for line in source.split("\n"):
        line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        lines.append(line.split("//", 1)[0])
    return lines


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "Sources/Floe"
    files = {}
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path) or folder.endswith(".docc"):
            continue  # the documentation catalog holds no Swift
        if folder not in LAYERS:
            print(f"check-layers: {path} is not a known layer; add it to LAYERS in {sys.argv[0]}")
            return 1
        for directory, _, names in os.walk(path):
            for name in names:
                if name.endswith(".swift"):
                    with open(os.path.join(directory, name), encoding="utf-8") as handle:
                        files[os.path.join(directory, name)] = (folder, strip(handle.read()))
    owner = {}
    for path, (folder, lines) in files.items():
        for line in lines:
            match = DECLARATION.match(line)
            if match:
                owner.setdefault(match.group(1), folder)
    violations = 0
    for path, (folder, lines) in sorted(files.items()):
        level = LAYERS[folder]
        own = local_names(lines)
        for number, line in enumerate(lines, 1):
            for name in sorted(set(IDENTIFIER.findall(line)) - own):
                above = owner.get(name)
                if above and LAYERS[above] > level:
                    print(f"{path}:{number}: {folder}/ names {name}, declared in {above}/ above it")
                    violations += 1
            if SOURCE_CAST.search(line) and not path.endswith(SOURCE_CAST_HOME):
                print(f"{path}:{number}: casts a source to its implementation; ask `liveContext` or `frozenVersion` ({SOURCE_CAST_HOME})")
                violations += 1
    violations += check_sync_client(os.path.join(os.path.dirname(root.rstrip("/")) or ".", "FloeSync"))
    if violations:
        print(f"check-layers: {violations} violations")
        return 1
    print(f"check-layers: {len(files)} files, no upward references")
    return 0


def check_sync_client(root):
    """The sync client works through the realm's sync SPI alone: it imports no engine SPI."""
    violations = 0
    if not os.path.isdir(root):
        return 0
    for name in sorted(os.listdir(root)):
        if not name.endswith(".swift"):
            continue
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            for number, line in enumerate(strip(handle.read()), 1):
                if re.search(r"@_spi\((?!Sync\))", line):
                    print(f"{os.path.join(root, name)}:{number}: FloeSync imports SPI other than the realm's Sync SPI")
                    violations += 1
    return violations


if __name__ == "__main__":
    sys.exit(main())
