import Cinepack
import Foundation
import TestSupport
import Testing

/// Library errors speak of the movie, never of the command line: no `--option`, no `cinepack
/// command` in a `description`; the typed case carries what a client needs. The refusals come from
/// real calls on the demo clip, not from hand-built values only.
@Suite struct LibraryWordingTests {
    /// `--force`, `--range`, `` `cinepack edl clear` ``: command-line vocabulary.
    static func hasCLIVocabulary(_ text: String) -> Bool {
        text.range(of: #"(^|[\s(`'"])--[a-z]"#, options: .regularExpression) != nil
            || text.range(of: #"cinepack (edl|pack|render|decisions|focus|undo|redo|concat)\b"#, options: .regularExpression) != nil
    }

    @Test func vocabularyCheckFindsOptions() {
        #expect(Self.hasCLIVocabulary("x already exists (use --force or -y)"))
        #expect(Self.hasCLIVocabulary("`cinepack edl clear` replaces it"))
        #expect(!Self.hasCLIVocabulary("frames 0…29 — nothing written"))
    }

    @Test func outputRefusalsAreTypedAndNeutral() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("taken.png")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        #expect(throws: OutputError.exists(path: path)) { try OutputTarget(path: path, overwrite: false).validate() }
        chmod(path, 0o444)
        #expect(throws: OutputError.notWritable(path: path, mode: 0o444)) { try OutputTarget(path: path, overwrite: true).validate() }
        let cases: [OutputError] = [
            .exists(path: path), .notWritable(path: path, mode: 0o444), .isInput(output: path, input: path, identity: .samePath),
            .notAFile(path: dir.path), .noDirectory(path: path, directory: dir.path),
            .io(path: path, operation: "rename", reason: "No space left on device", completed: false),
        ]
        for error in cases { #expect(!Self.hasCLIVocabulary(error.description), "\(error)") }
    }

    @Test func renderPlanRefusalsAreTypedAndNeutral() throws {
        let clip = try CinematicDocumentTests.clip()
        let edits = try MovieEdits.open(path: clip.path)
        let range = try TimeRangeExpression(parsing: "50s..60s")
        do {
            _ = try RenderPlan(edits: edits, options: .init(range: range))
            Issue.record("a range past the end was planned")
        } catch {
            guard case .emptyRange(let asked, let duration) = error else { Issue.record("\(error)"); return }
            #expect(asked == range && duration.seconds == 4)
            #expect(!Self.hasCLIVocabulary(error.description), "\(error)")
        }
        // A frame outside the program is an error naming it, never frame 0.
        let plan = try RenderPlan(edits: edits)
        #expect(plan.outputFrames == 0..<120)
        #expect(try plan.sourceFrame(ofOutput: 119) == 119)
        for frame: Int64 in [-1, 120, 5000] {
            #expect(throws: RenderPlanError.self) { _ = try plan.sourceFrame(ofOutput: frame) }
            do { _ = try plan.sourceSamples(ofOutput: frame) } catch {
                guard case .outOfRange(let f, let program) = error else { Issue.record("\(error)"); continue }
                #expect(f == frame && program == 0..<120)
                #expect(!Self.hasCLIVocabulary(error.description), "\(error)")
            }
        }
    }

    @Test func unreadableStoredEDLIsTypedAndNeutral() throws {
        let clip = try CinematicDocumentTests.clip()
        var store = try EDLStore(path: clip.path)
        try store.update(text: "<edl xmlns=\"urn:cinepack:edl:1\" version=\"1\"><broken")
        do {
            _ = try CinematicDocument(path: clip.path)
            Issue.record("a broken stored EDL was opened")
        } catch {
            guard case .unreadable(_, let cause) = error, let edits = cause as? EDLCommandError else { Issue.record("\(error)"); return }
            #expect(edits.unreadableStoredEDL != nil)
            #expect(error.description.contains("media is intact"), "\(error)")
            #expect(!Self.hasCLIVocabulary(error.description), "\(error)")
        }
        // The recovery path the message speaks of exists in the library.
        let recovered = try CinematicDocument(path: clip.path, recovering: true)
        #expect(recovered.warnings.contains { $0.contains("the stored EDL cannot be read") })
    }

    /// No option, no command, and no "cinepack " naming the tool.
    static func isNeutral(_ text: String) -> Bool { !hasCLIVocabulary(text) && !text.contains("cinepack ") }

    @Test func farmRefusalsAreTypedAndNeutral() throws {
        #expect(throws: FarmError.badShard("5/4")) { try ShardPlan.parseShard("5/4") }
        #expect(throws: FarmError.badFrames("3..3")) { try ShardPlan.parseFrames("3..3") }
        let cases: [FarmError] = [
            .badShard("5/4"), .badFrames("3..3"), .emptyShard(index: 1, count: 16, segments: 15, syncInterval: 1),
            .framesOutsideProgram(10..<99, program: 0..<15), .unalignedBoundary(frame: 7, codec: "h264", syncInterval: 5, program: 0..<15),
            .noParts, .unreadablePart(path: "p.mov", reason: "truncated"), .notAPart(path: "p.mov"),
            .inconsistentPart(path: "p.mov", recordedFrames: 8, actualFrames: 7),
            .foreignPart(path: "b.mov", reference: "a.mov", what: "another EDL"),
            .gap(4..<8, after: "a.mov", before: "b.mov", missingShards: [2], shardCount: 4),
            .overlap(first: "a.mov", second: "b.mov", frames: 0..<4), .audioSourceMismatch(path: "s.mov", reason: "no audio"),
            .output(.exists(path: "out.mov")), .rateControlInParts(codec: "h264"), .format(FormatError("s.mov: truncated")),
        ]
        for error in cases { #expect(Self.isNeutral(error.description), "\(error)") }
        for note: ConcatNote in [.sourceAudioNotAdded(sourceName: "s.mov"), .audioSourceHasNoAudio(path: "a.mov")] {
            #expect(Self.isNeutral(note.description), "\(note)")
        }
        #expect(FarmError.badShard("5/4").description == "shard 5/4: expected K/N with 1 ≤ K ≤ N (e.g. 2/4)")
        #expect(FarmError.rateControlInParts(codec: "h264").description.contains("rate control (a quality or bitrate target)"))
    }

    @Test func exportSettingRefusalsAreTypedAndNeutral() throws {
        #expect(throws: ExportSettingsError.notForCodec(.crf, codec: .prores)) {
            try ExportSettings(codec: .prores, crf: 20, colour: .bt709, inputBitDepth: 8)
        }
        #expect(throws: ExportSettingsError.notForCodec(.pixelFormat, codec: .png)) {
            try ExportSettings(codec: .png, pixelFormat: "rgb24", colour: .bt709, inputBitDepth: 8)
        }
        #expect(throws: ExportSettingsError.badValue(.bitrate, value: "fast", expected: "a number with an optional k or M (20M, 8000k)")) {
            try ExportSettings(codec: .h264, bitrate: "fast", colour: .bt709, inputBitDepth: 8)
        }
        let dnxhr = try ExportSettings(codec: .dnxhr, colour: .bt709, inputBitDepth: 8)
        #expect(throws: ExportSettingsError.tooSmall(codec: .dnxhr, width: 128, height: 72, minimum: "256×120")) {
            try dnxhr.check(width: 128, height: 72)
        }
        var cases: [ExportSettingsError] = [.tooSmall(codec: .dnxhr, width: 128, height: 72, minimum: "256×120")]
        for setting in ExportSettings.Setting.allCases {
            cases += [.notForCodec(setting, codec: .png), .badValue(setting, value: "x y", expected: "letters, digits and _")]
        }
        for error in cases { #expect(Self.isNeutral(error.description), "\(error)") }
        #expect(
            ExportSettingsError.notForCodec(.pixelFormat, codec: .png).description.hasPrefix("pixel format does not apply to codec png"))
        // The note on a codec chosen for a deep source.
        let deep = SourcePictureFormat(bitDepth: 10, colour: .bt709, pixelFormat: "yuv422p10le")
        for output in ["out.mov", "out.mp4"] {
            let note = try #require(ExportCodec.choose(requested: nil, output: output, source: deep).reason)
            #expect(Self.isNeutral(note.description), "\(note)")
        }
        #expect(ExportCodec.choose(requested: .h264, output: "out.mov", source: deep).reason == nil)
    }

    @Test func depthInputRefusalsAreTypedAndNeutral() throws {
        let problems: [DepthInputError.Problem] = [
            .unreadable, .malformed("truncated"), .unsupported("16-bit half floats"),
            .missingChannel(wanted: ["Z"], present: ["R", "depth.Z"]), .missingArray(key: "nope", present: ["depths"]),
            .frameCount(maps: 11, frames: 12), .size("too large"), .value("negative depth"), .noDepth, .calibration("no anchors"),
            .decoder("ffmpeg failed"), .needsCodeRange, .needsDepthScale,
            .aspectRatio(mapWidth: 32, mapHeight: 32, pictureWidth: 128, pictureHeight: 72), .uncalibrated,
            .calibrationNeedsRelativeDisparity, .objectNotDetected(id: 9, seen: []), .objectNotDetected(id: 9, seen: [1, 2]),
            .anchorsInverted,
        ]
        for problem in problems {
            let error = DepthInputError(file: "cam/0000.png", frame: 0, problem)
            #expect(Self.isNeutral(error.description), "\(error)")
            // Wrapped by the packer, the typed refusal stays reachable.
            #expect(FormatError.depthInput(error).depthInput == error)
        }
        #expect(throws: DepthInputError.self) { try CalibrationAnchor(parsing: "object 4 = far") }
        do { _ = try CalibrationAnchor(parsing: "object 4") } catch { #expect(Self.isNeutral(error.file), "\(error.file)") }
    }

    @Test func packInputRefusalsAreTypedAndNeutral() throws {
        let dir = try Paths.temporaryDirectory()
        let pattern = dir.file("maps/%04d.exr")
        do {
            _ = try ImageSequence(pattern: pattern, input: .maps(.depth))
            Issue.record("a pattern with no files was read")
        } catch {
            #expect(
                error.packInput
                    == .noFiles(.maps(.depth), pattern: pattern, lookedFor: [dir.file("maps/0000.exr"), dir.file("maps/0001.exr")]))
            #expect(error.description.hasPrefix("depth maps: no file matches \(pattern)"), "\(error)")
        }
        var cases: [PackInputError] = []
        for input: PackInput in [.frames, .video, .audio] + DepthInputOptions.Kind.allCases.map(PackInput.maps) {
            cases += [
                .noPlaceholder(input, pattern: "f.png"), .noFiles(input, pattern: "f%d.png", lookedFor: ["f0.png", "f1.png"]),
                .missingFrame(input, missing: "f3.png", existing: "f9.png"), .noTrack(input, path: "a.mov", kind: .video),
            ]
        }
        for error in cases {
            #expect(!Self.hasCLIVocabulary(error.description), "\(error)")
            #expect(FormatError.packInput(error).packInput == error)
        }
        let sequence = DepthInputError(file: pattern, .sequence(.noFiles(.maps(.disparity), pattern: pattern, lookedFor: ["a", "b"])))
        #expect(!Self.hasCLIVocabulary(sequence.description), "\(sequence)")
    }

    @Test func colourModelRefusalsAreNeutral() {
        for error: ColourModelError in [.unsupportedTransfer(code: 99), .unsupportedPrimaries(code: 22), .whitePointNotD65(code: 11)] {
            #expect(!Self.hasCLIVocabulary(error.description), "\(error)")
        }
    }
}
