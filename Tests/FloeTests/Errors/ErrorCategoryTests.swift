import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// `FloeError.category`: every case in the category it is about, every category with its
/// cases, and the messages the same as before there were categories.
@Suite struct ErrorCategoryTests {
    static let casesByCategory: [(category: FloeError.Category, errors: [FloeError])] = [
        (.file, [
            .notAFloeFile(path: "dogs.floe"),
            .unsupportedFormatVersion(path: "dogs.floe", found: 9, supported: 1),
            .corruptFile(path: "dogs.floe", offset: 4096, detail: "commit record checksum mismatch"),
            .fileLocked(path: "dogs.floe"),
            .io(path: "dogs.floe", operation: "open", errno: 2),
            .closed(path: "dogs.floe"),
            .readOnly(path: "dogs.floe"),
        ]),
        (.schema, [
            .noSuchTable(name: "Cat"),
            .duplicateTable(name: "Dog"),
            .noSuchColumn(table: "Dog", column: "wings"),
            .duplicateColumn(table: "Dog", column: "name"),
            .invalidName(kind: "class", name: "", reason: "names may not be empty"),
            .invalidSchema(className: "Dog", property: "owner", reason: "links must be optional"),
        ]),
        (.migration, [
            .schemaMismatch(path: "dogs.floe", differences: ["Property 'Dog.age' has been added."]),
            .schemaVersionTooLow(path: "dogs.floe", stored: 3, requested: 2),
            .migrationNeedsObjectTypes(path: "dogs.floe", stored: 1, requested: 2, classNames: ["Dog"]),
        ]),
        (.transaction, [
            .notInWriteTransaction(path: "dogs.floe"),
            .alreadyInWriteTransaction(path: "dogs.floe"),
            .tooManyActiveVersions(path: "dogs.floe", active: 8, maximum: 8),
            .versionUnavailable(path: "dogs.floe", version: 2, oldest: 5, newest: 9),
        ]),
        (.object, [
            .noSuchObject(table: "Dog", key: 7),
            .duplicatePrimaryKey(table: "Dog", column: "id", value: "1"),
            .duplicateObjectKey(table: "Dog", key: 7),
            .primaryKeyChanged(className: "Dog", property: "id", from: "1", to: "2"),
            .primaryKeyNotGiven(className: "Dog", property: "id", defaultValue: "0"),
            .objectNotInRealm(className: "Dog", detail: "is managed by another realm; use create(_:value:) to copy it"),
            .invalidOperation(className: "Dog", detail: "has no primary key"),
        ]),
        (.value, [
            .typeMismatch(table: "Dog", column: "name", expected: "String", value: "42"),
            .nullForRequired(table: "Dog", column: "name"),
            .valueTooLarge(table: "Dog", column: "photo", size: 20_000_000, limit: 16_777_216),
            .indexOutOfRange(table: "Person", column: "dogs", index: 3, count: 2),
            .invalidLink(table: "Person", column: "dog", target: "Dog", key: 9),
            .invalidMapKey(table: "Dog", column: "tags", key: "a.b"),
            .invalidValueString(type: "ObjectId", string: "xyz", reason: "an ObjectId is 24 hexadecimal digits"),
            .cyclicValue(className: "Person"),
        ]),
        (.query, [
            .invalidPredicate(predicate: "age >", position: 5, token: "", reason: "a value is expected"),
            .invalidKeyPath(className: "Dog", keyPath: "wings", reason: "'Dog' has no property 'wings'"),
            .invalidShape(shape: "GeoPolygon", className: "Place", property: "area", reason: "its ring is not closed"),
        ]),
    ]

    @Test func everyCaseIsInItsCategory() {
        for (category, errors) in Self.casesByCategory {
            for error in errors { #expect(error.category == category, "\(error)") }
        }
    }

    @Test func everyCategoryHasCasesAndEveryCaseACategory() {
        #expect(Self.casesByCategory.map(\.category) == FloeError.Category.allCases)
        #expect(Self.casesByCategory.allSatisfy { !$0.errors.isEmpty })
        // Every case of the message table (one of each case) is listed here once.
        let listed = Self.casesByCategory.flatMap(\.errors)
        let pinned = ErrorMessageTests.everyCase.map(\.error)
        #expect(Set(listed.map(Self.caseName)) == Set(pinned.map(Self.caseName)))
        #expect(listed.count == Set(listed.map(Self.caseName)).count)
    }

    @Test func messagesAreTheSameAsBeforeCategories() {
        for error in Self.casesByCategory.flatMap(\.errors) {
            let pinned = ErrorMessageTests.everyCase.first { $0.error == error }?.message
            #expect(pinned != nil, "\(error)")
            #expect(error.description == pinned)
            #expect((error as Error).localizedDescription == pinned)
        }
    }

    @Test func aCaseIsStillCaughtByName() {
        do {
            throw FloeError.fileLocked(path: "dogs.floe")
        } catch FloeError.fileLocked(let path) {
            #expect(path == "dogs.floe")
        } catch {
            Issue.record("caught as \(error)")
        }
    }

    @Test func aCategoryPrintsItsName() {
        #expect(FloeError.Category.allCases.map(\.description) == ["file", "schema", "migration", "transaction", "object", "value", "query"])
        #expect("\(FloeError.invalidKeyPath(className: "Dog", keyPath: "wings", reason: "none").category)" == "query")
    }

    /// A case's name without its values (`fileLocked`).
    static func caseName(_ error: FloeError) -> String {
        Mirror(reflecting: error).children.first?.label ?? "\(error)"
    }
}
