import FloeSync
import PostgresNIO

extension ReadCondition {
    /// The condition as SQL over `image`, an expression of type `jsonb` holding an object's
    /// values as sync values (`{"ownerId": {"string": "ann"}, …}`), binding what it compares.
    /// It holds for a row exactly when ``mayHold(for:)`` holds for the object; never NULL.
    func sql(over image: String, binds: inout PostgresBindings) -> String {
        switch self {
        case .everything, .unknown: return "TRUE"
        case .nothing: return "FALSE"
        case .all(let parts):
            guard !parts.isEmpty else { return "TRUE" }
            return "(" + parts.map { $0.sql(over: image, binds: &binds) }.joined(separator: " AND ") + ")"
        case .any(let parts):
            guard !parts.isEmpty else { return "FALSE" }
            return "(" + parts.map { $0.sql(over: image, binds: &binds) }.joined(separator: " OR ") + ")"
        case .text(let property, let texts):
            binds.append(property)
            let string = "(\(image) -> $\(binds.count)::text ->> 'string')"
            // PostgreSQL holds no text with U+0000 (nor any object holding one): such a claim
            // equals nothing stored, and bound as a parameter it would fail the whole query.
            binds.append(texts.filter { !$0.unicodeScalars.contains("\0") })
            let candidates = "$\(binds.count)::text[]"
            // A byte outside ASCII (a character outside it, in a UTF-8 database): the rule decides.
            binds.append(#"[^\x01-\x7f]"#)
            let outsideASCII = "$\(binds.count)::text"
            return "(\(string) IS NULL OR \(string) = ANY(\(candidates)) OR \(string) ~ \(outsideASCII))"
        }
    }
}
