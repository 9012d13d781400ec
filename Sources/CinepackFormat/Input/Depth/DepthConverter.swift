/// Turns a stored frame into working values: diopters for `--disparity` and `--depth`, the
/// model's own relative numbers (sign-flipped with `--invert`) for `--relative-disparity`.
/// NaN marks no depth. The rules are those of spec/depth-input.md §2.
package struct DepthConverter: Sendable {
    package var options: DepthInputOptions

    package init(options: DepthInputOptions) { self.options = options }

    package func working(_ frame: RawDepthFrame, file: String, index: Int) throws(DepthInputError) -> [Float] {
        func refuse(_ i: Int, _ v: Float, _ what: String) -> DepthInputError {
            DepthInputError(file: file, frame: index, .value("\(what) \(v) at pixel (\(i % frame.width), \(i / frame.width))"))
        }
        var out = [Float](repeating: .nan, count: frame.values.count)
        var valid = 0
        switch options.kind {
        case .disparity:
            if let maximum = frame.integerMaximum {
                // Codes on the declared range: 0 = no depth, 1…max linear (spec/format.md §5).
                guard let q = options.range else {
                    throw DepthInputError(
                        file: file, frame: index,
                        .needsCodeRange)
                }
                let span = q.maximum - q.minimum
                for (i, c) in frame.values.enumerated() where c > 0 {
                    out[i] = maximum == 65535 ? q.disparity(for: UInt16(c)) : q.minimum + (c - 1) / (maximum - 1) * span
                    valid += 1
                }
            } else {
                for (i, v) in frame.values.enumerated() where v.isFinite {
                    guard v >= 0 else { throw refuse(i, v, "negative disparity") }
                    out[i] = v
                    valid += 1
                }
            }
        case .depth:
            guard let scale = options.depthScale ?? (frame.integerMaximum == nil ? 1 : nil) else {
                throw DepthInputError(
                    file: file, frame: index,
                    .needsDepthScale)
            }
            for (i, v) in frame.values.enumerated() where v.isFinite && v != 0 {
                guard v > 0 else { throw refuse(i, v, "negative depth") }
                out[i] = scale / v
                valid += 1
            }
        case .relativeDisparity:
            let sign: Float = options.invert ? -1 : 1
            for (i, v) in frame.values.enumerated() where v.isFinite {
                out[i] = sign * v
                valid += 1
            }
        }
        guard valid > 0 else { throw DepthInputError(file: file, frame: index, .noDepth) }
        return out
    }
}
