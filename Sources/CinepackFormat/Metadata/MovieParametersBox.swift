import CinepackContainer

/// What `moov/meta` says about a movie (spec/format.md §7).
public struct MovieParameters: Sendable, Equatable {
    /// The `org.cinepack.version` value; nil when absent (then the movie is not a cinepack file).
    public var version: String?
    /// Every key of §7, defaults where the file has none.
    public var parameters: CinematicParameters
    /// Items under keys this reader does not know, in file order, to be written back (§7, §9).
    public var otherItems: [MovieMetadataItem]

    public init(version: String?, parameters: CinematicParameters = CinematicParameters(), otherItems: [MovieMetadataItem] = []) {
        self.version = version
        self.parameters = parameters
        self.otherItems = otherItems
    }

    /// The major version: the digits before the first `.` of `version`; nil when absent or not a number.
    public var majorVersion: Int? {
        guard let version, let head = version.split(separator: ".", omittingEmptySubsequences: false).first,
            !head.isEmpty, head.allSatisfy(\.isASCII), head.allSatisfy(\.isNumber)
        else { return nil }
        return Int(head)
    }

    /// Whether this reader may read the movie: readers refuse a higher major version (§7).
    public var isSupportedVersion: Bool { majorVersion.map { $0 <= MovieParametersBox.supportedMajorVersion } ?? false }
}

/// One `ilst` item of a QuickTime `meta`: its key and its `data` values.
public struct MovieMetadataItem: Sendable, Equatable {
    public struct Value: Sendable, Equatable {
        /// QTFF well-known type (1 UTF-8, 23 f32 …); the high byte is the type set, 0 here.
        public var typeIndicator: UInt32
        public var locale: UInt32
        public var bytes: [UInt8]
        public init(typeIndicator: UInt32, locale: UInt32 = 0, bytes: [UInt8]) {
            self.typeIndicator = typeIndicator
            self.locale = locale
            self.bytes = bytes
        }
    }
    public var namespace: FourCC
    public var key: String
    public var values: [Value]

    public init(namespace: FourCC = "mdta", key: String, values: [Value]) {
        self.namespace = namespace
        self.key = key
        self.values = values
    }
}

/// Writes and reads `moov/meta`: QuickTime metadata (no version/flags) holding `hdlr` (`mdta`),
/// `keys` and `ilst`, each item a `data` box (type 23 = f32, 1 = UTF-8, locale 0).
public enum MovieParametersBox {
    public static let versionKey = "org.cinepack.version"
    /// The version this implementation writes.
    public static let currentVersion = "1"
    public static let supportedMajorVersion = 1
    static let typeUTF8: UInt32 = 1
    static let typeFloat32: UInt32 = 23

    /// The f32 keys of §7, in table order, with where each lives in `CinematicParameters`.
    public enum Field: String, CaseIterable, Sendable {
        case focalLength35mm = "org.cinepack.lens.focal-length-35mm"
        case defaultFNumber = "org.cinepack.aperture.default"
        case minFNumber = "org.cinepack.aperture.minimum"
        case maxFNumber = "org.cinepack.aperture.maximum"
        case maxDisparityRate = "org.cinepack.focus.max-disparity-rate"
        case minTransition = "org.cinepack.focus.min-transition"
        case maxTransition = "org.cinepack.focus.max-transition"
        case gapBridge = "org.cinepack.focus.gap-bridge"
        case weakSuppression = "org.cinepack.focus.weak-suppression"

        public var key: String { rawValue }

        // A switch rather than key paths: key paths are not Sendable in a static table.
        public func value(in p: CinematicParameters) -> Float {
            switch self {
            case .focalLength35mm: p.focalLength35mm
            case .defaultFNumber: p.defaultFNumber
            case .minFNumber: p.minFNumber
            case .maxFNumber: p.maxFNumber
            case .maxDisparityRate: p.maxDisparityRate
            case .minTransition: p.minTransition
            case .maxTransition: p.maxTransition
            case .gapBridge: p.gapBridge
            case .weakSuppression: p.weakSuppression
            }
        }

