import CinepackFormat
import Testing

/// The synthetic clip behind `cinepack demo`: determinism, agreement between picture, map and
/// metadata, and the timeline's promised events. Small pictures (320×180) keep it quick.
@Suite struct DemoSceneTests {
    static let options = DemoScene.Options(width: 320, height: 180, seconds: 6, framesPerSecond: 30, disparityScale: 4)

    static func scene() throws -> DemoScene { try DemoScene(options: options) }

    /// Frames spread over the events: start, ball away, B in front of A, A's rack, low light, end.
    static let sampleFrames = [0, 40, 83, 100, 145, 179]

    static func allMetadata(_ scene: DemoScene) -> [FrameMetadata] {
        (0..<scene.frameCount).map { scene.metadata($0) }
    }

    static func mapValue(_ frame: DemoFrame, x: Float, y: Float) -> Float {
        let u = min(frame.disparityWidth - 1, max(0, Int(x * Float(frame.disparityWidth))))
        let v = min(frame.disparityHeight - 1, max(0, Int(y * Float(frame.disparityHeight))))
        return frame.disparity[v * frame.disparityWidth + u]
    }

    static func luminance(_ image: PixelImage) -> Double {
        let s = image.samples8!
        var sum = 0.0
        for i in stride(from: 0, to: s.count, by: 3) {
            sum += 0.2126 * Double(s[i]) + 0.7152 * Double(s[i + 1]) + 0.0722 * Double(s[i + 2])
        }
        return sum / Double(image.pixelCount)
    }

