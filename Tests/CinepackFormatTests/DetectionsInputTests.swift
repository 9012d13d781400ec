import CinepackFormat
import Foundation
import TestSupport
import Testing

/// `cinepack pack --detections` input (spec/detections.md): the JSON format and MOT CSV, every
/// error message, and the fixtures of corpus/detections.
@Suite struct DetectionsInputTests {
    static let frameCount = 10
    static let width = 640
    static let height = 480

    func json(_ text: String, frameCount: Int = frameCount) throws(InputError) -> [FrameInput] {
        try DetectionsJSON.parse(Data(text.utf8), file: "detections.json", frameCount: frameCount)
    }

    func csv(_ text: String, type: DetectionType = MOTCSV.defaultType, width: Int = width) throws(InputError) -> [FrameInput] {
        try MOTCSV.parse(Data(text.utf8), file: "tracks.csv", frameCount: Self.frameCount, width: width, height: Self.height, type: type)
    }

    static func rect(_ x: Float, _ y: Float, _ w: Float, _ h: Float) -> NormalizedRect { NormalizedRect(x: x, y: y, width: w, height: h) }

    // MARK: Fixtures

    /// (file, must-produce) rows of corpus/detections/README.md.
    static func readme() throws -> [(file: String, produces: String)] {
        let text = try String(contentsOfFile: Paths.corpus("detections/README.md"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, cells[1].hasPrefix("`") else { return nil }
            return (cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[3])
        }
    }

    func load(_ name: String, type: DetectionType = MOTCSV.defaultType) throws(InputError) -> [FrameInput] {
        try DetectionsInput.load(
            path: Paths.corpus("detections/\(name)"), frameCount: Self.frameCount, width: Self.width,
            height: Self.height, csvType: type)
    }

    @Test func everyFixtureHasAReadmeLine() throws {
        let rows = try Self.readme().map(\.file)
        // Listed directly: Paths.corpusFiles leaves out .txt files, and MOT files are often .txt.
        let files = try FileManager.default.contentsOfDirectory(atPath: Paths.corpus("detections"))
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }
        #expect(!files.isEmpty)
        #expect(Set(rows) == Set(files), "README rows \(rows.sorted()) vs files \(files)")
    }

    @Test func invalidFixturesFailWithTheirMessage() throws {
        let rows = try Self.readme().filter { $0.file.hasPrefix("invalid-") }
        #expect(rows.count >= 10)
        for (file, produces) in rows {
            let expected = produces.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            do {
                _ = try load(file)
                Issue.record("\(file) loaded without error")
            } catch {
                let path = Paths.corpus("detections/\(file)")
                #expect(error.description.hasPrefix(path), "\(error)")
                #expect(error.description.contains(expected), "\(file): \(error.description)")
            }
        }
    }

    @Test func specExampleFixture() throws {
        let frames = try load("spec-example.json")
        #expect(frames.count == 10)
        let first = frames[0].frameMetadata
        #expect(first.detections == MetadataSpecExampleTests.exampleFrame.detections)
        #expect(first.focus == MetadataSpecExampleTests.exampleFrame.focus)
        #expect(first.fNumber == 4.5)
        #expect(first.decision == CapturedDecision(target: .detection(4), isStrong: false))
        // Frame 1: type given as a number, disparities to be measured.
        #expect(frames[1].detections == [DetectionInput(id: 4, groupID: 2, type: .face, rect: Self.rect(0.26, 0.125, 0.25, 0.5))])
        #expect(frames[1].focus == FocusInput(target: .detection(4)))
        #expect(frames[1].scene == .notEnoughLight)
        #expect(frames[2...].allSatisfy { $0 == FrameInput() })
    }

