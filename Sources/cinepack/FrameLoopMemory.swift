#if canImport(Glibc)
    import Glibc

    @_silgen_name("mallopt") private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif

/// Allocator tuning for commands that render frame after frame.
///
/// Every frame allocates and frees the same large buffers (pictures, disparity, working planes of
/// tens of MiB). glibc serves blocks that large with fresh `mmap`s and returns them on `free`, so
/// each frame pays again for faulting in and zeroing every page — about a tenth of a 1080p frame's
/// render time. Keeping freed memory in the process lets the next frame reuse it; peak memory is
/// unchanged (the same buffers, one frame's worth).
enum FrameLoopMemory {
    static func keepFreedMemory() {
        #if canImport(Glibc)
            _ = glibcMallopt(-3, 1 << 30)  // M_MMAP_THRESHOLD: large blocks from the heap, not mmap
            _ = glibcMallopt(-1, Int32.max)  // M_TRIM_THRESHOLD: never give the heap's top back
        #endif
    }
}
