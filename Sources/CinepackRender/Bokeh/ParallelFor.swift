import Dispatch

/// Runs `body(i)` for `i` in `0..<count`: on all cores by default, on `threads` workers when given
/// (1 = sequential). Every iteration writes disjoint memory and computes the same values whatever
/// thread runs it, so results never depend on the number of threads.
func parallelFor(_ count: Int, threads: Int?, _ body: @Sendable (Int) -> Void) {
    guard count > 0 else { return }
    let workers = min(count, threads ?? Int.max)
    if workers <= 1 {
        for i in 0..<count { body(i) }
    } else if threads == nil {
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
    } else {
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var i = w
            while i < count {
                body(i)
                i += workers
            }
        }
    }
}

/// A raw pointer that crosses into the parallel loop. Each iteration touches its own part.
struct Shared<T>: @unchecked Sendable {
    let p: UnsafeMutablePointer<T>
    init(_ p: UnsafeMutablePointer<T>) { self.p = p }
}
