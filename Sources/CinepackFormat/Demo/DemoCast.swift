import Foundation  // sin, cos (libm); no Foundation randomness or clocks are used.

/// The demo set: a pinhole camera 0.62 m above a wooden floor, looking at a brick wall 8 m away.
/// Every subject is a flat cut-out at one disparity standing on the floor, so the floor row under its
/// feet has the subject's disparity (the picture and the map agree about where things stand).
enum DemoWorld {
    /// Image row (scene units) of the horizon.
    static let horizonY: Float = 0.42
    /// Floor: disparity grows linearly below the horizon, reaching 2.2 D at the bottom of the frame.
    static let floorScale: Float = 0.58 / 2.2
    /// Size on screen, scene units, of one metre at one diopter (the focal length in frame heights).
    static let focalScale: Float = 0.4235
    /// The far wall, diopters (8 m).
    static let wallDisparity: Float = 0.125
    /// Row where the floor meets the wall.
    static let wallBaseY: Float = horizonY + floorScale * wallDisparity

    /// Disparity of the background (wall above `wallBaseY`, floor below) at row y.
    @inline(__always)
    static func backgroundDisparity(y: Float) -> Float {
        y < wallBaseY ? wallDisparity : (y - horizonY) / floorScale
    }

    /// Row where something at disparity `d` touches the floor.
    static func footY(_ d: Float) -> Float { horizonY + floorScale * d }
}

/// Per-scene texture keys derived from the seed.
struct DemoKeys: Sendable {
    var wall: UInt32
    var floor: UInt32
    var grain: UInt32
    var subjects: [UInt32]

    init(_ rng: inout DemoSplitMix64) {
        wall = rng.nextKey()
        floor = rng.nextKey()
        grain = rng.nextKey()
        subjects = (0..<4).map { _ in rng.nextKey() }
    }
}

/// Where everything is at a time of the 8-second cycle (DemoScene's timeline documentation).
enum DemoCast {
    static let personA = 0, personB = 1, dog = 2, ball = 3

    // Person B's walk: (cycle time s, normalized x of the feet), smoothstep between keys.
    static let personBKeys: [(Float, Float)] = [
        (0, 0.64), (2.0, 0.64), (2.6, 0.38), (2.9, 0.38), (3.5, 0.14), (5.2, 0.14), (7.2, 0.64), (8, 0.64),
    ]

    static let ballRadius: Float = 0.093
    static let ballBounce: Float = 0.10
    static let ballBouncePeriod: Float = 0.5

    /// Person A's feet, normalized x.
    static func personAX(_ t: Float) -> Float { 0.36 + 0.03 * sin(2 * .pi * t / 8) }

    /// Person B's feet, normalized x, and speed (normalized x per second).
    static func personBX(_ t: Float) -> (x: Float, speed: Float) {
        let keys = personBKeys
        for i in 1..<keys.count where t <= keys[i].0 {
            let (t0, x0) = keys[i - 1], (t1, x1) = keys[i]
            let s = min(max((t - t0) / (t1 - t0), 0), 1)
            let e = s * s * (3 - 2 * s)
            let de = 6 * s * (1 - s) / (t1 - t0)
            return (x0 + (x1 - x0) * e, (x1 - x0) * de)
        }
        return (keys[keys.count - 1].1, 0)
    }

    /// Ball centre normalized x (may be off screen), and its bounce height, scene units.
    static func ball(_ t: Float, aspect: Float) -> (x: Float, bounce: Float) {
        let off = 1 + ballRadius / aspect + 0.03
        func hop(_ s: Float) -> Float {
            let p = s / ballBouncePeriod
            let f = p - demoFloor(p)
            return 4 * f * (1 - f) * ballBounce
        }
        if t < 1.0 { return (0.52 + (off - 0.52) * t, hop(t)) }  // kicked right, leaves the frame
        if t < 2.4 { return (off, 0) }  // out of frame
        if t < 3.4 { return (off + (0.74 - off) * (t - 2.4), hop(t - 2.4)) }  // bounces back in
        return (0.74 + (0.52 - 0.74) * (t - 3.4) / 4.6, 0)  // rolls slowly back to the start
    }

