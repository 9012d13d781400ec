import Foundation

/// Set once when the task running long work is cancelled, read by that work's worker threads
/// (where `Task.isCancelled` does not see the task). Bridges Swift task cancellation to the
/// synchronous cores of pack and export.
package final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    package init() {}

    package var isSet: Bool { lock.withLock { value } }
    package func set() { lock.withLock { value = true } }

    /// Runs `body` with a check that turns true when the current task is cancelled.
    package static func running<T>(_ body: (@escaping @Sendable () -> Bool) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try body({ flag.isSet })
        } onCancel: {
            flag.set()
        }
    }
}
