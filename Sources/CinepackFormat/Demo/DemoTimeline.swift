/// The demo's metadata: who is detected where, the captured decisions and the focus they produce.

/// A subject of the demo scene and its detection tracks.
package struct DemoSubject: Sendable, Equatable {
    package struct Track: Sendable, Equatable {
        package var id: UInt32
        package var type: DetectionType
    }

    package var name: String
    /// 0 = no group.
    package var groupID: UInt32
    /// Diopters; the subject is flat.
    package var disparity: Float
    package var tracks: [Track]
}

/// A captured decision of the demo clip, with the rack transition that ends at it.
package struct DemoDecision: Sendable, Equatable {
    package var frame: Int
    /// Seconds (the frame's time).
    package var time: Double
    package var decision: CapturedDecision
    /// Disparity of the target, diopters.
    package var disparity: Float
    /// Start of the transition that arrives at `time`, seconds; nil when there is none (the first decision).
    package var transitionStart: Double?
}

extension DemoScene {
    package static let personA = DemoSubject(
        name: "person A", groupID: 1, disparity: 0.5,
        tracks: [.init(id: 1, type: .face), .init(id: 2, type: .head), .init(id: 3, type: .torso)])
    package static let personB = DemoSubject(
        name: "person B", groupID: 2, disparity: 1.2,
        tracks: [.init(id: 4, type: .face), .init(id: 5, type: .head), .init(id: 6, type: .torso)])
    package static let dog = DemoSubject(
        name: "dog", groupID: 3, disparity: 0.8, tracks: [.init(id: 7, type: .dogBody), .init(id: 8, type: .dogHead)])
    package static let ball = DemoSubject(name: "ball", groupID: 0, disparity: 2.0, tracks: [.init(id: 9, type: .sportsBall)])
    /// Far to near.
    package static let cast: [DemoSubject] = [personA, dog, personB, ball]

    /// The first decision, at frame 0: focus starts on person A's face.
    static let opening: (second: Double, target: UInt32, disparity: Float) = (0, 1, 0.5)
    /// The decisions of every cycle: (time within the cycle, target detection id, target disparity).
    static let plan: [(second: Double, target: UInt32, disparity: Float)] = [(2.2, 4, 1.2), (4.4, 1, 0.5), (6.6, 8, 0.8)]

    /// Every captured decision in the clip, in time order.
    package var decisions: [DemoDecision] {
        var result: [DemoDecision] = []
        var j = 0
        while let d = decision(j) {
            result.append(d)
            j += 1
        }
        return result
    }

    /// Decision number `j` of the unbounded schedule (0 is the opening one): its frame and entry.
    func scheduled(_ j: Int) -> (frame: Int, target: UInt32, disparity: Float) {
        guard j > 0 else { return (0, Self.opening.target, Self.opening.disparity) }
        let entry = Self.plan[(j - 1) % Self.plan.count]
        let cycle = (j - 1) / Self.plan.count
        // Snap to the frame grid: nearest frame, ties to the earlier one.
        let exact = entry.second * Double(options.framesPerSecond)
        let whole = exact.rounded(.down)
        let frame = Int(whole) + (exact - whole > 0.5 ? 1 : 0)
        return (cycle * cycleFrames + frame, entry.target, entry.disparity)
    }

    /// Decision number `j` (0-based over the whole clip), nil past the clip's end.
    func decision(_ j: Int) -> DemoDecision? {
        guard j >= 0 else { return nil }
        let entry = scheduled(j)
        guard entry.frame < frameCount else { return nil }
        let time = self.time(ofFrame: entry.frame)
        var start: Double?
        if j > 0 {
            let previous = scheduled(j - 1)
            let change = Double(abs(entry.disparity - previous.disparity))
            let duration = min(
                max(change / Double(parameters.maxDisparityRate), Double(parameters.minTransition)),
                Double(parameters.maxTransition))
            start = max(time - duration, self.time(ofFrame: previous.frame))
        }
        return DemoDecision(
            frame: entry.frame, time: time, decision: CapturedDecision(target: .detection(entry.target), isStrong: false),
            disparity: entry.disparity, transitionStart: start)
    }