    /// All subjects at cycle time `t`, far to near (drawing order).
    static func figures(at t: Float, aspect: Float, keys: DemoKeys) -> [DemoFigure] {
        [
            personA(t, aspect: aspect, key: keys.subjects[0]),
            dogFigure(t, aspect: aspect, key: keys.subjects[2]),
            personBFigure(t, aspect: aspect, key: keys.subjects[1]),
            ballFigure(t, aspect: aspect, key: keys.subjects[3]),
        ]
    }

    // MARK: People

    struct PersonStyle {
        var height: Float
        var headRadius: Float  // fraction of height
        var skin: DemoColour
        var hair: DemoColour
        var shirt: DemoColour
        var shirtAlt: DemoColour
        var stripePeriod: Float
        var horizontalStripes: Bool
        var trousers: DemoColour
        var shoes: DemoColour
        var groupID: UInt32
        var firstID: UInt32  // face; head and torso follow
    }

    static let styleA = PersonStyle(
        height: 0.36, headRadius: 0.068, skin: DemoColour(224, 172, 140), hair: DemoColour(62, 40, 28),
        shirt: DemoColour(178, 44, 52), shirtAlt: DemoColour(120, 26, 36), stripePeriod: 0.006, horizontalStripes: false,
        trousers: DemoColour(45, 50, 72), shoes: DemoColour(28, 26, 24), groupID: 1, firstID: 1)

    static let styleB = PersonStyle(
        height: 0.58, headRadius: 0.075, skin: DemoColour(168, 118, 88), hair: DemoColour(24, 20, 20),
        shirt: DemoColour(28, 138, 150), shirtAlt: DemoColour(236, 202, 64), stripePeriod: 0.018, horizontalStripes: true,
        trousers: DemoColour(62, 84, 132), shoes: DemoColour(232, 230, 222), groupID: 2, firstID: 4)

    static func personA(_ t: Float, aspect: Float, key: UInt32) -> DemoFigure {
        let x = personAX(t) * aspect
        let arm = 0.25 * sin(2 * .pi * t / 2)
        return person(
            styleA, subject: personA, disparity: 0.5, feet: DemoPoint(x, DemoWorld.footY(0.5)), arm: arm, leg: 0, t: t,
            key: key)
    }

    static func personBFigure(_ t: Float, aspect: Float, key: UInt32) -> DemoFigure {
        let (x, speed) = personBX(t)
        let walking = min(abs(speed) / 0.3, 1)
        let phase = x * aspect / 0.11 * 2 * .pi
        let swing = sin(phase) * walking
        return person(
            styleB, subject: personB, disparity: 1.2, feet: DemoPoint(x * aspect, DemoWorld.footY(1.2)), arm: -0.8 * swing,
            leg: swing, t: t, key: key)
    }

