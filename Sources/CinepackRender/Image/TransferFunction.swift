import CinepackFormat

/// A transfer function: how a code value (0…1) relates to linear light (0…1). The renderer
/// blurs in linear light, so it decodes with `toLinear` and encodes back with `fromLinear`, the
/// exact inverse, using the source's own transfer (spec/colour.md).
public enum TransferFunction: Sendable, Equatable, CustomStringConvertible {
    /// IEC 61966-2-1; also what an untagged picture is taken to be.
    case sRGB
    /// The BT.709 family (BT.709, BT.601, BT.2020 10/12-bit) decoded as displayed: the BT.1886
    /// reference display, a pure 2.4 power with black at 0.
    case bt1886
    /// A pure power law (`gamma22`, `gamma28` tags).
    case gamma(Float)
    /// SMPTE ST 2084 (BT.2100 PQ). Linear 1.0 is 10 000 cd/m², so 0.01 is 100 nits.
    case pq
    /// ARIB STD-B67 (BT.2100 HLG): scene light through the inverse OETF; the system gamma (OOTF)
    /// is left to the display.
    case hlg
    case linear

    /// The transfer of an ISO/IEC 23091-2 `TransferCharacteristics` code point; unspecified means
    /// sRGB (the behaviour for untagged pictures).
    public init(code: Int) throws(ColourModelError) {
        switch code {
        case 2, 13: self = .sRGB
        case 1, 6, 14, 15: self = .bt1886
        case 4: self = .gamma(2.2)
        case 5: self = .gamma(2.8)
        case 8: self = .linear
        case 16: self = .pq
        case 18: self = .hlg
        default: throw .unsupportedTransfer(code: code)
        }
    }

    public var description: String {
        switch self {
        case .sRGB: "sRGB"
        case .bt1886: "BT.1886 (BT.709 family)"
        case .gamma(let g): "gamma \(g)"
        case .pq: "PQ (SMPTE ST 2084)"
        case .hlg: "HLG (ARIB STD-B67, scene light)"
        case .linear: "linear"
        }
    }

    public func toLinear(_ v: Float) -> Float {
        switch self {
        case .sRGB: return SRGB.toLinear(v)
        case .bt1886: return v <= 0 ? 0 : _pow(v, 2.4)
        case .gamma(let g): return v <= 0 ? 0 : _pow(v, g)
        case .linear: return v
        case .pq:
            let e = _pow(max(v, 0), 1 / PQ.m2)
            return _pow(max(e - PQ.c1, 0) / (PQ.c2 - PQ.c3 * e), 1 / PQ.m1)
        case .hlg:
            if v <= 0.5 { return v * v / 3 }
            return (_exp((v - HLG.c) / HLG.a) + HLG.b) / 12
        }
    }

    public func fromLinear(_ l: Float) -> Float {
        let c = min(max(l, 0), 1)
        switch self {
        case .sRGB: return SRGB.fromLinear(c)
        case .bt1886: return _pow(c, 1 / 2.4)
        case .gamma(let g): return _pow(c, 1 / g)
        case .linear: return c
        case .pq:
            let y = _pow(c, PQ.m1)
            return _pow((PQ.c1 + PQ.c2 * y) / (1 + PQ.c3 * y), PQ.m2)
        case .hlg:
            if c <= 1.0 / 12 { return (3 * c).squareRoot() }
            return HLG.a * _log(12 * c - HLG.b) + HLG.c
        }
    }

    enum PQ {
        static let m1: Float = 2610.0 / 16384
        static let m2: Float = 2523.0 / 4096 * 128
        static let c1: Float = 3424.0 / 4096
        static let c2: Float = 2413.0 / 4096 * 32
        static let c3: Float = 2392.0 / 4096 * 32
    }

    enum HLG {
        static let a: Float = 0.178_832_77
        static let b: Float = 0.284_668_92
        static let c: Float = 0.559_910_73
    }
}

/// Why a picture's colour cannot be rendered faithfully.
public enum ColourModelError: Error, Equatable, Sendable, CustomStringConvertible {
    case unsupportedTransfer(code: Int)
    /// A colour-space conversion from primaries cinepack has no chromaticities for.
    case unsupportedPrimaries(code: Int)
    /// A colour-space conversion from primaries whose white point is not D65 (DCI-P3).
    case whitePointNotD65(code: Int)

    public var description: String {
        switch self {
        case .unsupportedTransfer(let code):
            "transfer characteristics \(code) (\(ColourDescription(primaries: 2, transfer: code, matrix: 2, fullRange: true).transferName)) are not supported; cinepack renders sRGB, BT.709/BT.1886, gamma 2.2/2.8, PQ, HLG and linear (spec/colour.md)"
        case .unsupportedPrimaries(let code):
            "colour primaries \(code) (\(ColourDescription(primaries: code, transfer: 2, matrix: 2, fullRange: true).primariesName)) cannot be converted: the colour-space conversion takes BT.709, BT.601, BT.2020 and Display P3 primaries (spec/colour.md §5)"
        case .whitePointNotD65(let code):
            "colour primaries \(code) (\(ColourDescription(primaries: code, transfer: 2, matrix: 2, fullRange: true).primariesName)) have a white point other than D65; the colour-space conversion works only between D65 colour spaces (spec/colour.md §5)"
        }
    }
}

@inline(__always) func _exp(_ a: Float) -> Float {
    #if canImport(Glibc)
        return Glibc.expf(a)
    #else
        return Darwin.expf(a)
    #endif
}

@inline(__always) func _log(_ a: Float) -> Float {
    #if canImport(Glibc)
        return Glibc.logf(a)
    #else
        return Darwin.logf(a)
    #endif
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