        public func set(_ value: Float, in p: inout CinematicParameters) {
            switch self {
            case .focalLength35mm: p.focalLength35mm = value
            case .defaultFNumber: p.defaultFNumber = value
            case .minFNumber: p.minFNumber = value
            case .maxFNumber: p.maxFNumber = value
            case .maxDisparityRate: p.maxDisparityRate = value
            case .minTransition: p.minTransition = value
            case .maxTransition: p.maxTransition = value
            case .gapBridge: p.gapBridge = value
            case .weakSuppression: p.weakSuppression = value
            }
        }

        /// Durations may be 0; lengths, f-numbers and rates may not.
        var mayBeZero: Bool { [.minTransition, .maxTransition, .gapBridge, .weakSuppression].contains(self) }
    }

    // MARK: Writing

    /// The whole `meta` box: the version, then every key of §7 in table order, then `preserving`
    /// (items under other keys read from the file, written back unchanged).
    public static func serialized(
        _ parameters: CinematicParameters, version: String = currentVersion,
        preserving other: [MovieMetadataItem] = []
    ) -> [UInt8] {
        var items: [MovieMetadataItem] = [
            MovieMetadataItem(key: versionKey, values: [.init(typeIndicator: typeUTF8, bytes: Array(version.utf8))])
        ]
        for field in Field.allCases {
            let bits = field.value(in: parameters).bitPattern
            items.append(MovieMetadataItem(key: field.key, values: [.init(typeIndicator: typeFloat32, bytes: bigEndianBytes(bits))]))
        }
        let ours = Set(items.map(\.key))
        items += other.filter { !($0.namespace == "mdta" && ours.contains($0.key)) }
        return serialized(items)
    }

    /// A QuickTime `meta` holding exactly `items` (keys numbered from 1 in this order).
    public static func serialized(_ items: [MovieMetadataItem]) -> [UInt8] {
        var w = ByteWriter()
        w.box("meta") { w in
            w.bytes(HandlerBox(handlerType: "mdta", name: "").serialized())
            w.box("keys") { w in
                w.fullBoxHeader(version: 0, flags: 0)
                w.u32(UInt32(items.count))
                for item in items {
                    let name = Array(item.key.utf8)
                    w.u32(UInt32(8 + name.count))
                    w.fourCC(item.namespace)
                    w.bytes(name)
                }
            }
            w.box("ilst") { w in
                for (index, item) in items.enumerated() {
                    // Item boxes are typed by the 1-based index of their key.
                    w.box(FourCC(rawValue: UInt32(index + 1))) { w in
                        for value in item.values {
                            w.box("data") { w in
                                w.u32(value.typeIndicator)
                                w.u32(value.locale)
                                w.bytes(value.bytes)
                            }
                        }
                    }
                }
            }
        }
        return w.bytes
    }

    // MARK: Reading

    /// The parameters of a movie: from its QuickTime `mdta` meta (the `meta` child of `moov`
    /// whose handler is `mdta`); all defaults and no version when there is none.
    public static func read(moov: Box) throws(ContainerError) -> MovieParameters {
        let metas = moov.children("meta").filter { $0.child("hdlr")?.content(as: HandlerBox.self)?.handlerType == "mdta" }
        // Another tool may have added its own mdta meta: prefer the one that holds our version key.
        let ours = metas.first { meta in
            meta.child("keys")?.content(as: MetadataKeysBox.self)?.keys.contains { $0.value == versionKey } ?? false
        }
        guard let meta = ours ?? metas.first else { return MovieParameters(version: nil) }
        return try read(meta)
    }