    func focusPlan(_ index: Int) -> (focus: FocusState, decision: CapturedDecision?) {
        // The last scheduled decision at or before this frame.
        var j = max(0, (index / cycleFrames) * Self.plan.count - 1)
        while scheduled(j + 1).frame <= index { j += 1 }
        guard let last = decision(j) else { preconditionFailure("decision \(j) precedes frame \(index)") }
        var focus = FocusState(target: last.decision.target, focusDisparity: last.disparity, isStrong: last.decision.isStrong)
        if let next = decision(j + 1), let start = next.transitionStart {
            let t = time(ofFrame: index)
            // A frame exactly on the start (up to rounding of the seconds) begins the transition.
            if t >= start - 1e-9, index < next.frame {
                let progress = Float(max(0, (t - start) / (next.time - start)))
                focus = FocusState(
                    target: next.decision.target, focusDisparity: last.disparity + (next.disparity - last.disparity) * progress,
                    isStrong: next.decision.isStrong, inTransition: true, transitionProgress: progress)
            }
        }
        return (focus, last.frame == index ? last.decision : nil)
    }

    /// Detections of the visible subjects: boxes clipped to the frame; a box is dropped while less than
    /// 70 % of it is visible (outside the frame or behind a nearer subject), or while a nearer subject
    /// covers its centre within half a map pixel, or its own subject does not cover the centre.
    func detections(_ figures: [DemoFigure]) -> [Detection] {
        var result: [Detection] = []
        let halfU = 0.5 / Float(disparityWidth) * aspect, halfV = 0.5 / Float(disparityHeight)
        for (i, figure) in figures.enumerated() {
            let nearer = figures[(i + 1)...].filter { $0.disparity > figure.disparity }
            func hidden(_ x: Float, _ y: Float) -> Bool { nearer.contains { $0.distance(x, y) < 0 } }
            for box in figure.boxes {
                let lo = DemoPoint(max(box.min.x, 0), max(box.min.y, 0))
                let hi = DemoPoint(min(box.max.x, aspect), min(box.max.y, 1))
                guard hi.x > lo.x, hi.y > lo.y else { continue }
                let size = box.max - box.min
                let inFrame = (hi.x - lo.x) * (hi.y - lo.y) / (size.x * size.y)
                let n = 6
                var covered = 0
                for a in 0..<n {
                    for b in 0..<n {
                        let x = lo.x + (hi.x - lo.x) * (Float(a) + 0.5) / Float(n)
                        let y = lo.y + (hi.y - lo.y) * (Float(b) + 0.5) / Float(n)
                        if hidden(x, y) { covered += 1 }
                    }
                }
                let visible = inFrame * (1 - Float(covered) / Float(n * n))
                guard visible >= 0.7 else { continue }
                let c = (lo + hi) / 2
                guard figure.distance(c.x, c.y) < 0 else { continue }
                var centreHidden = false
                for dx: Float in [-halfU, 0, halfU] {
                    for dy: Float in [-halfV, 0, halfV] where hidden(c.x + dx, c.y + dy) { centreHidden = true }
                }
                guard !centreHidden else { continue }
                let confidence = min(max(box.confidence * (0.85 + 0.15 * visible), 0), 1)
                let rect = NormalizedRect(x: lo.x / aspect, y: lo.y, width: (hi.x - lo.x) / aspect, height: hi.y - lo.y)
                result.append(
                    Detection(
                        id: box.id, groupID: box.groupID, type: box.type, rect: clamped(rect),
                        disparity: figure.disparity, confidence: confidence))
            }
        }
        result.sort { $0.id < $1.id }
        return result
    }

    /// Guards against float rounding pushing x + width a hair past 1.
    private func clamped(_ r: NormalizedRect) -> NormalizedRect {
        let x = min(max(r.x, 0), 1), y = min(max(r.y, 0), 1)
        return NormalizedRect(x: x, y: y, width: min(r.width, 1 - x), height: min(r.height, 1 - y))
    }
}
