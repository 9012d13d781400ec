import Dispatch

/// Runs `row(y)` for `y` in `0..<rows` on all cores. Each row writes only its own slice of `output`,
/// handed over as an unchecked-Sendable pointer (rows never overlap, so there is no data race).
func forEachRowInParallel(_ rows: Int, output: inout [Float], _ row: @Sendable (_ y: Int, _ output: SharedFloats) -> Void) {
    output.withUnsafeMutableBufferPointer { buffer in
        let shared = SharedFloats(buffer: buffer)
        DispatchQueue.concurrentPerform(iterations: rows) { y in row(y, shared) }
    }
}

/// A mutable float buffer shared by the rows of `forEachRowInParallel`, each writing its own part.
struct SharedFloats: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Float>
    subscript(i: Int) -> Float {
        get { buffer[i] }
        nonmutating set { buffer[i] = newValue }
    }
}
