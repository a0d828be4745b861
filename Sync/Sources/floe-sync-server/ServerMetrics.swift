import FloeSync
import Metrics

/// What the server measures, through swift-metrics: whatever backend the process bootstraps
/// (`--metrics-port` serves Prometheus's text format); without one, the calls cost next to nothing.
///
/// | name | kind | what |
/// |---|---|---|
/// | `floe_sync_connections` | gauge | WebSocket connections open now |
/// | `floe_sync_connections_opened_total` | counter | connections accepted since start |
/// | `floe_sync_uploads_total`, `floe_sync_uploaded_changes_total` | counters | uploads applied, and their object changes |
/// | `floe_sync_upload_seconds` | histogram | one upload's PostgreSQL transaction, lock wait included |
/// | `floe_sync_log_read_seconds` | histogram | one page of the change log read for a connection |
/// | `floe_sync_changes_sent_total`, `floe_sync_pages_sent_total` | counters | changes streamed to clients, and the messages carrying them |
/// | `floe_sync_client_lag_versions` | histogram | how many server versions a connection is behind when it is woken or sent a page |
/// | `floe_sync_refusals_total{reason}` | counter | typed refusals sent, by reason (`forbidden`, `wrongType`, `limitExceeded`, …) |
/// | `floe_sync_database_errors_total` | counter | PostgreSQL failures met while serving |
/// | `floe_sync_commits_followed_total` | counter | commits other servers announced (`NOTIFY floe_log`) |
struct ServerMetrics: Sendable {
    let connections = Meter(label: "floe_sync_connections")
    let connectionsOpened = Counter(label: "floe_sync_connections_opened_total")
    let uploads = Counter(label: "floe_sync_uploads_total")
    let uploadedChanges = Counter(label: "floe_sync_uploaded_changes_total")
    let uploadTime = Timer(label: "floe_sync_upload_seconds")
    let logReadTime = Timer(label: "floe_sync_log_read_seconds")
    let changesSent = Counter(label: "floe_sync_changes_sent_total")
    let pagesSent = Counter(label: "floe_sync_pages_sent_total")
    let lag = Recorder(label: "floe_sync_client_lag_versions", aggregate: true)
    let databaseErrors = Counter(label: "floe_sync_database_errors_total")
    let commitsFollowed = Counter(label: "floe_sync_commits_followed_total")

    func refused(_ error: SyncError) {
        Counter(label: "floe_sync_refusals_total", dimensions: [("reason", Self.reason(error))]).increment()
    }

    /// The refusal's case, as the protocol names it.
    static func reason(_ error: SyncError) -> String {
        switch error {
        case .unknownClass: "unknownClass"
        case .unknownProperty: "unknownProperty"
        case .wrongType: "wrongType"
        case .futureSchemaVersion: "futureSchemaVersion"
        case .unsupportedProtocol: "unsupportedProtocol"
        case .noPrimaryKey: "noPrimaryKey"
        case .historyUnavailable: "historyUnavailable"
        case .serverUnavailable: "serverUnavailable"
        case .connection: "connection"
        case .unauthenticated: "unauthenticated"
        case .tokenExpired: "tokenExpired"
        case .forbidden: "forbidden"
        case .invalidRule: "invalidRule"
        case .limitExceeded: "limitExceeded"
        case .malformedMessage: "malformedMessage"
        case .applyFailed: "applyFailed"
        }
    }

    /// Times `body` into `timer`, whether it returns or throws.
    func time<T>(_ timer: Timer, _ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer { timer.recordInterval(since: start) }
        return try await body()
    }
}

extension Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
