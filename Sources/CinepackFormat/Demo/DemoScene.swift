/// A deterministic synthetic cinematic clip, made from nothing but code: the content behind
/// `cinepack demo`. Every frame is a pure function of its index (no state, no clock, no system
/// randomness), so frames can be rendered in any order, on any thread, and always come out the same.
///
/// ## The set
/// A pinhole camera 0.62 m above a wooden floor looks at a brick wall 8 m away (0.125 D). The floor
/// recedes from 2.2 D at the bottom of the frame to the wall's 0.125 D where it meets the wall
/// (`0.42 + 0.2636·d` is the row where disparity `d` touches the floor). Two strings of small lights
/// hang on the wall: near-white cores (every channel ≥ 250) with coloured glows, for bokeh. The wall
/// (bricks, mortar, grain) and the floor (planks, seams, board joints, grain) carry fine texture.
/// The map has no invalid (NaN) pixels.
///
/// ## The cast (ids are detection track ids; all subjects are flat, each at one disparity)
/// | subject | group | detections (id: type) | disparity |
/// |---|---|---|---|
/// | person A, adult, red jacket | 1 | 1 face, 2 head, 3 torso | 0.5 D (2 m) |
/// | dog, facing left | 3 | 7 dog body, 8 dog head | 0.8 D |
/// | person B, child, striped shirt | 2 | 4 face, 5 head, 6 torso | 1.2 D |
/// | ball | 0 (none) | 9 sports ball | 2.0 D (0.5 m) |
///
/// ## The timeline: an 8-second cycle, repeated for longer clips (times are within the cycle)
/// - Person A stands left of centre, swaying slowly (x = 0.36 ± 0.03), always in frame.
/// - The dog stands on the right (x ≈ 0.83), head bobbing, tail wagging; always in frame.
/// - The ball is kicked right at 0 s, bouncing, and **leaves the frame** on the right; it bounces back
///   in from the right from 2.4 s, then rolls slowly back to its start. Its detection (id 9) is dropped
///   once less than 70 % of its box is in the frame: at 16:9 there is no detection of id 9 from 0.83 s
///   to 2.7 s (frames 25…81 at 30 fps: about 1.9 s), then it comes back with the **same id 9**. The gap
///   is longer than the 1 s an editor bridges, so an editor sees a new appearance of track 9.
/// - Person B walks left from 2.0 s, **stops in front of person A** (2.6–2.9 s), walks on to the left
///   edge (3.5 s), waits, and walks back (5.2–7.2 s), passing in front of A again (about 6.0 s).
///   A detection is dropped while less than 70 % of its box is visible, or while the subject is not
///   what is seen at the box's centre; so A's face, head and torso vanish from about 2.43 s to 3.0 s
///   (frames 73…90 at 30 fps for the face: a gap under 1 s, the same track to an editor), and A's
///   pixels in the map show B's 1.2 D. The second pass hides A's face from 6.0 s to 6.13 s.
///   Boxes partly outside the frame are clipped to [0, 1].
/// - Not enough light from 4.6 s to 5.1 s: `scene` has `.notEnoughLight` and the picture is darkened
///   (to 30 %) except the lights themselves.
/// - Captured (base) decisions, all weak: at frame 0 → person A's face (1), with no transition (focus
///   starts there); then in every cycle 2.2 s → person B's face (4), 4.4 s → person A's face (1),
///   6.6 s → the dog's head (8) (times snapped to the nearest frame, ties to the earlier). Decisions
///   are at least 2.2 s apart, clear of the 2 s weak-suppression window whichever way it is read.
/// - Focus (every frame): the target's disparity, racking linearly in disparity before each decision:
///   the transition lasts |Δd| / 0.5 D/s clamped to [1/3 s, 1 s] (`CinematicParameters`) and **ends at
///   the decision**: frames in [t − duration, t) have `inTransition` with `transitionProgress` =
///   (frame time − start) / duration, and the decision frame itself has arrived (not in transition).
///   A→B and B→A take 1 s (clamped from 1.4 s), A→dog 0.6 s, dog→B (next cycle) 0.8 s. `decisions`
///   lists them with their transition starts. A decision past the clip's end is not recorded, and
///   neither is the transition towards it (the default 6 s clip decides at 0, 2.2 and 4.4 s: A, B, A).
/// - f-number 4.5 on every frame.
package struct DemoScene: Sendable {
    package struct Options: Sendable, Equatable {
        /// Picture size, pixels: even, 64…7680 × 64…4320.
        package var width = 1280
        package var height = 720
        /// Clip length, seconds (0.5…600); the frame count is `round(seconds × framesPerSecond)`.
        package var seconds: Double = 6
        /// 1…120.
        package var framesPerSecond = 30
        /// The disparity map is `ceil(width / scale) × ceil(height / scale)`; 1…16.
        package var disparityScale = 4
        /// Seeds the textures (brick and plank tints, grain, the lights' jitter and colours). The
        /// timeline, the subjects and the metadata do not depend on it.
        package var seed: UInt64 = 0x00C1_4E9A_C4DE_4D05

        package init() {}

        package init(
            width: Int = 1280, height: Int = 720, seconds: Double = 6, framesPerSecond: Int = 30, disparityScale: Int = 4,
            seed: UInt64 = 0x00C1_4E9A_C4DE_4D05
        ) {
            self.width = width
            self.height = height
            self.seconds = seconds
            self.framesPerSecond = framesPerSecond
            self.disparityScale = disparityScale
            self.seed = seed
        }
    }

    package let options: Options
    package let frameCount: Int
    package let disparityWidth: Int
    package let disparityHeight: Int
    /// Lens 26 mm, f/4.5 default, and the focus timing used for the captured transitions.
    package let parameters: CinematicParameters
    /// Contains every disparity the scene produces (0…2.5 D; the nearest thing, the floor at the
    /// bottom edge, stays below 2.2 D).
    package let quantization: DisparityQuantization

    /// The f-number recorded in every frame's metadata.
    package static let fNumber: Float = 4.5
    /// Length of the repeating timeline, seconds.
    package static let cycleSeconds = 8

    let raster: DemoRaster
    let aspect: Float

    package init(options: Options = Options()) throws(DemoSceneError) {
        let o = options
        guard o.width % 2 == 0, o.height % 2 == 0, (64...7680).contains(o.width), (64...4320).contains(o.height) else {
            throw .size(width: o.width, height: o.height)
        }
        guard o.seconds.isFinite, o.seconds >= 0.5, o.seconds <= 600 else { throw .duration(o.seconds) }
        guard (1...120).contains(o.framesPerSecond) else { throw .frameRate(o.framesPerSecond) }
        guard (1...16).contains(o.disparityScale) else { throw .disparityScale(o.disparityScale) }
        self.options = o
        self.frameCount = max(1, Int((o.seconds * Double(o.framesPerSecond)).rounded()))
        self.disparityWidth = (o.width + o.disparityScale - 1) / o.disparityScale
        self.disparityHeight = (o.height + o.disparityScale - 1) / o.disparityScale
        self.parameters = CinematicParameters()
        self.quantization = DisparityQuantization(minimum: 0, maximum: 2.5)
        self.aspect = Float(o.width) / Float(o.height)
        var rng = DemoSplitMix64(seed: o.seed)
        self.raster = DemoRaster(width: o.width, height: o.height, mapWidth: disparityWidth, mapHeight: disparityHeight, rng: &rng)
    }

    /// Presentation time of a frame, seconds.
    package func time(ofFrame index: Int) -> Double { Double(index) / Double(options.framesPerSecond) }

    /// Frame `index` (0 ≤ index < frameCount): picture, disparity map and metadata.
    package func frame(_ index: Int) -> DemoFrame {
        precondition(index >= 0 && index < frameCount, "demo frame \(index) outside 0..<\(frameCount)")
        let figures = self.figures(index)
        let metadata = self.metadata(index, figures: figures)
        let light: Float = metadata.scene.contains(.notEnoughLight) ? Self.lowLight : 1
        return DemoFrame(
            index: index, picture: raster.picture(figures: figures, light: light),
            disparity: raster.disparity(figures: figures), disparityWidth: disparityWidth,
            disparityHeight: disparityHeight, metadata: metadata)
    }

    /// The metadata of frame `index` alone (cheap: nothing is drawn).
    package func metadata(_ index: Int) -> FrameMetadata {
        precondition(index >= 0 && index < frameCount, "demo frame \(index) outside 0..<\(frameCount)")
        return metadata(index, figures: figures(index))
    }

    // MARK: Internals

    static let lowLight: Float = 0.3

    var cycleFrames: Int { Self.cycleSeconds * options.framesPerSecond }

    func cycleTime(_ index: Int) -> Float {
        Float(index % cycleFrames) / Float(options.framesPerSecond)
    }

    func figures(_ index: Int) -> [DemoFigure] {
        DemoCast.figures(at: cycleTime(index), aspect: aspect, keys: raster.keys)
    }

    func metadata(_ index: Int, figures: [DemoFigure]) -> FrameMetadata {
        let plan = focusPlan(index)
        return FrameMetadata(
            detections: detections(figures), focus: plan.focus, decision: plan.decision, fNumber: Self.fNumber,
            scene: isLowLight(index) ? .notEnoughLight : [])
    }

    func isLowLight(_ index: Int) -> Bool {
        let fps = Double(options.framesPerSecond)
        let start = Int((4.6 * fps).rounded())
        let end = max(start + 1, Int((5.1 * fps).rounded()))
        let m = index % cycleFrames
        return m >= start && m < end
    }
}

