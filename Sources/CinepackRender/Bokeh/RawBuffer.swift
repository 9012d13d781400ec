#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one owner of the renderer's raw memory: `count` values of a plain type, allocated zeroed
/// (or left uninitialised when every value is written before it is read), freed in `deinit`.
/// Hot loops take `base` once and work on the pointer; the buffer must outlive them (a stored
/// property, or `withExtendedLifetime` around a local's use).
final class RawBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>
    let count: Int
    private let bytes: Int
    private let mapped: Bool

    /// Sets of this many bytes or more asked for with `largePages` are mapped directly and offered
    /// huge pages: the gathers read a dozen planes at once, and 4 KiB pages would cost a TLB miss
    /// per plane per row.
    static var largePageThreshold: Int { 4 << 20 }

    /// `count` values, zeroed unless `zeroed` is false; `largePages` for large sets read many rows
    /// at a time (mapped pages are zero from the start).
    init(count: Int, zeroed: Bool = true, largePages: Bool = false) {
        self.count = count
        let size = max(1, count) * MemoryLayout<Element>.stride
        bytes = size
        #if os(Linux)
            if largePages && size >= Self.largePageThreshold,
                let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), address != MAP_FAILED
            {
                _ = madvise(address, size, 14)  // MADV_HUGEPAGE; a hint, ignored where unsupported
                base = address.bindMemory(to: Element.self, capacity: max(1, count))
                mapped = true
                return
            }
        #endif
        guard let raw = zeroed ? calloc(max(1, count), MemoryLayout<Element>.stride) : malloc(size) else {
            fatalError("out of memory (\(size) bytes)")
        }
        base = raw.bindMemory(to: Element.self, capacity: max(1, count))
        mapped = false
    }

    /// `count` copies of `value`.
    convenience init(repeating value: Element, count: Int) {
        self.init(count: count, zeroed: false)
        base.initialize(repeating: value, count: count)
    }

    deinit {
        #if os(Linux)
            if mapped {
                munmap(base, bytes)
                return
            }
        #endif
        free(base)
    }

    @inline(__always) subscript(_ i: Int) -> Element {
        get { base[i] }
        set { base[i] = newValue }
    }

    /// Every value back to zero.
    func zero() {
        UnsafeMutableRawPointer(base).initializeMemory(as: UInt8.self, repeating: 0, count: count * MemoryLayout<Element>.stride)
    }

    /// `count` values from `start` back to zero.
    func zero(from start: Int, count n: Int) {
        UnsafeMutableRawPointer(base + start).initializeMemory(as: UInt8.self, repeating: 0, count: n * MemoryLayout<Element>.stride)
    }
}
