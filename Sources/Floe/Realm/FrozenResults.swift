/// Frozen results: every object of a class at one version, `Sendable` and unchanging.
///
/// ```swift
/// let frozenDogs = try await realm.read { realm in try realm.objects(Dog.self).freeze() }
/// await withTaskGroup(of: Void.self) { group in
///     group.addTask { print(frozenDogs.count) }
/// }
/// ```
public struct FrozenResults<Element: Object>: RandomAccessCollection, Sendable {
    let snapshot: Snapshot
    private let binding: TableBinding?

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
        binding = try? FrozenRealm.binding(for: Element.self, in: snapshot)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of objects at this version.
    public var count: Int {
        guard let binding else { return 0 }
        do {
            return try snapshot.objectCount(in: binding.table)
        } catch {
            snapshot.damage.record(error)
            return 0
        }
    }

    public subscript(position: Int) -> Frozen<Element> {
        let found: Int64?
        do {
            found = try binding.flatMap { binding throws(FloeError) in try snapshot.objectKey(at: position, in: binding.table) }
        } catch {
            // Damaged: an object that reads as placeholders; checkIntegrity() reports the damage.
            snapshot.damage.record(error)
            found = .min
        }
        guard let binding, let key = found else {
            preconditionFailure("Index \(position) is out of bounds for FrozenResults<\(Element.className())> of \(count) objects.")
        }
        return Frozen(snapshot: snapshot, binding: binding, key: key)
    }

    /// Always true.
    public var isFrozen: Bool { true }

    /// The version these results show.
    public var version: UInt64 { snapshot.version }
}
