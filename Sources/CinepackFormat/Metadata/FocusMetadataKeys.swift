import CinepackContainer

// The keys of the focus-metadata track (spec/format.md §6.1), the `mebx` sample entry that declares
// them, and the map from a file's local ids back to keys.

extension Clause {
    /// spec/format.md clauses cited by the metadata layer.
    public static let focusMetadataKeys = "spec/format.md §6.1"
    public static let focusMetadataSample = "spec/format.md §6.2"
    public static let focusPayload = "spec/format.md §6.3"
    public static let decisionPayload = "spec/format.md §6.4"
    public static let scenePayload = "spec/format.md §6.5"
    public static let movieParameters = "spec/format.md §7"
}

/// A key of the focus-metadata track. Declaration order is the table order of §6.1, which is also
/// the order items are written in a sample and the order writers assign local ids.
public enum FocusMetadataKey: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case detections = "org.cinepack.detections"
    case focus = "org.cinepack.focus"
    case decision = "org.cinepack.decision"
    case fNumber = "org.cinepack.f-number"
    case scene = "org.cinepack.scene"

    /// The key's name in the `mdta` namespace.
    public var name: String { rawValue }
    public var description: String { rawValue }

    /// QTFF well-known data type: 0 raw, 23 big-endian f32, 77 big-endian u32.
    public var wellKnownType: UInt32 {
        switch self {
        case .detections, .focus, .decision: 0
        case .fNumber: 23
        case .scene: 77
        }
    }

    /// The local id a cinepack writer gives this key: table order, from 1.
    public var writerLocalID: UInt32 {
        switch self {
        case .detections: 1
        case .focus: 2
        case .decision: 3
        case .fNumber: 4
        case .scene: 5
        }
    }

    /// Keys every sample must carry (§6.2).
    public var isRequired: Bool { self == .detections || self == .focus }

    public init?(name: String) { self.init(rawValue: name) }
}

/// Which local id names which key, for one track. Readers look keys up by name (§6.1), so this map
/// is built from the file's own `keys` box rather than assumed.
public struct FocusMetadataKeyMap: Sendable, Equatable {
    /// Local id → key, for the keys this implementation knows. Other keys are left out: their
    /// items are skipped on decode.
    public private(set) var keysByLocalID: [UInt32: FocusMetadataKey]

    public init(_ keysByLocalID: [UInt32: FocusMetadataKey]) { self.keysByLocalID = keysByLocalID }

    /// Local id → key name, as a reader that kept names would have them. Unknown names are dropped.
    public init(names: [UInt32: String]) {
        keysByLocalID = names.compactMapValues { FocusMetadataKey(name: $0) }
    }

    /// The map a cinepack writer uses: local ids 1…5 in table order.
    public static let writer = FocusMetadataKeyMap(
        Dictionary(uniqueKeysWithValues: FocusMetadataKey.allCases.map { ($0.writerLocalID, $0) }))

    public subscript(localID: UInt32) -> FocusMetadataKey? { keysByLocalID[localID] }

    public func localID(of key: FocusMetadataKey) -> UInt32? { keysByLocalID.first { $0.value == key }?.key }

    /// Whether the track declares the keys every sample carries (detections and focus), which is
    /// what makes a `mebx` track a cinepack focus-metadata track (§3).
    public var hasRequiredKeys: Bool { FocusMetadataKey.allCases.filter(\.isRequired).allSatisfy { localID(of: $0) != nil } }

    /// From the keys a parsed track declares (`Track.metadataKeys`). Keys outside the `mdta`
    /// namespace or with names we do not know are ignored (forward compatibility). A known key
    /// declared twice, at a reserved local id, or with a different well-known type is an error:
    /// its payloads could not be read safely.
    public init(keys: [TimedMetadataKey]) throws(ContainerError) {
        try self.init(declarations: keys.map { ($0.localID, $0.namespace, $0.key, $0.dataType) })
    }

    /// From a parsed `mebx` sample-entry box (its `keys` child holds one box per local id).
    public init(sampleEntry mebx: Box) throws(ContainerError) {
        guard mebx.type == "mebx" else {
            throw .malformed(
                "sample entry is '\(mebx.type)', not 'mebx'", offset: mebx.header.offset, path: mebx.path,
                clause: Clause.focusMetadataKeys)
        }
        guard let keysBox = mebx.child("keys") else {
            throw .malformed(
                "mebx sample entry has no 'keys' box", offset: mebx.header.offset, path: mebx.path,
                clause: Clause.focusMetadataKeys)
        }
        var declarations: [(UInt32, FourCC, String, DataTypeBox?)] = []
        for box in keysBox.children {
            guard let keyd = box.child("keyd")?.content(as: KeyDeclarationBox.self) else { continue }
            declarations.append((box.type.rawValue, keyd.namespace, keyd.keyString, box.child("dtyp")?.content(as: DataTypeBox.self)))
        }
        try self.init(declarations: declarations)
    }

    private init(declarations: [(localID: UInt32, namespace: FourCC, key: String, dataType: DataTypeBox?)]) throws(ContainerError) {
        var map: [UInt32: FocusMetadataKey] = [:]
        for declaration in declarations {
            guard declaration.namespace == "mdta", let key = FocusMetadataKey(name: declaration.key) else { continue }
            guard declaration.localID != 0, declaration.localID != .max else {
                throw .malformed("key '\(key)' uses reserved local id \(declaration.localID)", clause: Clause.focusMetadataKeys)
            }
            if let other = map.first(where: { $0.value == key }) {
                throw .malformed(
                    "key '\(key)' is declared twice, as local ids \(other.key) and \(declaration.localID)",
                    clause: Clause.focusMetadataKeys)
            }
            // A `dtyp` that is absent or not a well-known type leaves the name to decide; a
            // contradicting well-known type does not.
            if let type = declaration.dataType?.wellKnownType, type != key.wellKnownType {
                throw .malformed(
                    "key '\(key)' (local id \(declaration.localID)) has well-known type \(type), expected \(key.wellKnownType)",
                    clause: Clause.focusMetadataKeys)
            }
            map[declaration.localID] = key
        }
        keysByLocalID = map
    }
}

/// The `mebx` sample entry of the focus-metadata track.
public enum FocusMetadataKeys {
    /// The whole `mebx` box (QTFF "Timed metadata sample descriptions"): 6 reserved bytes, data
    /// reference index 1, then `keys` with one box per key, typed by its local id, holding `keyd`
    /// (namespace `mdta` + name) and `dtyp` (namespace 0 + well-known type).
    public static func mebxSampleEntry(keys: [FocusMetadataKey] = FocusMetadataKey.allCases) -> [UInt8] {
        var w = ByteWriter()
        w.box("mebx") { w in
            w.zeros(6)
            w.u16(1)
            w.box("keys") { w in
                for key in keys {
                    w.box(FourCC(rawValue: key.writerLocalID)) { w in
                        w.bytes(KeyDeclarationBox(namespace: "mdta", value: Array(key.name.utf8)).serialized())
                        w.bytes(DataTypeBox(namespace: 0, type: bigEndianBytes(key.wellKnownType)).serialized())
                    }
                }
            }
        }
        return w.bytes
    }
}

func bigEndianBytes(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}
