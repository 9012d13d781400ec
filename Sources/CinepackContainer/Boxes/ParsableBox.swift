/// What a box parser may know about where it is.
public struct BoxParseContext: Sendable {
    /// Handler type of the enclosing track (`vide`, `soun`, `meta`, …), once `hdlr` has been read.
    public var handlerType: FourCC?
    public var parentType: FourCC?
    public var header: BoxHeader
    public var limits: ReaderLimits
}

/// A box whose payload the registry parses into a struct.
public protocol ParsableBox: BoxContent {
    static func parse(_ reader: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self
}

/// Caps that keep hostile files from costing unbounded memory or time.
public struct ReaderLimits: Sendable, Equatable {
    /// Deepest box nesting accepted (FFmpeg caps at 10; real QuickTime metadata needs a few more).
    public var maxDepth = 32
    /// Largest metadata box (`moov`, `moof`, …) read into memory.
    public var maxMetadataBoxSize: Int64 = 1 << 30
    /// Largest uncompressed size a `cmov` may claim.
    public var maxCompressedMovieSize: Int64 = 64 << 20
    /// Most boxes in one file (a flood of tiny boxes is a denial of service).
    public var maxBoxCount = 4_000_000

    public init() {}
    public static let `default` = ReaderLimits()
}

extension Array {
    /// Reserves no more than the box can actually hold, so a hostile count cannot make us
    /// allocate without bound (mp4parse-rust's fallible-allocation rule).
    init(boundedCapacity count: Int, available: Int, entrySize: Int) {
        self.init()
        reserveCapacity(Swift.max(0, Swift.min(count, available / Swift.max(1, entrySize))))
    }
}

extension ByteReader {
    /// Reads a u32 entry count and checks the box can hold that many entries of `entrySize` bytes.
    mutating func entryCount(entrySize: Int, clause: String, _ what: String = "entry_count") throws(ContainerError) -> Int {
        let at = absolutePosition
        let count = try u32(what)
        let needed = UInt64(count) * UInt64(entrySize)  // cannot overflow: < 2^32 * 2^32
        guard needed <= UInt64(remaining) else {
            throw ContainerError.malformed(
                "\(what) \(count) × \(entrySize) bytes = \(needed) bytes, but the box has only \(remaining) left",
                offset: at, path: path, clause: clause)
        }
        return Int(count)
    }
}
