@_spi(Engine) import FloeStorage

/// The object-graph rules ``StoreVerifier`` checks beyond checksums and tree structure, rules
/// a file keeps only when every writer keeps them (the object layer does; a tool writing rows
/// through the engine might not): every link leads to an object that exists, every embedded
/// object has exactly one owner, and every list, set and map belongs to one object alone.
///
/// Problems name the class, the object and the property, in the words of the object model.
package struct ObjectGraphCheck {
    /// An object's property that holds a link or a collection.
    package struct Holder: Hashable, CustomStringConvertible {
        package let className: String
        package let key: Int64
        package let property: String
        package var description: String { "\(className) \(key), property '\(property)'" }
    }

    /// A collection tree's root: its file offset once written, the node itself before.
    private enum TreeIdentity: Hashable {
        case offset(UInt64)
        case node(ObjectIdentifier)
    }

    /// Every table of the version that loads, by name (one that does not is reported by the
    /// structural checks).
    private let tables: [String: TableNode]
    private var keySets: [String: Set<Int64>] = [:]
    /// Each embedded object's owners so far, by class.
    private var owners: [String: [Int64: [Holder]]] = [:]
    private var collectionHolders: [TreeIdentity: Holder] = [:]

    package init(root: GroupNode) {
        var tables: [String: TableNode] = [:]
        for ref in root.tables {
            if let table = try? ref.load() { tables[table.spec.name] = table }
        }
        self.tables = tables
    }

    /// The keys of the objects of `className` (empty for a class the file does not have).
    private mutating func keys(of className: String) throws(FloeError) -> Set<Int64> {
        if let known = keySets[className] { return known }
        var keys = Set<Int64>()
        if let table = tables[className] {
            try ClusterTree.forEachLeaf(in: table.root) { leaf in
                keys.formUnion(leaf.keys)
                return true
            }
        }
        keySets[className] = keys
        return keys
    }

    /// Notes a link `holder` holds to object `target` of `targetClass`: it must exist, and when
    /// its class is embedded, `holder` is one of its owners.
    package mutating func noteLink(from holder: Holder, to target: Int64, of targetClass: String, into report: inout VerificationReport) throws(FloeError) {
        guard try keys(of: targetClass).contains(target) else {
            report.problems.append("\(holder), links to \(targetClass) \(target), which does not exist")
            return
        }
        if tables[targetClass]?.spec.kind == .embedded { owners[targetClass, default: [:]][target, default: []].append(holder) }
    }

    /// Notes that `holder`'s list, set or map is the tree at `root`: no other object's may be.
    package mutating func noteCollection(_ root: NodeRef<CollectionNode>, of holder: Holder, into report: inout VerificationReport) {
        // A tree never written is in memory: the node itself tells it apart.
        guard let identity: TreeIdentity = root.offset != 0 ? .offset(root.offset) : root.residentNode.map({ .node(ObjectIdentifier($0)) }) else { return }
        if let first = collectionHolders[identity] {
            report.problems.append("\(holder), shares its collection with \(first): each object's list, set or map must be its own")
        } else {
            collectionHolders[identity] = holder
        }
    }

    /// Checks what needs every link seen: each embedded object has exactly one owner.
    package mutating func finish(into report: inout VerificationReport) {
        for (name, table) in tables.sorted(by: { $0.key < $1.key }) where table.spec.kind == .embedded {
            do {
                let owned = owners[name] ?? [:]
                for key in try keys(of: name).sorted() {
                    let holders = owned[key] ?? []
                    if holders.isEmpty {
                        report.problems.append("\(name) \(key) is an embedded object that no object owns: an embedded object exists only inside its owner")
                    } else if holders.count > 1 {
                        report.problems.append("\(name) \(key) is an embedded object with \(holders.count) owners (\(holders.map(\.description).joined(separator: "; "))): "
                                               + "an embedded object belongs to exactly one")
                    }
                }
            } catch {
                report.problems.append("\(error)")
            }
        }
    }
}
