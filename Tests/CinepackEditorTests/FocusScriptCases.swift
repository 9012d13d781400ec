import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackTime

/// The hand-computed cases of spec/focus.md, one per rule. Every table was worked out on paper from
/// the spec, at 10 fps with the default parameters: a change of Δ D racks for |Δ| / 0.5 s clamped to
/// [1/3 s, 1 s] and ends on the decision frame; p = (τ − start) / (t − start).
enum FocusCases {
    typealias F = FocusFixture
    static let a = FocusTarget.detection(1), b = FocusTarget.detection(2), c = FocusTarget.detection(3)
    static let fifths: [Float] = [0, 0.2, 0.4, 0.6, 0.8]
    static let tenths: [Float] = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    /// d = 0.5 + 0.5 p over ten frames (A → B in 1 s).
    static let aToB: [Float] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    /// d = 1.0 + 0.5 p (B → C in 1 s).
    static let bToC: [Float] = [1.0, 1.05, 1.1, 1.15, 1.2, 1.25, 1.3, 1.35, 1.4, 1.45]
    /// d = 1.0 − 0.5 p (B → A in 1 s).
    static let bToA: [Float] = [1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55]

    static let all: [FocusCase] = [
        // §3.1: Δ = 0.5 D → 1 s; the rack starts at 1.0 s (frame 10) and arrives at frame 20.
        FocusCase(
            name: "captured only: a 1 s rack ending on the decision frame",
            capture: F.capture(frames: 30, tracks: [F.a, F.b(0...29)], base: [(0, a), (20, b)]),
            expected: [.hold(0...9, a, 0.5), .rack(10...19, from: a, to: b, disparity: aToB, progress: tenths), .hold(20...29, b, 1.0)],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.captured, 1, at: 20)]),

        // §3.1: Δ = 0.1 D → 0.2 s, clamped up to 1/3 s: start 1.6667 s; frames 17, 18, 19 at p = .1, .4, .7.
        FocusCase(
            name: "small change: the transition is clamped to 1/3 s",
            capture: F.capture(
                frames: 30, tracks: [F.a, F.Track(id: 4, spans: [(0...29, .constant(0.6))])], base: [(0, a), (20, .detection(4))]),
            expected: [
                .hold(0...16, a, 0.5),
                .rack(17...19, from: a, to: .detection(4), disparity: [0.51, 0.54, 0.57], progress: [0.1, 0.4, 0.7]),
                .hold(20...29, .detection(4), 0.6),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.captured, 1, at: 20)]),

        // §3.1: Δ = 1.0 D → 2 s, clamped down to 1 s: d = 0.5 + p.
        FocusCase(
            name: "large change: the transition is clamped to 1 s",
            capture: F.capture(frames: 30, tracks: [F.a, F.c], base: [(0, a), (20, c)]),
            expected: [
                .hold(0...9, a, 0.5),
                .rack(10...19, from: a, to: c, disparity: [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4], progress: tenths),
                .hold(20...29, c, 1.5),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.captured, 1, at: 20)]),

        // §3.2: C at 2.6 s would start its 1 s rack at 1.6 s, before B's decision at 2.0 s: it starts at 2.0 s
        // instead (frame 20 itself is in transition at p = 0) and lasts 0.6 s; d = 1.0 + 0.5 p.
        FocusCase(
            name: "a transition that would start before the previous decision is clipped",
            capture: F.capture(frames: 36, tracks: [F.a, F.b(0...35), F.c], base: [(0, a), (20, b), (26, c)]),
            expected: [
                .hold(0...9, a, 0.5), .rack(10...19, from: a, to: b, disparity: aToB, progress: tenths),
                .rack(
                    20...25, from: b, to: c, disparity: [1.0, 1.083333, 1.166667, 1.25, 1.333333, 1.416667],
                    progress: [0, 0.166667, 0.333333, 0.5, 0.666667, 0.833333]),
                .hold(26...35, c, 1.5),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.captured, 1, at: 20), ListedDecision(.captured, 2, at: 26)]),

        // §3.3: subject 6 moves, d = 0.5 + 0.05 n; at frame 20 it is at 1.5 D, Δ = 1.0 → 1 s. During the rack
        // d = (1 − p)·0.5 + p·(0.5 + 0.05 n): frame 13 = 0.7·0.5 + 0.3·1.15 = 0.695, and so on.
        FocusCase(
            name: "a moving subject is tracked during the rack",
            capture: F.capture(
                frames: 30, tracks: [F.a, F.Track(id: 6, spans: [(0...29, F.Disparity(base: 0.5, perFrame: 0.05))])], base: [(0, a)]),
            edl: F.edl([F.user(20, .detection(6), .weak)]),
            expected: [
                .hold(0...9, a, 0.5),
                .rack(
                    10...19, from: a, to: .detection(6), disparity: [0.5, 0.555, 0.62, 0.695, 0.78, 0.875, 0.98, 1.095, 1.22, 1.355],
                    progress: tenths),
                .hold(20...29, .detection(6), 1.5, 1.55, 1.6, 1.65, 1.7, 1.75, 1.8, 1.85, 1.9, 1.95),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20)]),

        // §4.3, §2.1: B is missing for frames 20…27 (0.8 s ≤ 1 s): the track is bridged, 1.0 D holds, focus
        // stays; the base decision at 4.0 s is suppressed. B is seen to the last frame: never lost.
        FocusCase(
            name: "strong: stays on the subject through a 0.8 s gap",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...19, 28...59), F.c], base: [(0, a), (40, c)]),
            edl: F.edl([F.user(15, b, .strong)]),
            expected: [.hold(0...4, a, 0.5), .rack(5...14, from: a, to: b, disparity: aToB, progress: tenths), .hold(15...59, b, 1.0)],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15),
                ListedDecision(.captured, 1, at: 40, .strongUserDecision(0)),
            ]),

        // §2.1 edge: exactly 10 missing frames (1.0 s) is still bridged.
        FocusCase(
            name: "strong: a gap of exactly 1 s is bridged",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...19, 30...59)], base: [(0, a)]),
            edl: F.edl([F.user(15, b, .strong)]),
            expected: [.hold(0...4, a, 0.5), .rack(5...14, from: a, to: b, disparity: aToB, progress: tenths), .hold(15...59, b, 1.0)],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15)]),

        // §2.1 edge: 11 missing frames (1.1 s) end the track. Last seen at frame 19 → revert at 19 + 10 = 29 to
        // A (the latest base decision), a 1 s rack from 1.9 s: d = 1.0 − 0.5 p.
        FocusCase(
            name: "strong: a gap of 1.1 s ends the track",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...19, 31...59)], base: [(0, a)]),
            edl: F.edl([F.user(15, b, .strong)]),
            expected: [
                .hold(0...4, a, 0.5), .rack(5...14, from: a, to: b, disparity: aToB, progress: tenths), .hold(15...18, b, 1.0),
                .rack(19...28, from: b, to: a, disparity: bToA, progress: tenths), .hold(29...59, a, 0.5),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15), ListedDecision(.revert, 0, at: 29)]),

        // §4.5: B missing 20…34 (1.5 s): lost; revert at 29 to the latest base decision at or before it, C at
        // frame 25, although that one was suppressed. B coming back at 35 does not take focus back.
        FocusCase(
            name: "strong: lost after a 1.5 s gap, reverts to the latest base decision",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...19, 35...59), F.c], base: [(0, a), (25, c)]),
            edl: F.edl([F.user(15, b, .strong)]),
            expected: [
                .hold(0...4, a, 0.5), .rack(5...14, from: a, to: b, disparity: aToB, progress: tenths), .hold(15...18, b, 1.0),
                .rack(19...28, from: b, to: c, disparity: bToC, progress: tenths), .hold(29...59, c, 1.5),
            ],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15),
                ListedDecision(.captured, 1, at: 25, .strongUserDecision(0)),
                ListedDecision(.revert, 0, at: 29),
            ]),

        // §4.4: the base decision 2.5 s after the weak one takes focus back (rack from 3.0 s).
        FocusCase(
            name: "weak: taken back by a base decision 2.5 s later",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...59), F.c], base: [(0, a), (40, c)]),
            edl: F.edl([F.user(15, b, .weak)]),
            expected: [
                .hold(0...4, a, 0.5), .rack(5...14, from: a, to: b, disparity: aToB, progress: tenths), .hold(15...29, b, 1.0),
                .rack(30...39, from: b, to: c, disparity: bToC, progress: tenths), .hold(40...59, c, 1.5),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15), ListedDecision(.captured, 1, at: 40)]),

        // §4.4: 1.5 s later is inside the 2 s window: suppressed, and focus stays on B.
        FocusCase(
            name: "weak: not taken back by a base decision 1.5 s later",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...59), F.c], base: [(0, a), (30, c)]),
            edl: F.edl([F.user(15, b, .weak)]),
            expected: [.hold(0...4, a, 0.5), .rack(5...14, from: a, to: b, disparity: aToB, progress: tenths), .hold(15...59, b, 1.0)],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15),
                ListedDecision(.captured, 1, at: 30, .weakUserDecision(0)),
            ]),

        // §4.4 edge: exactly 2.0 s later (frame 35) is inside the window; the next one, at 5.0 s, takes focus back.
        FocusCase(
            name: "weak: the window includes its end (t + 2 s)",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...59), F.c], base: [(0, a), (35, c), (50, c)]),
            edl: F.edl([F.user(15, b, .weak)]),
            expected: [
                .hold(0...4, a, 0.5), .rack(5...14, from: a, to: b, disparity: aToB, progress: tenths), .hold(15...39, b, 1.0),
                .rack(40...49, from: b, to: c, disparity: bToC, progress: tenths), .hold(50...59, c, 1.5),
            ],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15),
                ListedDecision(.captured, 1, at: 35, .weakUserDecision(0)),
                ListedDecision(.captured, 2, at: 50),
            ]),

        // §4.4 edge: 2.1 s later (frame 36) is outside the window.
        FocusCase(
            name: "weak: one frame after the window a base decision takes focus back",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...59), F.c], base: [(0, a), (36, c)]),
            edl: F.edl([F.user(15, b, .weak)]),
            expected: [
                .hold(0...4, a, 0.5), .rack(5...14, from: a, to: b, disparity: aToB, progress: tenths), .hold(15...25, b, 1.0),
                .rack(26...35, from: b, to: c, disparity: bToC, progress: tenths), .hold(36...59, c, 1.5),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15), ListedDecision(.captured, 1, at: 36)]),

        // §4.4, §4.5: B is lost (last seen 24 → revert at 34, a 1 s rack from 2.4 s back to A). The window of
        // the weak decision no longer applies after the revert: C at 3.8 s takes effect, its rack clipped to
        // start at the revert (3.4 s, 0.4 s long): d = 0.5 + p.
        FocusCase(
            name: "weak: subject lost, then a base decision inside the window takes effect",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...24), F.c], base: [(0, a), (38, c)]),
            edl: F.edl([F.user(20, b, .weak)]),
            expected: [
                .hold(0...9, a, 0.5), .rack(10...19, from: a, to: b, disparity: aToB, progress: tenths), .hold(20...23, b, 1.0),
                .rack(24...33, from: b, to: a, disparity: bToA, progress: tenths),
                .rack(34...37, from: a, to: c, disparity: [0.5, 0.75, 1.0, 1.25], progress: [0, 0.25, 0.5, 0.75]),
                .hold(38...59, c, 1.5),
            ],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20), ListedDecision(.revert, 0, at: 34),
                ListedDecision(.captured, 1, at: 38),
            ]),

        // §4.1: a user decision on the frame of a base decision replaces it.
        FocusCase(
            name: "user and base decision on the same frame: the user wins",
            capture: F.capture(frames: 30, tracks: [F.a, F.b(0...29), F.c], base: [(0, a), (20, c)]),
            edl: F.edl([F.user(20, b, .weak)]),
            expected: [.hold(0...9, a, 0.5), .rack(10...19, from: a, to: b, disparity: aToB, progress: tenths), .hold(20...29, b, 1.0)],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20),
                ListedDecision(.captured, 1, at: 20, .replacedByUser(0)),
            ]),

        // §4.1: two user decisions on one frame: the later one in the EDL wins.
        FocusCase(
            name: "two user decisions on the same frame: the later one wins",
            capture: F.capture(frames: 30, tracks: [F.a, F.b(0...29), F.c], base: [(0, a)]),
            edl: F.edl([F.user(20, c, .strong), F.user(20, b, .weak)]),
            expected: [.hold(0...9, a, 0.5), .rack(10...19, from: a, to: b, disparity: aToB, progress: tenths), .hold(20...29, b, 1.0)],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 1, at: 20),
                ListedDecision(.user, 0, at: 20, .replacedByLaterUser(1)),
            ]),

        // §2.4: a fixed plane at 1.25 D: Δ = 0.75 → 1.5 s → 1 s, d = 0.5 + 0.75 p; strong, never lost.
        FocusCase(
            name: "fixed disparity target",
            capture: F.capture(frames: 60, tracks: [F.a, F.c], base: [(0, a), (40, c)]),
            edl: F.edl([F.user(20, .fixedDisparity(1.25), .strong)]),
            expected: [
                .hold(0...9, a, 0.5),
                .rack(
                    10...19, from: a, to: .fixedDisparity(1.25), disparity: [0.5, 0.575, 0.65, 0.725, 0.8, 0.875, 0.95, 1.025, 1.1, 1.175],
                    progress: tenths),
                .hold(20...59, .fixedDisparity(1.25), 1.25),
            ],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20),
                ListedDecision(.captured, 1, at: 40, .strongUserDecision(0)),
            ]),

        // §2.2: group 7 = detection 4 (confidence 0.9, 1.0 D, frames 0…29) and detection 5 (0.6; 1.2 D on
        // 20…39, 1.3 D on 46…59). The most confident member rules: 1.0 to frame 29, then 1.2; frames 40…45
        // have no member (bridged) and hold 1.2; then 1.3.
        FocusCase(
            name: "group target follows its most confident member and holds through gaps",
            capture: F.capture(
                frames: 60,
                tracks: [
                    F.a, F.Track(id: 4, group: 7, confidence: 0.9, spans: [(0...29, .constant(1.0))]),
                    F.Track(id: 5, group: 7, confidence: 0.6, spans: [(20...39, .constant(1.2)), (46...59, .constant(1.3))]),
                ],
                base: [(0, a)]),
            edl: F.edl([F.user(20, .group(7), .strong)]),
            expected: [
                .hold(0...9, a, 0.5), .rack(10...19, from: a, to: .group(7), disparity: aToB, progress: tenths),
                .hold(20...29, .group(7), 1.0), .hold(30...45, .group(7), 1.2), .hold(46...59, .group(7), 1.3),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20)]),

        // §2.5: the point (0.7, 0.2) is inside C's rect and inside detection 8's larger rect: the smaller wins.
        FocusCase(
            name: "point target resolves to the detection under it",
            capture: F.capture(
                frames: 30,
                tracks: [
                    F.a, F.c,
                    F.Track(id: 8, rect: NormalizedRect(x: 0.55, y: 0.05, width: 0.4, height: 0.8), spans: [(0...29, .constant(1.6))]),
                ],
                base: [(0, a)]),
            edl: F.edl([F.user(20, .point(x: 0.7, y: 0.2), .weak)]),
            expected: [
                .hold(0...9, a, 0.5),
                .rack(10...19, from: a, to: c, disparity: [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4], progress: tenths),
                .hold(20...29, c, 1.5),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20)]),

        // §2.5, §4.5: the point hits user track 1000000 (samples on 20…39, 0.80…0.99 D). Δ = 0.3 → 0.6 s
        // (start 1.4 s, the track's first disparity held before it starts). Last seen 39 → revert at 49 to A:
        // Δ = −0.49 → 0.98 s from 3.92 s, d = 0.99 − (τ − 3.92)/2.
        FocusCase(
            name: "point target resolves to a user custom track, which is then lost",
            capture: F.capture(frames: 60, tracks: [F.a, F.c], base: [(0, a)]),
            edl: F.edl(
                [F.user(20, .point(x: 0.5, y: 0.5), .strong)],
                tracks: [
                    UserDetectionTrack(
                        id: 1_000_000, kind: .custom,
                        samples: (20...39).map {
                            .init(
                                frame: Int64($0), rect: NormalizedRect(x: 0.4, y: 0.4, width: 0.2, height: 0.2),
                                disparity: 0.8 + 0.01 * Float($0 - 20))
                        })
                ]),
            expected: [
                .hold(0...13, a, 0.5),
                .rack(
                    14...19, from: a, to: .detection(1_000_000), disparity: [0.5, 0.55, 0.6, 0.65, 0.7, 0.75],
                    progress: [0, 0.166667, 0.333333, 0.5, 0.666667, 0.833333]),
                .hold(
                    20...39, .detection(1_000_000), 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.9, 0.91, 0.92, 0.93, 0.94,
                    0.95,
                    0.96, 0.97, 0.98, 0.99),
                .rack(
                    40...48, from: .detection(1_000_000), to: a, disparity: [0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55],
                    progress: [0.081633, 0.183673, 0.285714, 0.387755, 0.489796, 0.591837, 0.693878, 0.795918, 0.897959]),
                .hold(49...59, a, 0.5),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20), ListedDecision(.revert, 0, at: 49)]),

        // §2.5: a point on empty space with no user track there cannot be resolved: suppressed, no effect.
        FocusCase(
            name: "point target on nothing is suppressed",
            capture: F.capture(frames: 30, tracks: [F.a, F.c], base: [(0, a)]),
            edl: F.edl([F.user(20, .point(x: 0.5, y: 0.9), .strong)]),
            expected: [.hold(0...29, a, 0.5)],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20, .unresolvedPoint)]),

        // §2.4: B is not tracked at 5.0 s (last seen at 1.9 s): the user decision is suppressed.
        FocusCase(
            name: "a user decision on a subject that is gone is suppressed",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...19)], base: [(0, a)]),
            edl: F.edl([F.user(50, b, .strong)]),
            expected: [.hold(0...59, a, 0.5)],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 50, .targetNotTracked)]),

        // §3.5: a strong fixed plane at −0.5 s rules from the first frame (the base decision at 1.0 s is
        // suppressed); a decision at 6.5 s, past the last frame (59), racks from 5.5 s: d = 1.5 − 0.5 p.
        FocusCase(
            name: "decisions before the first frame and after the last",
            capture: F.capture(frames: 60, tracks: [F.a], base: [(10, a)]),
            edl: F.edl([F.user(-5, .fixedDisparity(1.5), .strong), F.user(65, .fixedDisparity(1.0), .weak)]),
            expected: [
                .hold(0...54, .fixedDisparity(1.5), 1.5),
                .rack(
                    55...59, from: .fixedDisparity(1.5), to: .fixedDisparity(1.0), disparity: [1.5, 1.45, 1.4, 1.35, 1.3],
                    progress: [0, 0.1, 0.2, 0.3, 0.4]),
            ],
            listed: [
                ListedDecision(.user, 0, at: -5), ListedDecision(.captured, 0, at: 10, .strongUserDecision(0)),
                ListedDecision(.user, 1, at: 65),
            ]),

        // §3.5, §4.5: no base decision at all. Before the user decision focus is on its target; B is lost (last
        // seen 19 → revert at 29) and, with no base decision, focus stays as a fixed plane at 1.0 D: Δ = 0 →
        // 1/3 s (frames 26, 27, 28 at p = .1, .4, .7).
        FocusCase(
            name: "revert without base decisions holds a fixed plane",
            capture: F.capture(frames: 40, tracks: [F.b(0...19)]),
            edl: F.edl([F.user(10, b, .strong)]),
            expected: [
                .hold(0...25, b, 1.0),
                .rack(26...28, from: b, to: .fixedDisparity(1.0), disparity: [1.0], progress: [0.1, 0.4, 0.7]),
                .hold(29...39, .fixedDisparity(1.0), 1.0),
            ],
            listed: [ListedDecision(.user, 0, at: 10), ListedDecision(.revert, 0, at: 29)]),

        // §3.1: per-decision bounds. max-transition 0.2 s (below the movie's 1/3 s minimum: max wins) → 0.2 s;
        // then min 0.5 / max 0.6 → 0.6 s for Δ = −0.5 (nominally 1 s).
        FocusCase(
            name: "transition bounds from the EDL",
            capture: F.capture(frames: 60, tracks: [F.a, F.b(0...59), F.c], base: [(0, a)]),
            edl: F.edl([F.user(20, c, .weak, max: 0.2), F.user(40, b, .weak, min: 0.5, max: 0.6)]),
            expected: [
                .hold(0...17, a, 0.5), .rack(18...19, from: a, to: c, disparity: [0.5, 1.0], progress: [0, 0.5]), .hold(20...33, c, 1.5),
                .rack(
                    34...39, from: c, to: b, disparity: [1.5, 1.416667, 1.333333, 1.25, 1.166667, 1.083333],
                    progress: [0, 0.166667, 0.333333, 0.5, 0.666667, 0.833333]),
                .hold(40...59, b, 1.0),
            ],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 20), ListedDecision(.user, 1, at: 40)]),

        // §1: every number comes from the movie's parameters (brisk: 1 D/s, 0.2…0.5 s, B = 5, W = 1 s). B is
        // missing 15…20 (6 frames > 5): last seen 14, revert at 14 + 5 = 19 to A. Racks: 0.5 D → 0.5 s;
        // C (Δ 1.0 D → 1 s) clamped to 0.5 s, from 2.0 s.
        FocusCase(
            name: "other parameters: faster racks, a shorter bridge",
            capture: F.capture(frames: 40, tracks: [F.a, F.b(0...14, 21...39), F.c], base: [(0, a), (25, c)], parameters: F.brisk),
            edl: F.edl([F.user(10, b, .weak)]),
            expected: [
                .hold(0...4, a, 0.5), .rack(5...9, from: a, to: b, disparity: [0.5, 0.6, 0.7, 0.8, 0.9], progress: fifths),
                .hold(10...13, b, 1.0), .rack(14...18, from: b, to: a, disparity: [1.0, 0.9, 0.8, 0.7, 0.6], progress: fifths),
                .hold(19...19, a, 0.5), .rack(20...24, from: a, to: c, disparity: [0.5, 0.7, 0.9, 1.1, 1.3], progress: fifths),
                .hold(25...39, c, 1.5),
            ],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 10), ListedDecision(.revert, 0, at: 19),
                ListedDecision(.captured, 1, at: 25),
            ]),

        // §4.4 with W = 1 s: a base decision 1.0 s after the weak one is suppressed, 1.1 s after takes effect.
        FocusCase(
            name: "other parameters: a 1 s weak window",
            capture: F.capture(frames: 30, tracks: [F.a, F.b(0...29), F.c], base: [(0, a), (20, c), (21, c)], parameters: F.brisk),
            edl: F.edl([F.user(10, b, .weak)]),
            expected: [
                .hold(0...4, a, 0.5), .rack(5...9, from: a, to: b, disparity: [0.5, 0.6, 0.7, 0.8, 0.9], progress: fifths),
                .hold(10...15, b, 1.0), .rack(16...20, from: b, to: c, disparity: [1.0, 1.1, 1.2, 1.3, 1.4], progress: fifths),
                .hold(21...29, c, 1.5),
            ],
            listed: [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 10),
                ListedDecision(.captured, 1, at: 20, .weakUserDecision(0)), ListedDecision(.captured, 2, at: 21),
            ]),

        // §2.3: no decision items: decisions are derived where the captured target changes outside a
        // transition (frames 0 and 20), and give the same focus as the captured states.
        FocusCase(
            name: "base decisions derived from captured focus states",
            capture: F.capture(
                frames: 30, tracks: [F.a, F.b(0...29)],
                focus: Dictionary(
                    uniqueKeysWithValues: (0..<30).map { n in
                        let state: FocusState
                        switch n {
                        case ..<10: state = FocusState(target: a, focusDisparity: 0.5)
                        case ..<20:
                            let p = Float(n - 10) / 10
                            state = FocusState(target: b, focusDisparity: 0.5 + 0.5 * p, inTransition: true, transitionProgress: p)
                        default: state = FocusState(target: b, focusDisparity: 1.0)
                        }
                        return (n, state)
                    })),
            expected: [.hold(0...9, a, 0.5), .rack(10...19, from: a, to: b, disparity: aToB, progress: tenths), .hold(20...29, b, 1.0)],
            listed: [ListedDecision(.captured, 0, at: 0), ListedDecision(.captured, 1, at: 20)]),

        // §3.4: nothing decides and nothing was captured: a fixed plane at 0 D.
        FocusCase(
            name: "no decisions and no captured focus: a plane at 0 D",
            capture: F.capture(frames: 10, tracks: [F.a]),
            expected: [.hold(0...9, .fixedDisparity(0), 0)],
            listed: []),

        // §3.4: no decision can be derived (every captured state is in transition): the captured focus as is,
        // frames without a state holding the previous one.
        FocusCase(
            name: "no decisions: the captured focus as recorded",
            capture: F.capture(
                frames: 8, tracks: [F.a],
                focus: Dictionary(
                    uniqueKeysWithValues: (0..<5).map {
                        (
                            $0,
                            FocusState(
                                target: a, focusDisparity: 0.5 + 0.1 * Float($0), inTransition: true, transitionProgress: 0.2 * Float($0))
                        )
                    })),
            expected: [
                .rack(0...4, from: a, to: a, disparity: [0.5, 0.6, 0.7, 0.8, 0.9], progress: [0, 0.2, 0.4, 0.6, 0.8]).captured,
                .hold(5...7, a, 0.9),
            ],
            listed: []),
    ]
}

extension FocusRun {
    /// The captured-focus mode reports no secondary target.
    var captured: FocusRun {
        var e = self
        e.secondary = nil
        return e
    }
}
