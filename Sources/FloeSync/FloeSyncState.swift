import Floe

/// The sync client's cursors, stored in the realm's file beside the data they describe, so
/// that a restarted client resumes where it was. Add it to `Configuration.objectTypes` when
/// that lists the classes (``SyncClient/stateType``).
///
/// ```swift
/// configuration.objectTypes = [Todo.self, SyncClient.stateType]
/// ```
public final class FloeSyncState: Object {
    /// Always 0: one state per realm.
    @Persisted(primaryKey: true) var id = 0
    /// The client's identity towards the server, made on first start.
    @Persisted var clientID = ""
    /// Every synced change of local versions up to this one is stored by the server.
    @Persisted var acknowledgedLocalVersion = 0
    /// The newest server version applied to this realm.
    @Persisted var serverVersion = 0
}
