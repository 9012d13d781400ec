import CinepackTime
import Foundation

/// What the first pass over a depth input decides, before anything is written: the stored
/// range, and for relative maps each frame's mapping to diopters (deflicker × calibration).
public struct DepthPlan: Sendable {
    public var range: DisparityQuantization
    /// Per frame: diopters = scale · working value + shift; nil when the values already are
    /// diopters.
    public var mapping: [(scale: Float, shift: Float)]?
    public var calibration: CalibrationReport?
    public var stabilization: StabilizationReport?

    /// Diopters for frame `index`; a calibrated value below 0 (beyond infinity, an
    /// extrapolation of the fit) becomes 0.
    public func diopters(_ working: [Float], frame index: Int) -> [Float] {
        guard let mapping else { return working }
        let (a, b) = mapping[index]
        return working.map { $0.isNaN ? .nan : max(0, a * $0 + b) }
    }

    /// The text stored under `metadataKey` in the movie-level metadata (spec/depth-input.md §5).
    public var metadataText: String? {
        guard let calibration else { return nil }
        var text = calibration.description
        if let stabilization { text += "; " + stabilization.description }
        return text
    }

    public static let metadataKey = "org.cinepack.input.depth-calibration"
}

extension DepthPlan {
    /// Whether `prepare` must read every frame once before writing.
    public static func needsFirstPass(_ options: DepthInputOptions) -> Bool {
        options.kind == .relativeDisparity || options.range == nil
    }