    static func person(
        _ s: PersonStyle, subject: Int, disparity: Float, feet: DemoPoint, arm: Float, leg: Float,
        t: Float, key: UInt32
    ) -> DemoFigure {
        let h = s.height, R = s.headRadius * h
        let top = feet.y - h
        let shoulderY = top + 2.23 * R + 0.015 * h
        let hipY = feet.y - 0.42 * h
        let fx = feet.x
        var parts: [DemoPart] = []
        let cloth = DemoPaint.flat(s.trousers, grain: 10, origin: feet, key: key)
        // Legs and shoes.
        for side: Float in [-1, 1] {
            let foot = DemoPoint(fx + side * 0.05 * h + side * leg * 0.07 * h, feet.y - 0.035 * h)
            parts.append(DemoPart(shape: .capsule(DemoPoint(fx + side * 0.05 * h, hipY), foot, 0.045 * h), paint: cloth))
            parts.append(
                DemoPart(
                    shape: .ellipse(DemoPoint(foot.x - 0.02 * h, feet.y - 0.022 * h), DemoPoint(0.055 * h, 0.022 * h)),
                    paint: .flat(s.shoes, grain: 6, origin: feet, key: key)))
        }
        // Torso.
        var shirt = DemoPaint(
            base: s.shirt, alt: s.shirtAlt, pattern: .stripes(horizontal: s.horizontalStripes), period: s.stripePeriod,
            origin: feet, grain: 8, key: key)
        let torsoHalf = DemoPoint(0.11 * h, (hipY - shoulderY) / 2)
        let torsoCentre = DemoPoint(fx, (hipY + shoulderY) / 2)
        parts.append(DemoPart(shape: .roundedRect(torsoCentre, torsoHalf, 0.04 * h), paint: shirt))
        // Arms (sleeves) and hands.
        shirt.grain = 10
        let skin = DemoPaint.flat(s.skin, grain: 5, origin: feet, key: key)
        for side: Float in [-1, 1] {
            let shoulder = DemoPoint(fx + side * 0.105 * h, shoulderY + 0.035 * h)
            let hand = DemoPoint(fx + side * 0.135 * h + arm * 0.05 * h, hipY + 0.02 * h)
            parts.append(DemoPart(shape: .capsule(shoulder, hand, 0.032 * h), paint: shirt))
            parts.append(DemoPart(shape: .circle(DemoPoint(hand.x, hand.y + 0.03 * h), 0.028 * h), paint: skin))
        }
        // Neck, hair, face, eyes, mouth.
        parts.append(DemoPart(shape: .capsule(DemoPoint(fx, top + 2.0 * R), DemoPoint(fx, shoulderY + 0.01 * h), 0.035 * h), paint: skin))
        parts.append(DemoPart(shape: .circle(DemoPoint(fx, top + R), R), paint: .flat(s.hair, grain: 12, origin: feet, key: key)))
        let faceCentre = DemoPoint(fx, top + 1.28 * R)
        parts.append(DemoPart(shape: .ellipse(faceCentre, DemoPoint(0.82 * R, 0.95 * R)), paint: skin))
        let dark = DemoPaint.flat(DemoColour(30, 22, 20))
        for side: Float in [-1, 1] {
            parts.append(
                DemoPart(shape: .ellipse(DemoPoint(fx + side * 0.33 * R, top + 1.25 * R), DemoPoint(0.11 * R, 0.13 * R)), paint: dark))
        }
        parts.append(
            DemoPart(
                shape: .ellipse(DemoPoint(fx, top + 1.78 * R), DemoPoint(0.28 * R, 0.07 * R)),
                paint: .flat(DemoColour(150, 60, 60))))

        let wobble = 0.02 * sin(2 * .pi * t * 3 / 8 + Float(subject))  // periodic over the cycle
        let boxes = [
            DemoBox(
                id: s.firstID, groupID: s.groupID, type: .face, min: DemoPoint(fx - 0.82 * R, top + 0.55 * R),
                max: DemoPoint(fx + 0.82 * R, top + 2.23 * R), confidence: 0.95 + wobble),
            DemoBox(
                id: s.firstID + 1, groupID: s.groupID, type: .head, min: DemoPoint(fx - R, top), max: DemoPoint(fx + R, top + 2.23 * R),
                confidence: 0.97 + wobble / 2),
            DemoBox(
                id: s.firstID + 2, groupID: s.groupID, type: .torso, min: torsoCentre - torsoHalf, max: torsoCentre + torsoHalf,
                confidence: 0.90 - wobble),
        ]
        return DemoFigure(subject: subject, disparity: disparity, parts: parts, boxes: boxes)
    }

    // MARK: Dog

