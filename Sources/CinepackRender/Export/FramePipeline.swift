import Dispatch

/// Overlaps the stages of a frame-by-frame export: while frame n renders on the calling thread
/// (the renderer itself uses every core), frame n + 1 is decoded and frame n − 1 is encoded and
/// written, each on a thread of its own. One frame waits at each stage, so memory stays bounded
/// by a few frames whatever the clip length; frames are written in order.
///
/// The first error of any stage stops the loop and is rethrown once the other stages have
/// finished touching their frames (so a caller can cancel its writer safely).
package enum FramePipeline {
    package static func run<Input, Output>(
        count: Int, read: @escaping (Int) throws -> Input, render: (Int, Input) throws -> Output,
        write: @escaping (Output) throws -> Void, rendered: (Int) -> Void = { _ in }
    ) throws {
        guard count > 0 else { return }
        let readQueue = DispatchQueue(label: "cinepack.pipeline.read")
        let writeQueue = DispatchQueue(label: "cinepack.pipeline.write")
        var pendingRead = Pending<Input>(on: readQueue) { try read(0) }
        var pendingWrite: Pending<Void>? = nil
        do {
            for n in 0..<count {
                let input = try pendingRead.value()
                if n + 1 < count { pendingRead = Pending(on: readQueue) { try read(n + 1) } }
                let output = try render(n, input)
                try pendingWrite?.value()
                pendingWrite = Pending(on: writeQueue) { try write(output) }
                rendered(n + 1)
            }
            try pendingWrite?.value()
        } catch {
            // Let in-flight stages finish before the caller cleans up after them.
            _ = try? pendingRead.value()
            _ = try? pendingWrite?.value()
            throw error
        }
    }
}

/// A value being computed on a queue; `value()` waits for it (and rethrows its error).
private final class Pending<T>: @unchecked Sendable {
    private let group = DispatchGroup()
    private var result: Result<T, Error>?

    init(on queue: DispatchQueue, _ work: @escaping () throws -> T) {
        group.enter()
        // The stages hand frames over through `value()` only, never share them while working.
        let job = UncheckedSendable(work)
        queue.async {
            self.result = Result { try job.value() }
            self.group.leave()
        }
    }

    func value() throws -> T {
        group.wait()
        return try result!.get()
    }
}

private struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
