import Foundation

/// Lets one write transaction at a time into a store; others wait their turn.
final class WriterGate: @unchecked Sendable {
    // @unchecked: `busy` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var busy = false

    func enter() {
        condition.lock()
        while busy { condition.wait() }
        busy = true
        condition.unlock()
    }

    func leave() {
        condition.lock()
        busy = false
        condition.signal()
        condition.unlock()
    }
}
