import Foundation
import Testing

/// The trait that keeps blocking tests off the concurrency pool does what it says.
@Suite struct OwnThreadTests {
    @Test(.ownThread) func aSynchronousTestRunsOnAThreadOfItsOwn() {
        #expect(OwnThreadExecutor.currentTestName() == "aSynchronousTestRunsOnAThreadOfItsOwn()")
    }

    @Test(.ownThread) func anAsynchronousTestComesBackToItsThreadAfterAnAwait() async {
        await Task.yield()
        let name = await Task.detached { "elsewhere" }.value
        #expect(name == "elsewhere")
        #expect(testNameOfThisThread() == "anAsynchronousTestComesBackToItsThreadAfterAnAwait()")
    }

    @Test(.ownThread, arguments: [1, 2]) func eachCaseOfAParameterizedTestRunsOnAThreadOfItsOwn(value: Int) {
        #expect(OwnThreadExecutor.currentTestName() == "eachCaseOfAParameterizedTestRunsOnAThreadOfItsOwn(value:)")
        #expect(!Thread.isMainThread)
    }

    @Test func aTestWithoutTheTraitRunsOnThePool() {
        #expect(OwnThreadExecutor.currentTestName() == nil)
    }
}

/// `Thread.current` is unavailable in asynchronous code; a synchronous function may ask.
private func testNameOfThisThread() -> String? { OwnThreadExecutor.currentTestName() }

