import Foundation

/// Foundation's `localizedDescription` is the error's own message, so code that shows
/// `error.localizedDescription` (as Realm users do) prints what went wrong instead of
/// "The operation could not be completed".
///
/// ```swift
/// do {
///     try await realm.write { realm in try realm.create(Dog.self, value: ["name": 42]) }
/// } catch {
///     print(error.localizedDescription)   // "Invalid value 42 for 'Dog.name': expected String."
/// }
/// ```
extension FloeError: LocalizedError {
    /// The message, the same as ``description``.
    public var errorDescription: String? { description }
}
