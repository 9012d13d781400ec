/// One disparity map: diopters per pixel, row-major, NaN where there is no depth.
public struct DisparityMap: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var values: [Float]

    public init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height, "disparity map needs width × height values")
        self.width = width
        self.height = height
        self.values = values
    }

    public subscript(x: Int, y: Int) -> Float { values[y * width + x] }

    /// Disparity at a normalized point (nearest pixel), NaN outside.
    public func value(atNormalizedX x: Float, y: Float) -> Float {
        guard x >= 0, x <= 1, y >= 0, y <= 1 else { return .nan }
        let px = min(width - 1, Int(x * Float(width)))
        let py = min(height - 1, Int(y * Float(height)))
        return self[px, py]
    }

    /// Median of the valid values inside a normalized rectangle: a robust subject disparity.
    public func median(in rect: NormalizedRect) -> Float? {
        let x0 = max(0, Int((rect.x * Float(width)).rounded(.down)))
        let y0 = max(0, Int((rect.y * Float(height)).rounded(.down)))
        let x1 = min(width, Int(((rect.x + rect.width) * Float(width)).rounded(.up)))
        let y1 = min(height, Int(((rect.y + rect.height) * Float(height)).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return nil }
        var inside: [Float] = []
        inside.reserveCapacity((x1 - x0) * (y1 - y0))
        for y in y0..<y1 { for x in x0..<x1 where !self[x, y].isNaN { inside.append(self[x, y]) } }
        guard !inside.isEmpty else { return nil }
        inside.sort()
        return inside[inside.count / 2]
    }

    /// The 16-bit codes of spec/format.md §5. Values outside the range are refused, with the pixel.
    public func codes(_ q: DisparityQuantization) throws(FormatError) -> [UInt16] {
        var codes = [UInt16](repeating: 0, count: values.count)
        let tolerance = q.step / 2
        for (i, d) in values.enumerated() {
            if d.isNaN { continue }
            guard d.isFinite, d >= q.minimum - tolerance, d <= q.maximum + tolerance else {
                throw FormatError(
                    "disparity \(d) at pixel (\(i % width), \(i / width)) is outside the declared range \(q.minimum)…\(q.maximum) D")
            }
            codes[i] = q.code(for: d)
        }
        return codes
    }

    public init(codes: [UInt16], width: Int, height: Int, quantization q: DisparityQuantization) {
        self.init(width: width, height: height, values: codes.map { q.disparity(for: $0) })
    }
}