    static func dogFigure(_ t: Float, aspect: Float, key: UInt32) -> DemoFigure {
        let d: Float = 0.8
        let s: Float = 0.158
        let o = DemoPoint(0.83 * aspect, DemoWorld.footY(d))
        func p(_ x: Float, _ y: Float) -> DemoPoint { DemoPoint(o.x + x * s, o.y + y * s) }
        let bob = 0.04 * sin(2 * .pi * t / 1.6)
        let wag = sin(2 * .pi * t / 0.4)
        let fur = DemoPaint.flat(DemoColour(190, 140, 80), grain: 14, origin: o, key: key)
        let farFur = DemoPaint.flat(DemoColour(150, 108, 60), grain: 12, origin: o, key: key)
        let darkFur = DemoPaint.flat(DemoColour(105, 70, 38), grain: 12, origin: o, key: key)
        var parts: [DemoPart] = []
        for x: Float in [0.45, -0.40] {  // far legs
            parts.append(DemoPart(shape: .capsule(p(x, -0.45), p(x + 0.03, -0.05), 0.07 * s), paint: farFur))
        }
        parts.append(DemoPart(shape: .capsule(p(0.66, -0.62), p(0.95 + 0.08 * wag, -0.95), 0.05 * s), paint: fur))  // tail
        parts.append(DemoPart(shape: .ellipse(p(0, -0.56), DemoPoint(0.72 * s, 0.26 * s)), paint: fur))  // body
        parts.append(DemoPart(shape: .ellipse(p(0.12, -0.70), DemoPoint(0.32 * s, 0.11 * s)), paint: darkFur))  // saddle
        for x: Float in [0.52, -0.48] {  // near legs
            parts.append(DemoPart(shape: .capsule(p(x, -0.45), p(x - 0.02, -0.05), 0.075 * s), paint: fur))
        }
        parts.append(DemoPart(shape: .capsule(p(-0.50, -0.62), p(-0.72, -0.90 + bob), 0.14 * s), paint: fur))  // neck
        parts.append(DemoPart(shape: .ellipse(p(-0.80, -0.98 + bob), DemoPoint(0.22 * s, 0.20 * s)), paint: fur))  // head
        parts.append(
            DemoPart(
                shape: .ellipse(p(-1.02, -0.90 + bob), DemoPoint(0.15 * s, 0.09 * s)),
                paint: .flat(DemoColour(215, 180, 130), grain: 8, origin: o, key: key)))  // snout
        parts.append(DemoPart(shape: .ellipse(p(-0.68, -0.99 + bob), DemoPoint(0.07 * s, 0.15 * s)), paint: darkFur))  // ear
        parts.append(DemoPart(shape: .circle(p(-0.88, -1.03 + bob), 0.03 * s), paint: .flat(DemoColour(20, 14, 10))))  // eye
        parts.append(DemoPart(shape: .circle(p(-1.15, -0.93 + bob), 0.035 * s), paint: .flat(DemoColour(15, 12, 10))))  // nose
        let boxes = [
            DemoBox(id: 7, groupID: 3, type: .dogBody, min: p(-0.72, -0.82), max: p(0.72, -0.30), confidence: 0.88),
            DemoBox(id: 8, groupID: 3, type: .dogHead, min: p(-1.17, -1.18 + bob), max: p(-0.58, -0.81 + bob), confidence: 0.86),
        ]
        return DemoFigure(subject: dog, disparity: d, parts: parts, boxes: boxes)
    }

    // MARK: Ball

    static func ballFigure(_ t: Float, aspect: Float, key: UInt32) -> DemoFigure {
        let d: Float = 2.0
        let (x, bounce) = ball(t, aspect: aspect)
        let r = ballRadius
        let c = DemoPoint(x * aspect, DemoWorld.footY(d) - r - bounce)
        let spin = x * aspect / r  // rolls without slipping
        let paint = DemoPaint(
            base: DemoColour(244, 242, 236), alt: DemoColour(214, 40, 40), pattern: .ball(cos: cos(spin), sin: sin(spin)),
            period: r, origin: c, grain: 4, key: key)
        let boxes = [DemoBox(id: 9, groupID: 0, type: .sportsBall, min: c - DemoPoint(r, r), max: c + DemoPoint(r, r), confidence: 0.9)]
        return DemoFigure(subject: ball, disparity: d, parts: [DemoPart(shape: .circle(c, r), paint: paint)], boxes: boxes)
    }
}
