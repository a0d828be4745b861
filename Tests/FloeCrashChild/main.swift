#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// A child process for the crash and corruption tests; see `ChildCommand` for its modes.
exit(ChildCommand.main(CommandLine.arguments))
