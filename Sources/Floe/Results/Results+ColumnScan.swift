@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// A count of filtered results answered by a `ColumnScan` on the Query floor, without keys.

extension Results {
    /// The count of filtered results whose predicate reads plain columns only, scanned leaf by
    /// leaf without keeping keys; nil when the keys are needed anyway (an index answers, a
    /// sort or distinct follows, or the base is a collection).
    func countWithoutKeys(_ binding: TableBinding) -> Int? {
        guard let query, query.stages.isEmpty, query.base.isWholeTable, let predicate = query.predicate else { return nil }
        do {
            let reader = try context.currentReader()
            guard try QueryPlanner.indexCandidates(predicate, binding: binding, reader: reader) == nil,
                  let scan = try ColumnScan(predicate, binding: binding, reader: reader) else { return nil }
            return try scan.count()
        } catch {
            return context.readFailed(error, reading: "Results<\(Element.className())>", placeholder: 0)
        }
    }
}
