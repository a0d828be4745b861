// `FloeError` is declared on the storage floor (the file's checks throw it first) and is part
// of Floe's public API: every user catches it after `import Floe` alone.
@_exported import enum FloeStorage.FloeError