    @Test func allTargetsFixture() throws {
        let frames = try load("all-targets.json")
        #expect(frames[2].detections.map(\.id) == [1, 2, 3])
        #expect(
            frames[2].detections[0]
                == DetectionInput(
                    id: 1, groupID: 7, type: .head, rect: Self.rect(0, 0, 0.5, 0.5), disparity: 1.25,
                    confidence: 0.5))
        #expect(frames[2].detections[2].type.rawValue == 4242)
        // Within tolerance: clamped into the frame.
        #expect(frames[2].detections[2].rect.x == 0)
        #expect(abs(frames[2].detections[2].rect.width - 1) < 1e-6)
        #expect(frames[2].focus == FocusInput(target: .group(7), isStrong: true, transitionProgress: 0.25))
        #expect(frames[2].decision == CapturedDecision(target: .group(7), isStrong: true))
        #expect(frames[3].focus == FocusInput(target: .fixedDisparity(0.7), disparity: 0.6, transitionProgress: 1))
        #expect(frames[4].focus == FocusInput(target: .point(x: 0.5, y: 0.25)))
        #expect(frames[4].decision == CapturedDecision(target: .point(x: 0.5, y: 0.25), isStrong: false))
        #expect(frames[4].scene == [.notEnoughLight, .subjectTooClose])
        #expect(frames[5] == FrameInput(decision: CapturedDecision(target: .none, isStrong: false), fNumber: 16))
        // Detection 2 is not in frame 6, but frame 2 lists it: a valid target.
        #expect(frames[6].focus == FocusInput(target: .detection(2), disparity: 0.3))
        #expect(frames[9].focus == FocusInput(target: .none))
        #expect(frames[0] == FrameInput() && frames[1] == FrameInput() && frames[7] == FrameInput())
    }

    @Test func motGroundTruthFixture() throws {
        let frames = try load("mot-gt.txt")
        #expect(
            frames[0].detections == [
                DetectionInput(id: 1, type: .custom, rect: Self.rect(0.1, 0.1, 0.2, 0.2), confidence: 1),
                DetectionInput(id: 2, type: .custom, rect: Self.rect(500.0 / 640, 0.625, 0.125, 0.25), confidence: 0.5),
            ])
        #expect(frames[1].detections == [DetectionInput(id: 1, type: .custom, rect: Self.rect(0, 0, 0.05, 1), confidence: 1)])
        #expect(frames[9].detections == [DetectionInput(id: 3, type: .custom, rect: Self.rect(0, 0, 1, 1), confidence: 1)])
        #expect(frames[2..<9].allSatisfy { $0 == FrameInput() })
        // The type option.
        #expect(try load("mot-gt.txt", type: .face)[0].detections.allSatisfy { $0.type == .face })
    }

    @Test func motHeaderFixture() throws {
        let frames = try load("mot-header.csv")
        #expect(
            frames[2].detections == [
                DetectionInput(id: 5, type: .custom, rect: Self.rect(0.5, 0.5, 0.05, 0.05), confidence: 0.25),
                DetectionInput(id: 6, type: .custom, rect: Self.rect(0, 0, 0.1, 0.1), confidence: 1),
            ])
        #expect(frames.enumerated().allSatisfy { $0.offset == 2 || $0.element == FrameInput() })
    }

    // MARK: JSON errors

    static let jsonErrors: [(String, String)] = [
        ("[]", "detections.json: the top level must be an object, not an array of 0"),
        ("{\"frames\": []}", "detections.json: \"version\" is missing; write \"version\": 1"),
        ("{\"version\": \"1\", \"frames\": []}", "detections.json: \"version\" must be a number, not the string \"1\""),
        ("{\"version\": 1.5, \"frames\": []}", "detections.json: \"version\" must be a whole number (got 1.5)"),
        ("{\"version\": 0, \"frames\": []}", "detections.json: \"version\" 0 is not supported; this cinepack reads version 1"),
        ("{\"version\": 1}", "detections.json: \"frames\" is missing"),
        ("{\"version\": 1, \"frames\": {}}", "detections.json: \"frames\" must be an array, not an object"),
        ("{\"version\": 1, \"frames\": [], \"fps\": 30}", "detections.json: unknown field \"fps\" (known here: \"frames\", \"version\")"),
        ("{\"version\": 1, \"frames\": [3]}", "detections.json: frame entry 1: a frame entry must be an object, not the number 3"),
        ("{\"version\": 1, \"frames\": [{}]}", "detections.json: frame entry 1: \"frame\" is missing"),
        ("{\"version\": 1, \"frames\": [{\"frame\": true}]}", "frame entry 1: \"frame\" must be a number, not true"),
        ("{\"version\": 1, \"frames\": [{\"frame\": null}]}", "frame entry 1: \"frame\" must be a number, not null"),
        ("{\"version\": 1, \"frames\": [{\"frame\": 2.5}]}", "frame entry 1: \"frame\" must be a whole number (got 2.5)"),
        ("{\"version\": 1, \"frames\": [{\"frame\": 10}]}", "frame entry 1: \"frame\" 10 is beyond the clip, which has 10 frames (0…9)"),
        ("{\"version\": 1, \"frames\": [{\"frame\": 1e300}]}", "frame entry 1: \"frame\" 1e+300 is out of range"),
        (
            "{\"version\": 1, \"frames\": [{\"frame\": 4}, {\"frame\": 4}]}",
            "frame entry 2: frame 4 is listed twice (frame entries 1 and 2)"
        ),
        ("{\"version\": 1, \"frames\": [{\"frame\": 0, \"detection\": []}]}", "frame entry 1: unknown field \"detection\""),
        // Detections.
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"type": "face", "rect": [0, 0, 1, 1]}]}]}"#,
            "detections.json: frame 5, detection 1: \"id\" is missing"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 0, "type": "face", "rect": [0, 0, 1, 1]}]}]}"#,
            "frame 5, detection 1: \"id\" 0 is out of range (1…4294967295)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 4294967296, "type": "face", "rect": [0, 0, 1, 1]}]}]}"#,
            "\"id\" 4294967296 is out of range"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1.5, "type": "face", "rect": [0, 0, 1, 1]}]}]}"#,
            "\"id\" must be a whole number (got 1.5)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "group": -1, "type": "face", "rect": [0, 0, 1, 1]}]}]}"#,
            "\"group\" -1 is out of range (0…4294967295)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "rect": [0, 0, 1, 1]}]}]}"#,
            "frame 5, detection 1: \"type\" is missing"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "Face", "rect": [0, 0, 1, 1]}]}]}"#,
            "\"type\" \"Face\" is not a detection type; use one of \"face\", \"head\""
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": 0, "rect": [0, 0, 1, 1]}]}]}"#,
            "\"type\" 0 is out of range (1…65535)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": true, "rect": [0, 0, 1, 1]}]}]}"#,
            "\"type\" must be a number, not true"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face"}]}]}"#,
            "\"rect\" is missing; write [x, y, width, height], normalized"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 1]}]}]}"#,
            "\"rect\" must be an array of 4 numbers [x, y, width, height], not an array of 3"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": {"x": 0}}]}]}"#,
            "\"rect\" must be an array of 4 numbers [x, y, width, height], not an object"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, "a", 1, 1]}]}]}"#,
            "\"rect\" y must be a number, not the string \"a\""
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 1e39, 1]}]}]}"#,
            "\"rect\" width 1e+39 is too large for a 32-bit float"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 0.5, -0.5]}]}]}"#,
            "frame 5, detection 1: \"rect\" height must be > 0 (got -0.5)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [-0.5, 0, 0.5, 0.5]}]}]}"#,
            "\"rect\" x -0.5 is left of the frame (normalized coordinates are 0…1)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, -0.001, 0.5, 0.5]}]}]}"#,
            "\"rect\" y -0.001 is above the frame"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0.75, 0.5, 0.5]}]}]}"#,
            "\"rect\" y + height = 1.25 is below the frame (at most 1)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 1, 1], "disparity": -1}]}]}"#,
            "\"disparity\" must be ≥ 0 diopters (got -1.0)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 1, 1], "disparity": "near"}]}]}"#,
            "\"disparity\" must be a number, not the string \"near\""
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 1, 1], "confidence": 2}]}]}"#,
            "\"confidence\" must be within 0…1 (got 2.0)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 1, 1], "conf": 1}]}]}"#,
            "frame 5, detection 1: unknown field \"conf\""
        ),
        (
            #"{"version": 1, "frames": [{"frame": 5, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 1, 1]}, 7]}]}"#,
            "frame 5, detection 2: a detection must be an object, not the number 7"
        ),
        // Focus and decision.
        (#"{"version": 1, "frames": [{"frame": 1, "focus": "x"}]}"#, "frame 1, focus: \"focus\" must be an object, not the string \"x\""),
        (#"{"version": 1, "frames": [{"frame": 1, "focus": {}}]}"#, "frame 1, focus: \"target\" is missing"),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": "auto"}}]}"#,
            "\"target\" \"auto\" is not a target; the only string target is \"none\""
        ),
        (#"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {}}}]}"#, "\"target\" must be one of {\"detection\": id}"),
        (#"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"group": 1, "detection": 1}}}]}"#, "\"target\" must be one of"),
        (#"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"object": 3}}}]}"#, "\"target\" has unknown kind \"object\""),
        (#"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"detection": 0}}}]}"#, "\"target\" detection id 0 is out of range"),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"group": 3}}}]}"#,
            "frame 1, focus: \"target\" names group 3, which no detection of the file belongs to"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"disparity": -0.5}}}]}"#,
            "\"target\" disparity must be ≥ 0 diopters (got -0.5)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"point": [0.5]}}}]}"#,
            "\"target\" point must be an array of 2 numbers [x, y], not an array of 1"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"point": [0.5, false]}}}]}"#,
            "\"target\" point y must be a number, not false"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"point": [1.5, 0]}}}]}"#,
            "\"target\" point (1.5, 0.0) is outside the frame"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": "none", "strong": 1}}]}"#,
            "\"strong\" must be true or false, not the number 1"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": "none", "disparity": -2}}]}"#,
            "\"disparity\" must be ≥ 0 diopters (got -2.0)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": "none", "transition": 1.5}}]}"#,
            "\"transition\" progress must be within 0…1 (got 1.5)"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "focus": {"target": {"point": [0.5, 0.5]}, "transition": 0.5}}]}"#,
            "\"transition\" progress 0.5 cannot be stored with a point target (spec/format.md §6.3); use 0"
        ),
        (#"{"version": 1, "frames": [{"frame": 1, "focus": {"target": "none", "weak": true}}]}"#, "frame 1, focus: unknown field \"weak\""),
        (
            #"{"version": 1, "frames": [{"frame": 1, "decision": {"target": "none", "strong": "yes"}}]}"#,
            "frame 1, decision: \"strong\" must be true or false, not the string \"yes\""
        ),
        (#"{"version": 1, "frames": [{"frame": 1, "decision": {"strong": true}}]}"#, "frame 1, decision: \"target\" is missing"),
        (
            #"{"version": 1, "frames": [{"frame": 1, "decision": {"target": {"detection": 8}}}]}"#,
            "frame 1, decision: \"target\" names detection 8, which no frame of the file lists"
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "decision": {"target": "none", "disparity": 1}}]}"#,
            "frame 1, decision: unknown field \"disparity\""
        ),
        // Frame-level values.
        (#"{"version": 1, "frames": [{"frame": 1, "f_number": 0}]}"#, "frame 1: \"f_number\" must be > 0 (got 0.0)"),
        (#"{"version": 1, "frames": [{"frame": 1, "f_number": "f/2"}]}"#, "frame 1: \"f_number\" must be a number, not the string \"f/2\""),
        (
            #"{"version": 1, "frames": [{"frame": 1, "scene": "not-enough-light"}]}"#,
            "frame 1: \"scene\" must be an array of names (\"not-enough-light\", \"subject-too-close\"), not the string \"not-enough-light\""
        ),
        (
            #"{"version": 1, "frames": [{"frame": 1, "scene": ["dark"]}]}"#,
            "frame 1: \"scene\" entry the string \"dark\" is not a scene status; use \"not-enough-light\", \"subject-too-close\""
        ),
        // Not JSON, and numbers JSON cannot hold as finite values.
        (#"{"version": 1, "frames": [{"frame": 1, "f_number": 1e999}]}"#, "detections.json: not valid JSON: "),
        (#"{"version": 1, "frames": [{"frame": 1, "f_number": NaN}]}"#, "detections.json: not valid JSON: "),
        ("", "detections.json: not valid JSON: "),
    ]

    @Test(arguments: jsonErrors.indices)
    func jsonErrorMessage(_ index: Int) {
        let (input, message) = Self.jsonErrors[index]
        do {
            _ = try json(input)
            Issue.record("accepted: \(input)")
        } catch {
            #expect(error.description.contains(message), "\(input)\n→ \(error.description)")
            #expect(error.description.hasPrefix("detections.json: "))
            #expect(error.file == "detections.json")
        }
    }

    @Test func jsonErrorsCarryTheFrame() {
        let input =
            #"{"version": 1, "frames": [{"frame": 12, "detections": [{"id": 1, "type": "face", "rect": [0, 0, 0.5, 0.5]}, {"id": 2, "type": "face", "rect": [0.5, 0, 0, 0.5]}]}]}"#
        do {
            _ = try json(input, frameCount: 100)
            Issue.record("accepted")
        } catch {
            // The message of the brief, verbatim.
            #expect(error.description == "detections.json: frame 12, detection 2: \"rect\" width must be > 0 (got 0.0)")
            #expect(error.frame == 12)
            #expect(error.line == nil)
        }
    }

    @Test func tooManyDetectionsInAFrame() {
        let many = Array(repeating: "{}", count: 65536).joined(separator: ",")
        let input = "{\"version\": 1, \"frames\": [{\"frame\": 0, \"detections\": [\(many)]}]}"
        let error = #expect(throws: InputError.self) { try json(input) }
        #expect(error?.description == "detections.json: frame 0: 65536 detections, more than the 65535 a frame can hold")
    }

    @Test func jsonAcceptsTheMinimalFileAndKeepsFrameCount() throws {
        #expect(try json(#"{"version": 1, "frames": []}"#) == Array(repeating: FrameInput(), count: 10))
        #expect(try json(#"{"version": 1.0, "frames": [{"frame": 0}]}"#, frameCount: 1) == [FrameInput()])
        #expect(try json(#"{"version": 1, "frames": []}"#, frameCount: 0).isEmpty)
    }

    // MARK: MOT CSV errors

    static let csvErrors: [(String, String)] = [
        ("1,1,10,10,20\n", "tracks.csv:1: 5 columns; a MOT line has at least frame,id,x,y,w,h"),
        ("1,1,10,10,20,20,1\n0,1,10,10,20,20,1\n", "tracks.csv:2: frame 0: MOT frames are numbered from 1"),
        ("11,1,10,10,20,20,1\n", "tracks.csv:1: frame 11 is beyond the clip, which has 10 frames (1…10 in MOT numbering)"),
        ("1.5,1,10,10,20,20,1\n", "tracks.csv:1: column 1 (frame) is 1.5, not a whole number"),
        ("x,1,10,10,20,20,1\n", "tracks.csv:1: column 1 (frame) is \"x\", not a finite number"),
        ("1,1,nan,10,20,20,1\n", "tracks.csv:1: column 3 (x) is \"nan\", not a finite number"),
        ("1,1,10,inf,20,20,1\n", "tracks.csv:1: column 4 (y) is \"inf\", not a finite number"),
        // Decimal only: Swift's Double(_:) would read these as 16 and 8.
        ("1,0x10,10,10,20,20,1\n", "tracks.csv:1: column 2 (id) is \"0x10\", not a finite number"),
        ("1,1,0x1p3,10,20,20,1\n", "tracks.csv:1: column 3 (x) is \"0x1p3\", not a finite number"),
        ("1,0,10,10,20,20,1\n", "tracks.csv:1: id 0 is not a track id ≥ 1"),
        ("1,1,10,10,0,20,1\n", "tracks.csv:1: box size 0.0×20.0 must be positive"),
        ("1,1,10,10,20,-5,1\n", "tracks.csv:1: box size 20.0×-5.0 must be positive"),
        ("1,1,700,10,20,20,1\n", "tracks.csv:1: box (700.0, 10.0, 20.0, 20.0) lies entirely outside the 640×480 frame"),
        ("1,1,-30,10,20,20,1\n", "lies entirely outside the 640×480 frame"),
        ("1,1,10,10,20,20,2\n", "tracks.csv:1: conf 2.0 is neither -1 (unknown) nor within 0…1"),
        ("1,1,10,10,20,20,-0.5\n", "conf -0.5 is neither -1"),
        ("frame,id,x,y,w,h\nframe,id,x,y,w,h\n", "tracks.csv:2: column 1 (frame) is \"frame\", not a finite number"),
    ]

    @Test(arguments: csvErrors.indices)
    func csvErrorMessage(_ index: Int) {
        let (input, message) = Self.csvErrors[index]
        do {
            _ = try csv(input)
            Issue.record("accepted: \(input)")
        } catch {
            #expect(error.description.contains(message), "\(input)\n→ \(error.description)")
            #expect(error.line != nil)
        }
    }

    @Test func csvNeedsTheVideoSize() {
        let error = #expect(throws: InputError.self) { try csv("1,1,10,10,20,20\n", width: 0) }
        #expect(error?.description == "tracks.csv: the video size 0×480 is needed to normalize MOT boxes")
    }

    @Test func csvConversion() throws {
        let frames = try csv("2,7,64,48,320,240,0.75,1,1\n\n#note\n2,8,0,0,640,480,0\n", type: .dogBody)
        #expect(frames.count == 10)
        #expect(
            frames[1].detections == [
                DetectionInput(id: 7, type: .dogBody, rect: Self.rect(0.1, 0.1, 0.5, 0.5), confidence: 0.75),
                DetectionInput(id: 8, type: .dogBody, rect: Self.rect(0, 0, 1, 1), confidence: 0),
            ])
        #expect(MOTCSV.defaultType == .custom)
    }

    // MARK: Loading

    @Test func loadRefusesUnknownExtensionsMissingFilesAndDirectories() throws {
        let dir = try Paths.temporaryDirectory()
        let xml = dir.file("detections.xml")
        try Data("<x/>".utf8).write(to: URL(fileURLWithPath: xml))
        for (path, message) in [
            (xml, "unknown detections format; use a .json file (spec/detections.md) or a MOT .csv/.txt file"),
            (dir.file("missing.json"), "cannot read the file: it does not exist or is not accessible"),
            (dir.path + "/", "unknown detections format"),
        ] {
            do {
                _ = try DetectionsInput.load(path: path, frameCount: 1, width: 1, height: 1)
                Issue.record("loaded \(path)")
            } catch {
                #expect(error.description == "\(path): \(message)" || error.description.contains(message), "\(error)")
            }
        }
        let folder = dir.file("folder.json")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let error = #expect(throws: InputError.self) { try DetectionsInput.load(path: folder, frameCount: 1, width: 1, height: 1) }
        #expect(error?.message == "is a directory, not a detections file")
    }

    // MARK: From input to metadata

    @Test func resolvedFillsMissingDisparities() throws {
        let frames = try load("all-targets.json")
        var measuredRects: [NormalizedRect] = []
        let measureRect = { (r: NormalizedRect) -> Float? in
            measuredRects.append(r)
            return r.x == 0.5 ? 0.8 : nil  // detection 2 measures 0.8; detection 3 has no valid depth
        }
        let frame2 = frames[2].resolved(measureRect: measureRect, measurePoint: { _, _ in nil })
        #expect(frame2.detections.map(\.disparity).prefix(2) == [1.25, 0.8])
        #expect(frame2.detections[2].disparity.isNaN)
        #expect(measuredRects.count == 2)  // detection 1 had its own
        // Group 7: the most confident member with a known disparity (detection 2, confidence 1).
        #expect(
            frame2.focus == FocusState(target: .group(7), focusDisparity: 0.8, isStrong: true, inTransition: true, transitionProgress: 0.25)
        )

        let frame3 = frames[3].frameMetadata
        #expect(frame3.focus == FocusState(target: .fixedDisparity(0.7), focusDisparity: 0.6, inTransition: true, transitionProgress: 1))
        let frame4 = frames[4].resolved(measureRect: { _ in nil }, measurePoint: { x, y in x == 0.5 && y == 0.25 ? 1.5 : nil })
        #expect(frame4.focus?.focusDisparity == 1.5)
        // A fixed target without a disparity is in focus at its own plane.
        let fixed = FrameInput(focus: FocusInput(target: .fixedDisparity(0.9))).frameMetadata
        #expect(fixed.focus?.focusDisparity == 0.9)
        // Target absent from this frame: unknown.
        #expect(frames[6].frameMetadata.focus?.focusDisparity == 0.3)
        #expect(FrameInput(focus: FocusInput(target: .detection(2))).frameMetadata.focus?.focusDisparity.isNaN == true)
        #expect(frames[9].frameMetadata.focus?.focusDisparity.isNaN == true)
    }

    @Test func parsedFramesEncodeAndDecode() throws {
        // Every fixture frame, once resolved, is a valid sample.
        for name in ["spec-example.json", "all-targets.json", "mot-gt.txt", "mot-header.csv"] {
            for (index, input) in try load(name).enumerated() {
                let frame = input.resolved(measureRect: { _ in 0.5 }, measurePoint: { _, _ in 0.5 })
                try FocusMetadataCodec.validate(frame, frameIndex: index)
                let back = try FocusMetadataCodec.decode(FocusMetadataCodec.encode(frame), keys: .writer, sampleIndex: index)
                // Focus none with an unknown disparity reads back as no focus state.
                if frame.focus?.target == FocusTarget.none, frame.focus?.focusDisparity.isNaN == true {
                    #expect(back.focus == nil)
                    #expect(back.detections == frame.detections)
                } else {
                    #expect(back == frame, "\(name) frame \(index)")
                }
            }
        }
        // Frame 0 of the spec example is the spec's sample, byte for byte.
        let spec = try load("spec-example.json")[0].frameMetadata
        let bytes = FocusMetadataCodec.encode(FrameMetadata(detections: spec.detections, focus: spec.focus, fNumber: spec.fNumber))
        #expect(bytes == MetadataSpecExampleTests.exampleBytes)
    }

    @Test func inputErrorDescriptions() {
        #expect(InputError(file: "a.csv", line: 3, message: "bad").description == "a.csv:3: bad")
        #expect(
            InputError(file: "a.json", frame: 2, location: "frame 2, focus", message: "bad").description == "a.json: frame 2, focus: bad")
        #expect(InputError(file: "a.json", message: "bad").description == "a.json: bad")
    }
}
