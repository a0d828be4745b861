@_spi(Engine) import FloeStorage

// How deep a mixed value may nest, told without recursion.

extension Value {
    /// Whether this value nests lists and dictionaries more than `limit` levels deep. Walked
    /// with a worklist that stops at the first collection past the limit: the value may come
    /// from anywhere, and its depth must not decide how deep the stack goes.
    package func nestsDeeper(than limit: Int) -> Bool {
        var pending: [(value: Value, level: Int)] = [(self, 0)]
        while let (value, level) = pending.popLast() {
            switch value {
            case .list(let values):
                guard level < limit else { return true }
                for element in values where element.isCollection { pending.append((element, level + 1)) }
            case .dictionary(let entries):
                guard level < limit else { return true }
                for entry in entries where entry.value.isCollection { pending.append((entry.value, level + 1)) }
            default:
                break
            }
        }
        return false
    }

    private var isCollection: Bool {
        switch self {
        case .list, .dictionary: return true
        default: return false
        }
    }
}

extension FloeError {
    /// A mixed value nesting lists and dictionaries deeper than ``Value/maximumNesting``.
    package static func mixedNestingTooDeep(table: String, column: String) -> FloeError {
        .typeMismatch(table: table, column: column, expected: "a mixed value nesting at most \(Value.maximumNesting) levels of lists and dictionaries",
                      value: "nesting more than \(Value.maximumNesting) levels")
    }
}
