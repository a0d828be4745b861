@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Writing an object's links and collections, adding the unmanaged objects they reach.

/// What one stored object's links and collections still need, as steps that
/// ``ObjectContext/storeLinks(_:)`` walks with a worklist of these frames.
///
/// A step that meets an unmanaged object stores the object's row, then pauses until that
/// object's own frame is done, and writes the link after: the order of writes is the order
/// recursion would give, but the stack stays as deep as for one object however long a chain
/// of linked objects the user adds.
struct LinkFrame {
    enum Step {
        /// Fills a list, set or map (for `.modified`: unless it holds the elements already).
        case collection(column: Int, kind: CollectionKind, elements: [_FloeValue], keys: [String]?)
        /// Sets a to-one link or a mixed property (its index in the class's properties).
        case link(property: Int)
    }

    /// Each property's value, as the object (or the value it was created from) gives it.
    let values: [_FloeValue]
    let binding: TableBinding
    let key: Int64
    let update: ExistingObjectPolicy
    /// Which properties `create` was given (nil: all).
    let given: [_FloeValue?]?
    let steps: [Step]
    private(set) var step = 0
    /// The next element of the current collection step.
    fileprivate var element = 0
    fileprivate var isStepStarted = false
    /// For a collection compared before it is written (`.modified`): the elements resolved so far.
    fileprivate var resolvedElements: [Value] = []
    /// The stored form of the element or link being written, resolved before the object it
    /// added had its own links written.
    fileprivate var paused: Value?

    /// The steps of a newly stored object: its collections, then its links and mixed values
    /// (only the properties stored after the row: most classes have none).
    init(values: [_FloeValue], binding: TableBinding, key: Int64, update: ExistingObjectPolicy, given: [_FloeValue?]? = nil) {
        var steps: [Step] = []
        let isStoredAfterRow = binding.isStoredAfterRow
        if isStoredAfterRow.contains(true) {
            for index in isStoredAfterRow.indices where isStoredAfterRow[index] {
                let property = binding.schema.properties[index]
                guard property.type.collection != .single && !property.isComputed else { continue }
                guard let elements = values[index].elements, given == nil || given?[index] != nil else { continue }
                steps.append(.collection(column: binding.columnOfProperty[index], kind: property.type.collection,
                                         elements: elements, keys: values[index].keys))
            }
            for index in isStoredAfterRow.indices where isStoredAfterRow[index] {
                let type = binding.schema.properties[index].type
                guard (type.columnType == .link || type.columnType == .mixed) && type.collection == .single else { continue }
                steps.append(.link(property: index))
            }
        }
        self.init(values: values, binding: binding, key: key, update: update, given: given, steps: steps)
    }

    /// A frame that replaces one collection of a stored object.
    init(replacing column: Int, kind: CollectionKind, of row: ObjectBinding, with elements: [_FloeValue], keys: [String]?,
         update: ExistingObjectPolicy) {
        self.init(values: [], binding: row.tableBinding, key: row.key, update: update, given: nil,
                  steps: [.collection(column: column, kind: kind, elements: elements, keys: keys)])
    }

    private init(values: [_FloeValue], binding: TableBinding, key: Int64, update: ExistingObjectPolicy, given: [_FloeValue?]?, steps: [Step]) {
        self.values = values
        self.binding = binding
        self.key = key
        self.update = update
        self.given = given
        self.steps = steps
    }

    var isDone: Bool { step == steps.count }

    fileprivate mutating func finishStep() {
        step += 1
        element = 0
        isStepStarted = false
        resolvedElements = []
        paused = nil
    }
}

extension ObjectContext {
    /// Writes the links and collections of `frame`'s object, and of every unmanaged object
    /// they add, depth first, with a worklist rather than recursion.
    func storeLinks(_ frame: LinkFrame) throws(FloeError) {
        guard !frame.isDone else { return }
        var frames = [frame]
        while !frames.isEmpty {
            if let added = try advance(&frames[frames.count - 1]) {
                if !added.isDone { frames.append(added) }
            } else {
                frames.removeLast()
            }
        }
    }

    /// Replaces a collection's elements (on a new object: fills it).
    func replaceElements(of row: ObjectBinding, column: Int, kind: CollectionKind, with elements: [_FloeValue], keys: [String]?,
                         update: ExistingObjectPolicy = .error) throws(FloeError) {
        try storeLinks(LinkFrame(replacing: column, kind: kind, of: row, with: elements, keys: keys, update: update))
    }

    /// Runs `frame`'s steps until they are done (nil) or one of them added an unmanaged object,
    /// whose frame is returned to be walked before this one goes on.
    private func advance(_ frame: inout LinkFrame) throws(FloeError) -> LinkFrame? {
        while !frame.isDone {
            let added: LinkFrame?
            switch frame.steps[frame.step] {
            case .collection(let column, let kind, let elements, let keys):
                added = try advanceCollection(&frame, column: column, kind: kind, elements: elements, keys: keys)
            case .link(let property):
                added = try advanceLink(&frame, property: property)
            }
            if let added { return added }
            frame.finishStep()
        }
        return nil
    }