    /// Reads a parsed QuickTime `meta` box. Missing keys take their defaults; unknown keys are
    /// returned in `otherItems`; one of our keys with the wrong type, size or an impossible value
    /// is an error naming the key.
    public static func read(_ meta: Box) throws(ContainerError) -> MovieParameters {
        func fail(_ message: String, _ box: Box) -> ContainerError {
            .malformed(message, offset: box.header.offset, path: box.path, clause: Clause.movieParameters)
        }
        guard meta.type == "meta" else { throw fail("expected a 'meta' box, found '\(meta.type)'", meta) }
        guard let handler = meta.child("hdlr")?.content(as: HandlerBox.self), handler.handlerType == "mdta" else {
            throw fail("meta has no 'mdta' handler; movie parameters live in a QuickTime mdta meta", meta)
        }
        guard let keysBox = meta.child("keys") else {
            // Nothing declared: nothing of ours either.
            return MovieParameters(version: nil)
        }
        guard let keys = keysBox.content(as: MetadataKeysBox.self)?.keys else {
            throw fail("the 'keys' box could not be read, so the movie parameters cannot be found", keysBox)
        }

        // Key index → the first item naming it (QTFF: item box type = 1-based key index).
        var itemsByIndex: [Int: Box] = [:]
        for item in meta.child("ilst")?.children ?? [] {
            let index = Int(item.type.rawValue)
            guard index >= 1, index <= keys.count, itemsByIndex[index] == nil else { continue }
            itemsByIndex[index] = item
        }

        var result = MovieParameters(version: nil)
        var seen: Set<String> = []
        for (offset, key) in keys.enumerated() {
            guard let item = itemsByIndex[offset + 1] else { continue }
            let isOurs = key.namespace == "mdta" && (key.value == versionKey || Field(rawValue: key.value) != nil)
            guard isOurs else {
                let values = item.children("data").compactMap { $0.content(as: MetadataValueBox.self) }
                    .map { MovieMetadataItem.Value(typeIndicator: $0.typeIndicator, locale: $0.locale, bytes: $0.value) }
                result.otherItems.append(MovieMetadataItem(namespace: key.namespace, key: key.value, values: values))
                continue
            }
            guard seen.insert(key.value).inserted else { throw fail("key '\(key.value)' is declared twice", keysBox) }
            guard let dataBox = item.child("data"), let data = dataBox.content(as: MetadataValueBox.self) else {
                throw fail("'\(key.value)' has no readable 'data' value", item)
            }
            if key.value == versionKey {
                guard data.typeIndicator == typeUTF8 else {
                    throw fail("'\(key.value)' has data type \(data.typeIndicator), expected 1 (UTF-8)", dataBox)
                }
                guard let text = String(validating: data.value, as: UTF8.self), !text.isEmpty else {
                    throw fail("'\(key.value)' is not a non-empty UTF-8 string", dataBox)
                }
                result.version = text
            } else if let field = Field(rawValue: key.value) {
                guard data.typeIndicator == typeFloat32 else {
                    throw fail("'\(key.value)' has data type \(data.typeIndicator), expected 23 (big-endian f32)", dataBox)
                }
                guard data.value.count == 4 else {
                    throw fail("'\(key.value)' holds \(data.value.count) bytes; an f32 has 4", dataBox)
                }
                let value = Float(bitPattern: data.value.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                guard value.isFinite, value > 0 || (field.mayBeZero && value == 0) else {
                    throw fail("'\(key.value)' is \(value); it must be a finite number \(field.mayBeZero ? "≥ 0" : "> 0")", dataBox)
                }
                field.set(value, in: &result.parameters)
            }
        }
        let p = result.parameters
        guard p.minFNumber <= p.defaultFNumber, p.defaultFNumber <= p.maxFNumber else {
            throw fail("aperture default \(p.defaultFNumber) lies outside minimum \(p.minFNumber) … maximum \(p.maxFNumber)", meta)
        }
        guard p.minTransition <= p.maxTransition else {
            throw fail("focus min-transition \(p.minTransition) s is above max-transition \(p.maxTransition) s", meta)
        }
        return result
    }
}
