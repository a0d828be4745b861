import Foundation
import Floe

/// The model the group-commit crash mode writes: one object per acknowledged write.
final class GroupCommitEntry: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var writer = 0
}

/// `group <path> <writers>`: opens the realm with durability `.full`, prints `READY <count>`,
/// then runs `writers` tasks that each await one-object writes in a loop, printing `ACK <id>`
/// after each write returns (so only after its group's sync), until killed.
enum GroupCommitChild {
    static func run(path: String, writers: Int, parent: pid_t) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let status = ExitStatus()
        Task.detached {
            do {
                let realm = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                               objectTypes: [GroupCommitEntry.self]))
                let start = try await realm.read { realm in (realm.objects(GroupCommitEntry.self).map(\.id).max() ?? 0) + 1 }
                ChildCommand.say("READY \(start - 1)")
                await withTaskGroup(of: Void.self) { group in
                    for writer in 0..<writers {
                        group.addTask {
                            var id = start + writer
                            while getppid() == parent {
                                do {
                                    try await realm.asyncWrite { realm in
                                        try realm.create(GroupCommitEntry.self, value: ["id": id, "writer": writer])
                                    }
                                } catch {
                                    ChildCommand.fail("write \(id): \(error)")
                                }
                                ChildCommand.say("ACK \(id)")
                                id += writers
                            }
                        }
                    }
                }
            } catch {
                ChildCommand.say("FloeCrashChild: \(error)", to: STDERR_FILENO)
                status.set(3)
            }
            done.signal()
        }
        done.wait()
        return status.value
    }
}

/// The child's exit status, set from the task that runs it.
final class ExitStatus: @unchecked Sendable {
    // @unchecked: `code` is only touched with `lock` held.
    private var code: Int32 = 0
    private let lock = NSLock()

    func set(_ value: Int32) {
        lock.lock()
        code = value
        lock.unlock()
    }

    var value: Int32 {
        lock.lock()
        defer { lock.unlock() }
        return code
    }
}