    /// Runs of consecutive frame indices.
    static func runs(_ frames: [Int]) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        for f in frames {
            if let last = result.last, last.upperBound + 1 == f {
                result[result.count - 1] = last.lowerBound...f
            } else {
                result.append(f...f)
            }
        }
        return result
    }

    @Test func sizesAndCounts() throws {
        let scene = try Self.scene()
        #expect(scene.frameCount == 180)
        #expect(scene.disparityWidth == 80 && scene.disparityHeight == 45)
        #expect(scene.parameters.focalLength35mm == 26)
        #expect(scene.quantization.isValid)
        let frame = scene.frame(0)
        #expect(frame.picture.width == 320 && frame.picture.height == 180)
        #expect(frame.picture.layout == .rgb && frame.picture.bitDepth == 8)
        #expect(frame.disparity.count == 80 * 45)
        let odd = try DemoScene(options: .init(width: 322, height: 182, seconds: 0.5, framesPerSecond: 1, disparityScale: 4))
        #expect(odd.frameCount == 1)
        #expect(odd.disparityWidth == 81 && odd.disparityHeight == 46)
    }

    @Test func framesAreDeterministicAndRandomAccess() throws {
        let a = try Self.scene(), b = try Self.scene()
        for n in [145, 0, 83] {  // out of order on purpose
            let first = a.frame(n), again = a.frame(n), other = b.frame(n)
            #expect(first.picture == again.picture && first.picture == other.picture, "frame \(n) picture")
            #expect(first.disparity == again.disparity && first.disparity == other.disparity, "frame \(n) disparity")
            #expect(first.metadata == again.metadata && first.metadata == other.metadata, "frame \(n) metadata")
            #expect(first.metadata == a.metadata(n))
        }
        // The seed changes texture, never the timeline.
        var reseeded = Self.options
        reseeded.seed = 42
        let c = try DemoScene(options: reseeded)
        #expect(c.frame(0).picture != a.frame(0).picture)
        #expect(c.frame(0).disparity == a.frame(0).disparity)
        #expect(c.metadata(83) == a.metadata(83))
    }

    @Test func everyFrameHasFocusFNumberAndRects() throws {
        let scene = try Self.scene()
        let ids = Set(DemoScene.cast.flatMap { $0.tracks.map(\.id) })
        for (n, m) in Self.allMetadata(scene).enumerated() {
            #expect(m.fNumber == 4.5)
            let focus = try #require(m.focus)
            #expect(focus.focusDisparity >= scene.quantization.minimum && focus.focusDisparity <= scene.quantization.maximum)
            for d in m.detections {
                #expect(ids.contains(d.id), "frame \(n): unknown id \(d.id)")
                let r = d.rect
                #expect(
                    r.x >= 0 && r.y >= 0 && r.width > 0 && r.height > 0 && r.x + r.width <= 1 && r.y + r.height <= 1,
                    "frame \(n): detection \(d.id) rect \(r)")
                #expect(d.confidence > 0 && d.confidence <= 1)
                let subject = try #require(DemoScene.cast.first { $0.tracks.contains { $0.id == d.id } })
                #expect(d.disparity == subject.disparity && d.groupID == subject.groupID)
                #expect(subject.tracks.first { $0.id == d.id }?.type == d.type)
            }
        }
    }

    @Test func detectionsAgreeWithPictureAndMap() throws {
        let scene = try Self.scene()
        let step = scene.quantization.step
        var checked = 0
        for n in Self.sampleFrames {
            let frame = scene.frame(n)
            for d in frame.metadata.detections {
                let r = d.rect
                let centre = Self.mapValue(frame, x: r.centerX, y: r.centerY)
                #expect(
                    abs(centre - d.disparity) <= step, "frame \(n) detection \(d.id): map \(centre) at centre, detection \(d.disparity)")
                // Most of the box is the subject, in the map.
                let u0 = Int(r.x * Float(frame.disparityWidth)), u1 = Int((r.x + r.width) * Float(frame.disparityWidth))
                let v0 = Int(r.y * Float(frame.disparityHeight)), v1 = Int((r.y + r.height) * Float(frame.disparityHeight))
                var inside = 0, same = 0
                for v in v0..<min(v1 + 1, frame.disparityHeight) {
                    for u in u0..<min(u1 + 1, frame.disparityWidth) {
                        let x = (Float(u) + 0.5) / Float(frame.disparityWidth), y = (Float(v) + 0.5) / Float(frame.disparityHeight)
                        guard r.contains(x: x, y: y) else { continue }
                        inside += 1
                        if abs(frame.disparity[v * frame.disparityWidth + u] - d.disparity) <= step { same += 1 }
                    }
                }
                if inside >= 4 {
                    #expect(Double(same) >= 0.4 * Double(inside), "frame \(n) detection \(d.id): \(same) of \(inside) map pixels")
                }
                // Faces are skin at their centre in the picture.
                if d.type == .face {
                    let x = Int(r.centerX * 320), y = Int(r.centerY * 180)
                    let p = frame.picture.pixel(x: x, y: y)
                    #expect(p[0] > p[1] && p[1] > p[2], "frame \(n) face \(d.id) centre colour \(p)")
                }
                checked += 1
            }
        }
        #expect(checked > 30)
    }

    @Test func disparitiesStayInTheQuantizationRange() throws {
        let scene = try Self.scene()
        let q = scene.quantization
        for n in Self.sampleFrames {
            let frame = scene.frame(n)
            #expect(frame.disparity.allSatisfy { $0.isFinite && $0 >= q.minimum && $0 <= q.maximum }, "frame \(n)")
            // The map holds the far wall, the receding floor and the subjects.
            #expect(frame.disparity.contains(0.125))
            #expect(frame.disparity.max()! > 2)
        }
        for subject in DemoScene.cast {
            #expect(subject.disparity > q.minimum && subject.disparity < q.maximum)
        }
    }

    @Test func ballLeavesAndComesBackWithTheSameID() throws {
        let scene = try Self.scene()
        let metadata = Self.allMetadata(scene)
        let ballID = DemoScene.ball.tracks[0].id
        let absent = metadata.indices.filter { n in !metadata[n].detections.contains { $0.id == ballID } }
        let gaps = Self.runs(absent)
        let gap = try #require(gaps.first { $0.lowerBound > 0 && $0.upperBound < scene.frameCount - 1 })
        #expect(gap.count > 30, "ball away \(gap.count) frames: longer than 1 s")
        #expect(gap.count < 60)
        for n in gap {
            #expect(!metadata[n].detections.contains { $0.type == .sportsBall })
        }
        let before = try #require(metadata[gap.lowerBound - 1].detections.first { $0.id == ballID })
        let after = try #require(metadata[gap.upperBound + 1].detections.first { $0.id == ballID })
        #expect(before.type == .sportsBall && after.type == .sportsBall)
        // It leaves on the right and comes back from the right.
        #expect(before.rect.x + before.rect.width > 0.95 && after.rect.x + after.rect.width > 0.95)
        // Out of the picture: the map near the right edge, at the ball's height, is floor.
        let away = scene.frame((gap.lowerBound + gap.upperBound) / 2)
        #expect(Self.mapValue(away, x: 0.99, y: before.rect.centerY) < DemoScene.ball.disparity - 0.1)
    }

    @Test func personBOccludesPersonA() throws {
        let scene = try Self.scene()
        let metadata = Self.allMetadata(scene)
        let faceA = DemoScene.personA.tracks[0].id, faceB = DemoScene.personB.tracks[0].id
        let hidden = metadata.indices.filter { n in !metadata[n].detections.contains { $0.id == faceA } }
        let span = try #require(Self.runs(hidden).first)
        #expect(span.lowerBound > 0 && span.upperBound < scene.frameCount - 1)
        #expect(span.count >= 5 && span.count <= 30, "occlusion \(span) shorter than the 1 s an editor bridges")
        let lastSeen = try #require(metadata[span.lowerBound - 1].detections.first { $0.id == faceA })
        let middle = (span.lowerBound + span.upperBound) / 2
        // During it every detection of A is gone, B is seen, and A's place in the map shows B's disparity.
        for n in span {
            #expect(metadata[n].detections.contains { $0.id == faceB })
        }
        #expect(!metadata[middle].detections.contains { $0.groupID == DemoScene.personA.groupID })
        let frame = scene.frame(middle)
        #expect(Self.mapValue(frame, x: lastSeen.rect.centerX, y: lastSeen.rect.centerY) == DemoScene.personB.disparity)
        // Afterwards A is back with the same id.
        #expect(metadata[span.upperBound + 1].detections.contains { $0.id == faceA })
    }

    @Test func decisionsRackFocusAndArriveOnTheDecisionFrame() throws {
        let scene = try Self.scene()
        let metadata = Self.allMetadata(scene)
        let decided = metadata.indices.filter { metadata[$0].decision != nil }
        #expect(decided == [0, 66, 132])
        #expect(metadata[0].focus?.target == .detection(DemoScene.personA.tracks[0].id))
        #expect(metadata[0].focus?.inTransition == false)
        #expect(try checkTransitions(scene, metadata) == 2)
        // A decision after the clip (6.6 s) leaves no transition behind.
        #expect(metadata.last?.focus?.inTransition == false)
        #expect(metadata.last?.focus?.target == .detection(DemoScene.personA.tracks[0].id))
    }

    @Test func longerClipsRepeatTheCycle() throws {
        var options = Self.options
        options.seconds = 20
        options.framesPerSecond = 24
        let scene = try DemoScene(options: options)
        let metadata = Self.allMetadata(scene)
        // 0; 2.2, 4.4, 6.6; 10.2, 12.4, 14.6; 18.2 s, snapped to 24 fps (52.8 → 53, 105.6 → 106 …).
        #expect(metadata.indices.filter { metadata[$0].decision != nil } == [0, 53, 106, 158, 245, 298, 350, 437])
        #expect(try checkTransitions(scene, metadata) == 7)
        let times = scene.decisions.map(\.time)
        for (a, b) in zip(times, times.dropFirst()) { #expect(b - a > 2) }
        // The same picture content one cycle later.
        #expect(scene.metadata(10).detections == scene.metadata(10 + 8 * 24).detections)
    }

    /// Checks every decision after the first: focus arrives on its frame, after a linear rack whose
    /// length follows spec/focus.md §3.1 and which ends on that frame. Returns how many were checked.
    func checkTransitions(_ scene: DemoScene, _ metadata: [FrameMetadata]) throws -> Int {
        let fps = Double(scene.options.framesPerSecond)
        let decided = metadata.indices.filter { metadata[$0].decision != nil }
        #expect(decided == scene.decisions.map(\.frame))
        var transitions = 0
        for n in decided where n > 0 {
            let decision = try #require(metadata[n].decision)
            let focus = try #require(metadata[n].focus)
            #expect(!focus.inTransition && focus.target == decision.target)
            guard case .detection(let id) = decision.target else {
                Issue.record("target \(decision.target)")
                continue
            }
            let subject = try #require(DemoScene.cast.first { $0.tracks.contains { $0.id == id } })
            #expect(focus.focusDisparity == subject.disparity)
            // The transition: the in-transition frames right before the decision.
            var start = n
            while start > 0, metadata[start - 1].focus?.inTransition == true { start -= 1 }
            #expect(start < n, "no transition before decision at frame \(n)")
            let from = try #require(metadata[start - 1].focus).focusDisparity
            let listed = try #require(scene.decisions.first { $0.frame == n }?.transitionStart)
            let duration = Double(n) / fps - listed
            #expect(duration >= 1.0 / 3 - 1e-6 && duration <= 1 + 1e-6)
            let expected = min(max(Double(abs(subject.disparity - from)) / 0.5, 1.0 / 3), 1)
            #expect(abs(duration - expected) < 1e-6)
            #expect(n - start == Int((duration * fps + 1e-6).rounded(.down)), "transition frames \(start)..<\(n)")
            // Linear in disparity, towards the new target.
            for k in start..<n {
                let f = try #require(metadata[k].focus)
                #expect(f.target == decision.target && f.transitionProgress >= 0 && f.transitionProgress < 1)
                let progress = Float(max(0, (Double(k) / fps - listed) / duration))
                #expect(abs(f.transitionProgress - progress) < 1e-4)
                #expect(abs(f.focusDisparity - (from + (subject.disparity - from) * progress)) < 1e-4)
                #expect(metadata[k].decision == nil)
            }
            transitions += 1
        }
        return transitions
    }

    @Test func lowLightSpanIsFlaggedAndDarker() throws {
        let scene = try Self.scene()
        let metadata = Self.allMetadata(scene)
        let dark = metadata.indices.filter { metadata[$0].scene.contains(.notEnoughLight) }
        #expect(Self.runs(dark) == [138...152])
        let inside = Self.luminance(scene.frame(145).picture)
        let before = Self.luminance(scene.frame(130).picture)
        #expect(inside < 0.6 * before, "mean luminance \(inside) in low light, \(before) before")
    }

    @Test func brightHighlightsOnTheFarWall() throws {
        let scene = try Self.scene()
        for n in [0, 145] {  // the lights stay on when the room goes dark
            let frame = scene.frame(n)
            let s = frame.picture.samples8!
            var highlights = 0
            for y in 0..<180 {
                for x in 0..<320 where Self.mapValue(frame, x: (Float(x) + 0.5) / 320, y: (Float(y) + 0.5) / 180) == 0.125 {
                    let i = (y * 320 + x) * 3
                    if s[i] >= 250 && s[i + 1] >= 250 && s[i + 2] >= 250 { highlights += 1 }
                }
            }
            #expect(highlights >= 20, "frame \(n): \(highlights) highlight pixels")
        }
    }

    @Test func optionsAreValidated() {
        func options(_ w: Int = 320, _ h: Int = 180, s: Double = 6, fps: Int = 30, scale: Int = 4) -> DemoScene.Options {
            DemoScene.Options(width: w, height: h, seconds: s, framesPerSecond: fps, disparityScale: scale)
        }
        #expect(throws: DemoSceneError.size(width: 321, height: 180)) { try DemoScene(options: options(321)) }
        #expect(throws: DemoSceneError.size(width: 320, height: 181)) { try DemoScene(options: options(320, 181)) }
        #expect(throws: DemoSceneError.size(width: 62, height: 180)) { try DemoScene(options: options(62)) }
        #expect(throws: DemoSceneError.size(width: 7682, height: 180)) { try DemoScene(options: options(7682)) }
        #expect(throws: DemoSceneError.size(width: 320, height: 4322)) { try DemoScene(options: options(320, 4322)) }
        #expect(throws: DemoSceneError.duration(0.4)) { try DemoScene(options: options(s: 0.4)) }
        #expect(throws: DemoSceneError.duration(601)) { try DemoScene(options: options(s: 601)) }
        #expect(throws: DemoSceneError.self) { try DemoScene(options: options(s: .nan)) }
        #expect(throws: DemoSceneError.frameRate(0)) { try DemoScene(options: options(fps: 0)) }
        #expect(throws: DemoSceneError.frameRate(121)) { try DemoScene(options: options(fps: 121)) }
        #expect(throws: DemoSceneError.disparityScale(0)) { try DemoScene(options: options(scale: 0)) }
        #expect(throws: DemoSceneError.disparityScale(17)) { try DemoScene(options: options(scale: 17)) }
        #expect(throws: Never.self) { try DemoScene(options: options(64, 64, s: 0.5, fps: 1, scale: 16)) }
        #expect(throws: Never.self) { try DemoScene(options: options(7680, 4320, s: 600, fps: 120, scale: 1)) }
    }
}