    /// Fills a collection element by element; nil once it is written.
    private func advanceCollection(_ frame: inout LinkFrame, column: Int, kind: CollectionKind, elements: [_FloeValue],
                                   keys: [String]?) throws(FloeError) -> LinkFrame? {
        let row = ObjectBinding(source: self, tableBinding: frame.binding, key: frame.key)
        let editor = CollectionEditor(context: self, transaction: try requireWrite(), binding: row, column: column, update: frame.update)
        // `.modified` leaves a collection that holds the elements already unwritten, so it
        // resolves them all before writing any. Elements that are embedded objects are always
        // written (each would be a new object).
        var comparesFirst = false
        if frame.update == .modified { comparesFirst = try !holdsEmbeddedObjects(frame.binding, column: column) }
        if !frame.isStepStarted {
            frame.isStepStarted = true
            if !comparesFirst && editor.count > 0 { try editor.removeAll() }
        }
        while frame.element < elements.count {
            let index = frame.element
            let stored: Value
            if let paused = frame.paused {
                stored = paused
                frame.paused = nil
            } else {
                var added: LinkFrame?
                stored = try resolve(elements[index], for: frame.binding, column: column, owner: frame.key, update: frame.update, deferring: &added)
                if let added {
                    if comparesFirst {
                        frame.resolvedElements.append(stored)
                        frame.element += 1
                    } else {
                        frame.paused = stored
                    }
                    return added
                }
            }
            if comparesFirst {
                frame.resolvedElements.append(stored)
            } else {
                try write(stored, at: index, kind: kind, keys: keys, with: editor)
            }
            frame.element += 1
        }
        if comparesFirst {
            let wanted = frame.resolvedElements
            guard try !collection(of: row, column: column, kind: kind, holds: wanted, keys: keys) else { return nil }
            if editor.count > 0 { try editor.removeAll() }
            for (index, stored) in wanted.enumerated() { try write(stored, at: index, kind: kind, keys: keys, with: editor) }
        }
        return nil
    }

    private func write(_ stored: Value, at index: Int, kind: CollectionKind, keys: [String]?, with editor: CollectionEditor) throws(FloeError) {
        switch kind {
        case .list: try editor.append(_FloeValue(stored))
        case .set: try editor.setInsert(_FloeValue(stored))
        case .map:
            guard let keys, index < keys.count else { return }
            try editor.mapSet(_FloeValue(stored), forKey: keys[index])
        case .single: break
        }
    }

    /// Whether the collection in `column` holds embedded objects.
    private func holdsEmbeddedObjects(_ binding: TableBinding, column: Int) throws(FloeError) -> Bool {
        guard let property = binding.propertyOfColumn[column], let target = binding.schema.properties[property].type.objectType else { return false }
        return try SchemaDiscovery.schema(for: target).kind == .embedded
    }

    /// Whether a collection holds `wanted` already: the same values in the same order for a
    /// list, the same values for a set, the same entries for a map.
    private func collection(of row: ObjectBinding, column: Int, kind: CollectionKind, holds wanted: [Value], keys: [String]?) throws(FloeError) -> Bool {
        let transaction = try requireWrite()
        let table = row.tableBinding.table
        switch kind {
        case .list:
            return try transaction.collectionElements(in: table, key: row.key, column: column) == wanted
        case .set:
            let current = try transaction.collectionElements(in: table, key: row.key, column: column)
            return current.count == Set(current).count && Set(current) == Set(wanted)
        case .map:
            guard let keys, keys.count == wanted.count else { return false }
            let current = try transaction.mapEntries(in: table, key: row.key, column: column)
            let currentEntries = Dictionary(current.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            let wantedEntries = Dictionary(zip(keys, wanted).map { ($0, $1) }, uniquingKeysWith: { _, last in last })
            return currentEntries == wantedEntries
        case .single:
            return false
        }
    }

    /// Sets a to-one link or mixed property; nil once it is set (or left, as `.modified` and
    /// `create`'s given properties say).
    private func advanceLink(_ frame: inout LinkFrame, property index: Int) throws(FloeError) -> LinkFrame? {
        let binding = frame.binding, key = frame.key, value = frame.values[index]
        let column = binding.columnOfProperty[index]
        let stored: Value
        if let paused = frame.paused {
            stored = paused
            frame.paused = nil
        } else {
            if let given = frame.given, given[index] == nil, value.object == nil, value.valueToCreate == nil { return nil }
            // `.modified` and an embedded object equal to the one there: the one there stays.
            if frame.update == .modified, let target = binding.schema.properties[index].type.objectType,
               try SchemaDiscovery.schema(for: target).kind == .embedded,
               case .link(let current) = try requireWrite().value(in: binding.table, key: key, column: column),
               try embedded(target, key: current, holds: value) { return nil }
            var added: LinkFrame?
            stored = try resolve(value, for: binding, column: column, owner: key, update: frame.update, deferring: &added)
            if let added {
                frame.paused = stored
                return added
            }
        }
        // `.modified` writes only what differs: a link to the object it links to already
        // (nil to nil included) is left as it is, so observers see no change.
        if frame.update == .modified, try requireWrite().value(in: binding.table, key: key, column: column) == stored { return nil }
        try replaceLink(in: binding, key: key, column: column, with: stored)
        return nil
    }
}