    /// The first pass: reads every frame once (in order, one at a time), and decides the range
    /// and, for relative maps, the deflicker and calibration. `detections` and `rate` resolve
    /// object and point anchors.
    public static func prepare(
        _ source: any DepthFrameSource, options: DepthInputOptions, detections: [FrameInput], rate: FrameRate?,
        progress: (Int, Int) -> Void = { _, _ in }
    ) throws(DepthInputError) -> DepthPlan {
        let converter = DepthConverter(options: options)
        let relative = options.kind == .relativeDisparity
        if relative && options.anchors.isEmpty {
            throw DepthInputError(file: source.name, .uncalibrated)
        }
        if !relative && !options.anchors.isEmpty {
            throw DepthInputError(file: source.name, .calibrationNeedsRelativeDisparity)
        }
        // Point anchors resolve to frames first, so a bad time fails before the long pass.
        var pointFrames: [Int: Int] = [:]
        for (i, anchor) in options.anchors.enumerated() {
            guard case .point(_, _, let time) = anchor.target else { continue }
            guard let rate else {
                throw DepthInputError(file: source.name, .calibration("\(anchor.label): the clip has no constant frame rate"))
            }
            let grid = FrameGrid(rate: rate, frameCount: Int64(source.frameCount))
            let resolved: SnappedTime? = try? time.resolve(on: grid)
            guard let snapped = resolved, snapped.frame >= 0, snapped.frame < Int64(source.frameCount) else {
                throw DepthInputError(
                    file: source.name, .calibration("\(anchor.label): \(time) is outside the clip (frames 0…\(source.frameCount - 1))"))
            }
            pointFrames[i] = Int(snapped.frame)
        }
        var proxies: [[Float]] = []
        var extremes: [(Float, Float)] = []
        var objectSamples: [Int: [(frame: Int, value: Float)]] = [:]
        var pointValues: [Int: Float] = [:]
        for t in 0..<source.frameCount {
            let raw = try source.read(t)
            let working = try converter.working(raw, file: source.file(t), index: t)
            let map = DisparityMap(width: raw.width, height: raw.height, values: working)
            var lo = Float.infinity, hi = -Float.infinity
            for v in working where !v.isNaN {
                lo = min(lo, v)
                hi = max(hi, v)
            }
            extremes.append((lo, hi))
            if relative {
                proxies.append(DepthStabilizer.proxy(working, width: raw.width, height: raw.height, cells: 32))
                for (i, anchor) in options.anchors.enumerated() {
                    switch anchor.target {
                    case .object(let id):
                        if t < detections.count, let d = detections[t].detections.first(where: { $0.id == id }),
                            let m = map.median(in: d.rect)
                        {
                            objectSamples[i, default: []].append((t, m))
                        }
                    case .point(let x, let y, _) where pointFrames[i] == t:
                        let px = min(raw.width - 1, Int(x * Float(raw.width))), py = min(raw.height - 1, Int(y * Float(raw.height)))
                        let box = NormalizedRect(
                            x: Float(max(0, px - 1)) / Float(raw.width), y: Float(max(0, py - 1)) / Float(raw.height),
                            width: 3 / Float(raw.width), height: 3 / Float(raw.height))
                        if let m = map.median(in: box) { pointValues[i] = m }
                    default: break
                    }
                }
            }
            progress(t + 1, source.frameCount)
        }
        guard relative else {
            let lo = extremes.map(\.0).min() ?? 0, hi = extremes.map(\.1).max() ?? 1
            if let range = options.range { return DepthPlan(range: range) }
            return DepthPlan(range: try autoRange(lo, hi, file: source.name))
        }
        let fits =
            options.stabilize
            ? DepthStabilizer.corrections(proxies) : Array(repeating: (scale: Float(1), shift: Float(0)), count: proxies.count)
        // Observations in the stabilized relative scale, each with the disparity it must become.
        var observations: [(label: String, value: Float, target: Float, metres: Float)] = []
        let pooled: [Float] =
            options.anchors.contains { $0.target == .near || $0.target == .far }
            ? zip(proxies, fits).flatMap { p, f in p.compactMap { $0.isNaN ? nil : f.scale * $0 + f.shift } }.sorted() : []
        for (i, anchor) in options.anchors.enumerated() {
            let value: Float
            switch anchor.target {
            case .object(let id):
                guard let samples = objectSamples[i], !samples.isEmpty else {
                    let seen = Set(detections.flatMap { $0.detections.map(\.id) }).sorted()
                    throw DepthInputError(file: source.name, .objectNotDetected(id: id, seen: seen))
                }
                let values = samples.map { fits[$0.frame].scale * $0.value + fits[$0.frame].shift }.sorted()
                value = values[values.count / 2]
            case .point:
                guard let v = pointValues[i], let frame = pointFrames[i] else {
                    throw DepthInputError(file: source.name, .calibration("\(anchor.label): no depth at that point"))
                }
                value = fits[frame].scale * v + fits[frame].shift
            case .near, .far:
                guard !pooled.isEmpty else { throw DepthInputError(file: source.name, .calibration("no depth to take percentiles of")) }
                let q = anchor.target == .near ? 0.98 : 0.02
                value = pooled[min(pooled.count - 1, Int(Double(pooled.count - 1) * q))]
            }
            observations.append((anchor.label, value, 1 / anchor.metres, anchor.metres))
        }
        let scale: Float, shift: Float
        if observations.count == 1 {
            guard observations[0].value > 0 else {
                throw DepthInputError(
                    file: source.name,
                    .calibration(
                        "one anchor fits a scale only, but the map's value there is \(observations[0].value) (not > 0); give a second anchor"
                    ))
            }
            scale = observations[0].target / observations[0].value
            shift = 0
        } else {
            guard
                let line = DepthStabilizer.weightedLine(
                    observations.map { (Double($0.value), Double($0.target)) }, Array(repeating: 1, count: observations.count))
            else {
                throw DepthInputError(
                    file: source.name, .calibration("the anchors sit at the same map value; they cannot fix a scale and shift"))
            }
            guard line.a > 0 else {
                throw DepthInputError(file: source.name, .anchorsInverted)
            }
            scale = Float(line.a)
            shift = Float(line.b)
        }
        var squares: Float = 0
        let anchors = observations.map { o -> CalibrationReport.Anchor in
            let d = scale * o.value + shift
            squares += (d - o.target) * (d - o.target)
            return .init(label: o.label, fittedMetres: d > 0 ? 1 / d : .infinity, metres: o.metres)
        }
        let report = CalibrationReport(
            scale: scale, shift: shift, anchors: anchors, rmsResidual: (squares / Float(observations.count)).squareRoot())
        let mapping = fits.map { (scale: scale * $0.scale, shift: scale * $0.shift + shift) }
        var stabilization: StabilizationReport?
        if options.stabilize, !fits.isEmpty {
            let scales = fits.map(\.scale).sorted()
            let shifts = fits.map(\.shift).sorted()
            let ms = scales[scales.count / 2], mo = shifts[shifts.count / 2]
            stabilization = StabilizationReport(
                scaleRatio: (scales.first! / ms)...(scales.last! / ms),
                shift: (scale * (shifts.first! - mo))...(scale * (shifts.last! - mo)))
        }
        var lo = Float.infinity, hi = -Float.infinity
        for (t, e) in extremes.enumerated() where e.0 <= e.1 {
            lo = min(lo, max(0, mapping[t].scale * e.0 + mapping[t].shift))
            hi = max(hi, max(0, mapping[t].scale * e.1 + mapping[t].shift))
        }
        var range: DisparityQuantization
        if let given = options.range { range = given } else { range = try autoRange(lo, hi, file: source.name) }
        return DepthPlan(range: range, mapping: mapping, calibration: report, stabilization: stabilization)
    }

    /// The data's range with 2 % of margin on each side (never below 0).
    static func autoRange(_ lo: Float, _ hi: Float, file: String) throws(DepthInputError) -> DisparityQuantization {
        guard lo.isFinite, hi.isFinite, hi >= lo else { throw DepthInputError(file: file, .noDepth) }
        let margin = max((hi - lo) * 0.02, max(hi, 1) * 1e-3)
        return DisparityQuantization(minimum: max(0, lo - margin), maximum: hi + margin)
    }
}
