/// Movie-level parameters (spec/format.md §7). Every number is stored in the file.
public struct CinematicParameters: Sendable, Equatable, Codable {
    /// 35 mm-equivalent focal length, millimetres.
    public var focalLength35mm: Float = 26
    public var defaultFNumber: Float = 4.5
    public var minFNumber: Float = 1.4
    public var maxFNumber: Float = 16
    /// Focus timing (spec/focus.md §3.1).
    public var maxDisparityRate: Float = 0.5  // diopters per second
    public var minTransition: Float = 1.0 / 3.0  // seconds
    public var maxTransition: Float = 1.0  // seconds
    public var gapBridge: Float = 1.0  // seconds
    public var weakSuppression: Float = 2.0  // seconds

    public init() {}
}

/// How disparity is quantized to 16 bits (spec/format.md §5): 0 marks an invalid pixel,
/// 1…65535 map linearly onto [minimum, maximum] diopters.
public struct DisparityQuantization: Sendable, Equatable, Codable {
    public var minimum: Float
    public var maximum: Float

    public init(minimum: Float, maximum: Float) {
        self.minimum = minimum
        self.maximum = maximum
    }

    public var isValid: Bool { minimum.isFinite && maximum.isFinite && maximum > minimum && minimum >= 0 }

    /// Quantized code for a disparity; nil for NaN (invalid). Values outside the range clamp.
    public func code(for disparity: Float) -> UInt16 {
        guard disparity.isFinite else { return 0 }
        let t = (disparity - minimum) / (maximum - minimum)
        let clamped = min(max(t, 0), 1)
        return UInt16(1 + (clamped * 65534).rounded())
    }

    /// Disparity for a code; NaN for 0 (invalid).
    public func disparity(for code: UInt16) -> Float {
        guard code != 0 else { return .nan }
        return minimum + Float(code - 1) / 65534 * (maximum - minimum)
    }

    /// Largest error quantization can introduce.
    public var step: Float { (maximum - minimum) / 65534 }
}
