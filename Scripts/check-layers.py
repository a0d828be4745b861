#!/usr/bin/env python3
"""Checks the floors of Docs/Architecture.md in the library's three targets.

Fails when
- a file on a lower floor names a type declared on a higher one (only top-level declarations
  count as a floor's types; nested names such as `Iterator` are everyone's),
- a file imports a target that is not below its own (FloeStorage imports no Floe target,
  FloeEngine only FloeStorage),
- a source is cast to its implementation outside Mapping/ObjectSource+Implementations.swift,
- a file above the engine (the `Floe` target, and `FloeSync` and the `floe` tool on it)
  reaches past what the engine's types declare: an `Unmanaged<T>` or `unowned(unsafe)` of a
  type `T` declared in FloeStorage or FloeEngine, or a downcast (`as?`, `as!`, `is`) to a class
  or protocol declared there; or names the fast lane (the engine's `RowFastLane` and the
  unretained holds it works with, LANE_NAMES) or calls the in-place reads and writes it is for
  (LANE_CALLS) outside the files in FAST_LANE (see Docs/Architecture.md, "The fast lane").
- a file of FloeSync imports SPI other than the realm's `@_spi(Sync)`, or an engine target.
Comments and string literals are ignored. Usage: Scripts/check-layers.py [repository root]
"""
import os
import re
import sys

# Targets, lowest first: each folder of a target is a floor's, or the whole target is one
# floor's (None). The folders of one floor may name each other's types (see
# Docs/Architecture.md for why Model and Schema share one); Errors, Locking and Geo are the
# floor every layer stands on.
TARGETS = [
    ("FloeStorage", {"Errors": 0, "Locking": 0, "Storage": 1}),
    ("FloeEngine", {None: 2}),
    ("Floe", {"Geo": 0, "Model": 3, "Schema": 3, "Collections": 4, "Mapping": 5, "Query": 6, "Results": 7,
              "Realm": 8, "Changes": 9, "Projection": 10}),
]
FLOOR_NAMES = {0: "Errors/Locking/Geo", 1: "Storage", 2: "Engine", 3: "Model/Schema", 4: "Collections",
               5: "Mapping", 6: "Query", 7: "Results", 8: "Realm", 9: "Changes", 10: "Projection"}
LOW_TARGETS = {"FloeStorage", "FloeEngine"}
# Targets above the library's floors, checked for reaches into the engine only.
ABOVE = ["FloeSync", "floe"]
# The fast lane: the engine's one protocol for reading and writing a row in place, and the
# unretained holds of the read epoch and the open write transaction it works with. Only the
# files in FAST_LANE (the managed object's link to its row, which adopts the protocol) name them.
LANE_NAMES = {"RowFastLane", "LaneEpoch", "LaneWriter"}
# The engine's reads and writes in a leaf the lane is for (typed reads of a row's column, the
# in-place word writes): called only from the files in FAST_LANE too.
LANE_CALLS = re.compile(r"\.(?:word|string)\(\s*(?:at|ofColumn)\s*:|\.writeWord(?:InPlace|ToLastTarget)\(")
FAST_LANE = {os.path.join("Sources", "Floe", "Model", "ObjectBinding.swift")}

DECLARATION = re.compile(
    r"^(?:@[\w()., ]+\s+)*(?:(?:public|internal|package|private|fileprivate|final|open|indirect)\s+)*"
    r"(class|struct|enum|protocol|actor|typealias)\s+(\w+)")
IDENTIFIER = re.compile(r"\b[A-Z_]\w*\b")
GENERICS = re.compile(r"(?:struct|class|enum|actor|protocol|typealias|func|init|subscript)\s*[\w`]*\s*<([^>]*)>")
ASSOCIATED = re.compile(r"\bassociatedtype\s+(\w+)")
IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*import\s+(?:(?:enum|struct|class|protocol|typealias|func|var|let)\s+)?(\w+)")
UNMANAGED = re.compile(r"\bUnmanaged\s*<\s*(\w+)")
UNOWNED = re.compile(r"\bunowned\s*\(\s*unsafe\s*\)\s+(?:let|var)\s+\w+\s*:\s*(\w+)")
DOWNCAST = re.compile(r"(?:\bas\s*[?!]|\bis)\s+(?:any\s+)?(\w+)")
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