/// One generated frame.
package struct DemoFrame: Sendable {
    package var index: Int
    /// 8-bit RGB, `width × height`.
    package var picture: PixelImage
    /// Row-major, `disparityWidth × disparityHeight`, diopters; no invalid pixels.
    package var disparity: [Float]
    package var disparityWidth: Int
    package var disparityHeight: Int
    package var metadata: FrameMetadata

    package init(index: Int, picture: PixelImage, disparity: [Float], disparityWidth: Int, disparityHeight: Int, metadata: FrameMetadata) {
        self.index = index
        self.picture = picture
        self.disparity = disparity
        self.disparityWidth = disparityWidth
        self.disparityHeight = disparityHeight
        self.metadata = metadata
    }
}

/// Why `DemoScene` refused its options. A struct with static members so cases can be added.
package struct DemoSceneError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }

    package static func size(width: Int, height: Int) -> DemoSceneError {
        DemoSceneError("demo size \(width)x\(height) must be even, 64…7680 wide and 64…4320 high")
    }
    package static func duration(_ seconds: Double) -> DemoSceneError {
        DemoSceneError("demo length \(seconds) s must be 0.5…600 s")
    }
    package static func frameRate(_ fps: Int) -> DemoSceneError {
        DemoSceneError("demo frame rate \(fps) must be 1…120 frames per second")
    }
    package static func disparityScale(_ scale: Int) -> DemoSceneError {
        DemoSceneError("demo disparity scale \(scale) must be 1…16")
    }
}
