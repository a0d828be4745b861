@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Delete rules on the collections of objects (the rule itself and the to-one form are in
// Model/DeleteRule.swift).

extension Persisted {
    /// A list of objects with a delete rule.
    ///
    /// ```swift
    /// @Persisted(deleteRule: .cascade) var lines: List<OrderLine>
    /// ```
    @inlinable public init<Target: Object>(deleteRule: DeleteRule) where Value == List<Target> {
        column = -1
        value = nil
        options = PropertyOptions(deleteRule: deleteRule)
    }

    /// A set of objects with a delete rule.
    ///
    /// ```swift
    /// @Persisted(deleteRule: .cascade) var attachments: MutableSet<Attachment>
    /// ```
    @inlinable public init<Target: Object>(deleteRule: DeleteRule) where Value == MutableSet<Target> {
        column = -1
        value = nil
        options = PropertyOptions(deleteRule: deleteRule)
    }

    /// A map of objects with a delete rule.
    ///
    /// ```swift
    /// @Persisted(deleteRule: .cascade) var pages: Map<String, Page?>
    /// ```
    @inlinable public init<Target: Object>(deleteRule: DeleteRule) where Value == Map<String, Target?> {
        column = -1
        value = nil
        options = PropertyOptions(deleteRule: deleteRule)
    }
}
