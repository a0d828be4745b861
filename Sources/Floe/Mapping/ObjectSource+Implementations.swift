@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The two implementations of ``ObjectSource`` told apart: a live realm's ``ObjectContext`` and a
/// frozen version's ``FrozenSource``, both on this floor. What a managed collection or object
/// can do depends on which it reads through (a live one can be queried as live results or
/// observed, a frozen one answers from its snapshot), and this is the one place that asks:
/// `Scripts/check-layers.py` refuses a cast to either anywhere else.
///
/// ```swift
/// guard let context = binding.source.liveContext else { throw .invalidOperation(...) }
/// ```
extension ObjectSource {
    /// The live realm's context this source is, or nil for a frozen version.
    var liveContext: ObjectContext? { self as? ObjectContext }

    /// The frozen version this source is, or nil for a live realm.
    var frozenVersion: FrozenSource? { self as? FrozenSource }
}
