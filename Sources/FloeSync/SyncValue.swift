import Foundation
import Floe

/// A property value as sync carries it: self-contained, `Codable` (one JSON value, tagged by
/// its type so that nothing is lost between a client, the server and PostgreSQL).
///
/// ```swift
/// let value = SyncValue(FeedValue.int(4))            // .int(4)
/// let json = try JSONEncoder().encode(value)         // {"int":4}
/// ```
public enum SyncValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// No value.
    case null
    /// A `Bool`.
    case bool(Bool)
    /// Any integer.
    case int(Int64)
    /// A `Float` or a `Double` (floats travel as doubles).
    case double(Double)
    /// A `String`.
    case string(String)
    /// A `Data`.
    case data(Data)
    /// A `Date`, as seconds since 1970.
    case date(Double)
    /// A `Decimal128`, as its string.
    case decimal(String)
    /// An `ObjectId`, as its 24 hexadecimal digits.
    case objectId(String)
    /// A `UUID`.
    case uuid(UUID)
    /// A link to the object of `className` whose primary key is `key`.
    indirect case link(className: String, key: SyncValue)
    /// A list's or a set's elements.
    case list([SyncValue])
    /// A map's entries.
    case map([String: SyncValue])

    /// The feed's value, as sync carries it (links keep their target's primary key).
    public init(_ value: FeedValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .int(int)
        case .float(let float): self = .double(Double(float))
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(string)
        case .data(let data): self = .data(data)
        case .date(let date): self = .date(date.timeIntervalSince1970)
        case .decimal128(let decimal): self = .decimal(decimal.stringValue)
        case .objectId(let id): self = .objectId(id.stringValue)
        case .uuid(let uuid): self = .uuid(uuid)
        case .link(let className, let key): self = .link(className: className, key: SyncValue(key))
        case .list(let elements): self = .list(elements.map(SyncValue.init))
        case .dictionary(let entries): self = .map(entries.mapValues(SyncValue.init))
        }
    }

    /// A primary key, as sync carries it.
    public init(_ key: PrimaryKeyValue) {
        switch key {
        case .int(let int): self = .int(Int64(int))
        case .string(let string): self = .string(string)
        case .objectId(let id): self = .objectId(id.stringValue)
        case .uuid(let uuid): self = .uuid(uuid)
        case .null: self = .null
        case .objectKey(let key): self = .int(key)
        }
    }

    /// The name of the value's kind, for messages ("int", "string", "link to Dog").
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .decimal: "decimal"
        case .objectId: "objectId"
        case .uuid: "uuid"
        case .link(let className, _): "link to \(className)"
        case .list: "list"
        case .map: "map"
        }
    }

    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let bool): "\(bool)"
        case .int(let int): "\(int)"
        case .double(let double): "\(double)"
        case .string(let string): "\"\(string)\""
        case .data(let data): "<\(data.count) bytes>"
        case .date(let seconds): "\(Date(timeIntervalSince1970: seconds))"
        case .decimal(let string): string
        case .objectId(let string): string
        case .uuid(let uuid): uuid.uuidString
        case .link(let className, let key): "\(className)(\(key))"
        case .list(let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .map(let entries): "[" + entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
        }
    }

    private enum Tag: String, CodingKey {
        case bool, int, double, string, data, date, decimal, objectId, uuid, link, list, map, linkClass = "class", linkKey = "key"
    }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            self = .null
            return
        }
        let container = try decoder.container(keyedBy: Tag.self)
        guard let tag = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a sync value is an object with one key naming its type"))
        }
        switch tag {
        case .bool: self = .bool(try container.decode(Bool.self, forKey: tag))
        case .int: self = .int(try container.decode(Int64.self, forKey: tag))
        case .double: self = .double(try container.decode(Double.self, forKey: tag))
        case .string: self = .string(try container.decode(String.self, forKey: tag))
        case .data: self = .data(try container.decode(Data.self, forKey: tag))
        case .date: self = .date(try container.decode(Double.self, forKey: tag))
        case .decimal: self = .decimal(try container.decode(String.self, forKey: tag))
        case .objectId: self = .objectId(try container.decode(String.self, forKey: tag))
        case .uuid: self = .uuid(try container.decode(UUID.self, forKey: tag))
        case .list: self = .list(try container.decode([SyncValue].self, forKey: tag))
        case .map: self = .map(try container.decode([String: SyncValue].self, forKey: tag))
        case .link:
            let link = try container.nestedContainer(keyedBy: Tag.self, forKey: .link)
            self = .link(className: try link.decode(String.self, forKey: .linkClass), key: try link.decode(SyncValue.self, forKey: .linkKey))
        case .linkClass, .linkKey:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown sync value type '\(tag.stringValue)'"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .null = self {
            var single = encoder.singleValueContainer()
            try single.encodeNil()
            return
        }
        var container = encoder.container(keyedBy: Tag.self)
        switch self {
        case .null: break
        case .bool(let bool): try container.encode(bool, forKey: .bool)
        case .int(let int): try container.encode(int, forKey: .int)
        case .double(let double): try container.encode(double, forKey: .double)
        case .string(let string): try container.encode(string, forKey: .string)
        case .data(let data): try container.encode(data, forKey: .data)
        case .date(let seconds): try container.encode(seconds, forKey: .date)
        case .decimal(let string): try container.encode(string, forKey: .decimal)
        case .objectId(let string): try container.encode(string, forKey: .objectId)
        case .uuid(let uuid): try container.encode(uuid, forKey: .uuid)
        case .list(let elements): try container.encode(elements, forKey: .list)
        case .map(let entries): try container.encode(entries, forKey: .map)
        case .link(let className, let key):
            var link = container.nestedContainer(keyedBy: Tag.self, forKey: .link)
            try link.encode(className, forKey: .linkClass)
            try link.encode(key, forKey: .linkKey)
        }
    }
}
