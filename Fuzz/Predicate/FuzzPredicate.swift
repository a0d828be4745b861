import Foundation
@testable import Floe

// libFuzzer target: any text as a string predicate, with a few arguments of every kind.
// Parsing must end in a predicate or a FloeError: never a crash or a hang.

private func arguments() -> [Any] { [3, "r", 2.5, true, Date(timeIntervalSince1970: 0), [1, 2, 3], "name", Data([1, 2])] }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let all = arguments()
    for argumentCount in [0, 2, all.count] {
        _ = try? PredicateParser.parse(text, arguments: Array(all.prefix(argumentCount)))
    }
    return 0
}
