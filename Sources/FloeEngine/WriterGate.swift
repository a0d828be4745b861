import Foundation
@_spi(Engine) import FloeStorage

/// Lets one write transaction at a time into a store; others wait their turn.
package final class WriterGate: @unchecked Sendable {
    // @unchecked: `busy` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var busy = false

    package func enter() {
        condition.lock()
        while busy { condition.wait() }
        busy = true
        condition.unlock()
    }

    package func leave() {
        condition.lock()
        busy = false
        condition.signal()
        condition.unlock()
    }
}
