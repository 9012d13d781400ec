/// How a box's size was written (ISO/IEC 14496-12 §4.2).
public enum BoxSizeEncoding: String, Sendable, Codable {
    case compact  // 32-bit size
    case large  // size == 1, 64-bit largesize follows the type
    case toEnd  // size == 0: extends to the end of the file
}

/// Where a box's bytes live: in the file itself, or inside the decompressed `cmov` payload.
public enum BoxOrigin: Sendable, Equatable {
    case file
    case compressedMovie
}

/// One parsed box header: type, position, sizes.
public struct BoxHeader: Sendable, Equatable {
    public var type: FourCC
    /// Absolute offset of the first byte of the box.
    public var offset: Int64
    public var headerSize: Int
    /// Total size including the header.
    public var size: Int64
    public var sizeEncoding: BoxSizeEncoding
    /// The extended type of a `uuid` box.
    public var userType: [UInt8]?

    public var payloadOffset: Int64 { offset + Int64(headerSize) }
    public var payloadSize: Int64 { size - Int64(headerSize) }
    public var end: Int64 { offset + size }
}

/// Parsed fields of a box the registry knows. `fields` are the key fields shown by `inspect --boxes`.
public protocol BoxContent: Sendable {
    var fields: [(String, InspectValue)] { get }
}

/// A node of the box tree. Leaves the registry does not know keep no bytes: the writer copies them
/// from the source on rewrite, byte for byte.
public struct Box: Sendable {
    public var header: BoxHeader
    public var path: String
    public var origin: BoxOrigin
    public var children: [Box]
    public var content: (any BoxContent)?
    /// Whether the registry knows this type (in this position).
    public var isKnown: Bool

    public var type: FourCC { header.type }

    public init(
        header: BoxHeader, path: String, origin: BoxOrigin = .file, children: [Box] = [],
        content: (any BoxContent)? = nil, isKnown: Bool = true
    ) {
        self.header = header
        self.path = path
        self.origin = origin
        self.children = children
        self.content = content
        self.isKnown = isKnown
    }

    /// The first child of a type.
    public func child(_ type: FourCC) -> Box? { children.first { $0.type == type } }

    public func children(_ type: FourCC) -> [Box] { children.filter { $0.type == type } }

    /// Follows a path of types, e.g. `["mdia", "minf", "stbl"]`, taking the first match at each step.
    public func descendant(_ types: [FourCC]) -> Box? {
        var node = self
        for type in types {
            guard let next = node.child(type) else { return nil }
            node = next
        }
        return node
    }

    public func content<T: BoxContent>(as type: T.Type) -> T? { content as? T }

    /// Depth-first visit of this box and everything below.
    public func forEach(_ body: (Box, Int) throws -> Void, depth: Int = 0) rethrows {
        try body(self, depth)
        for child in children { try child.forEach(body, depth: depth + 1) }
    }
}

/// The whole file: top-level boxes plus what the reader noticed on the way.
public struct BoxTree: Sendable {
    public var boxes: [Box]
    public var fileSize: Int64
    public var diagnostics: [Diagnostic]

    public func first(_ type: FourCC) -> Box? { boxes.first { $0.type == type } }
    public func all(_ type: FourCC) -> [Box] { boxes.filter { $0.type == type } }
}