def swift_files(base):
    for directory, subdirectories, names in os.walk(base):
        subdirectories[:] = sorted(name for name in subdirectories if not name.endswith(".docc"))
        for name in sorted(names):
            if name.endswith(".swift"):
                yield directory, os.path.join(directory, name)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = {}   # path -> (target, floor, lines); floor None: a target above the floors
    for target, floors in TARGETS:
        base = os.path.join(root, "Sources", target)
        for directory, path in swift_files(base):
            relative = os.path.relpath(directory, base)
            folder = None if relative == "." else relative.split(os.sep)[0]
            if None in floors:
                floor = floors[None]
            elif folder in floors:
                floor = floors[folder]
            else:
                print(f"check-layers: {directory} is not a known floor; add it to TARGETS in {sys.argv[0]}")
                return 1
            with open(path, encoding="utf-8") as handle:
                files[os.path.relpath(path, root)] = (target, floor, strip(handle.read()))
    for target in ABOVE:
        for _, path in swift_files(os.path.join(root, "Sources", target)):
            with open(path, encoding="utf-8") as handle:
                files[os.path.relpath(path, root)] = (target, None, strip(handle.read()))
    owner = {}   # type name -> (target, floor, kind)
    for path, (target, floor, lines) in files.items():
        if floor is None:
            continue
        for line in lines:
            match = None if IMPORT.match(line) else DECLARATION.match(line)
            if match:
                owner.setdefault(match.group(2), (target, floor, match.group(1)))
    order = [target for target, _ in TARGETS]
    violations = 0

    def report(message):
        nonlocal violations
        print(message)
        violations += 1

    for path, (target, floor, lines) in sorted(files.items()):
        own = local_names(lines)
        for number, line in enumerate(lines, 1):
            where = f"{path}:{number}"
            imported = IMPORT.match(line)
            if imported:   # names a module (and what it re-exports), not a type of a floor
                if floor is not None and imported.group(1) in order and order.index(imported.group(1)) >= order.index(target):
                    report(f"{where}: {target} imports {imported.group(1)}, which is not below it")
                continue
            names = set(IDENTIFIER.findall(line)) - own
            if floor is not None:
                for name in sorted(names):
                    above = owner.get(name)
                    if above and above[1] > floor:
                        report(f"{where}: {FLOOR_NAMES[floor]} names {name}, declared on {FLOOR_NAMES[above[1]]} above it")
                if SOURCE_CAST.search(line) and not path.endswith(SOURCE_CAST_HOME):
                    report(f"{where}: casts a source to its implementation; ask `liveContext` or `frozenVersion` ({SOURCE_CAST_HOME})")
            if target in LOW_TARGETS:
                continue
            for pattern, what, kinds in [(DOWNCAST, "a downcast to", {"class", "protocol", "actor"}),
                                         (UNMANAGED, "Unmanaged of", None), (UNOWNED, "unowned(unsafe) of", None)]:
                for name in pattern.findall(line):
                    if name in owner and owner[name][0] in LOW_TARGETS and (kinds is None or owner[name][2] in kinds):
                        report(f"{where}: {what} {name}, an engine type (the fast lane's unretained holds are the engine's: {', '.join(sorted(LANE_NAMES - {'RowFastLane'}))})")
            if path not in FAST_LANE:
                for name in sorted(names & LANE_NAMES):
                    report(f"{where}: names {name}, the engine's fast lane, outside {', '.join(sorted(FAST_LANE))}")
                if LANE_CALLS.search(line):
                    report(f"{where}: reads or writes a leaf in place, the engine's fast lane, outside {', '.join(sorted(FAST_LANE))}")
    violations += check_sync_client(os.path.join(root, "Sources", "FloeSync"))
    if violations:
        print(f"check-layers: {violations} violations")
        return 1
    print(f"check-layers: {len(files)} files in {len(TARGETS)} targets and {len(ABOVE)} above them, no upward references, "
          f"no reach into the engine outside the fast lane, FloeSync through the realm's Sync SPI alone")
    return 0


def check_sync_client(root):
    """The sync client works through the realm's sync SPI alone: it imports no engine SPI and
    neither engine target."""
    violations = 0
    if not os.path.isdir(root):
        return 0
    for name in sorted(os.listdir(root)):
        if not name.endswith(".swift"):
            continue
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            for number, line in enumerate(strip(handle.read()), 1):
                if re.search(r"@_spi\((?!Sync\))", line) or re.search(r"\bimport\s+(FloeEngine|FloeStorage)\b", line):
                    print(f"{os.path.join(root, name)}:{number}: FloeSync reaches past the realm's Sync SPI")
                    violations += 1
    return violations


if __name__ == "__main__":
    sys.exit(main())
