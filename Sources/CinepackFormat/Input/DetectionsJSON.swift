import Foundation

/// The JSON detections file of spec/detections.md §2, read in one pass (`JSONReader`, entry by
/// entry) and checked field by field. Every error names the file, the frame (or frame entry), the detection and the
/// field.
package enum DetectionsJSON {
    /// The only version of the format.
    package static let version = 1
    /// How far a rect may stick out of [0, 1] (float rounding in the producer) before it is an error;
    /// rects within it are clamped to the frame.
    package static let rectTolerance: Float = 1e-4

    package static func load(path: String, frameCount: Int) throws(InputError) -> [FrameInput] {
        try parse(DetectionsInput.readFile(path), file: path, frameCount: frameCount)
    }

    /// `file` only names the input in messages. Returns exactly `frameCount` frames.
    package static func parse(_ data: Data, file: String, frameCount: Int) throws(InputError) -> [FrameInput] {
        var parser = Parser(file: file, frameCount: max(0, frameCount))
        return try parser.parse(data)
    }
}

private struct Parser {
    let file: String
    let frameCount: Int
    /// Where we are, for messages: `frame 12, detection 2`.
    var location: String?
    var frame: Int?

    init(file: String, frameCount: Int) {
        self.file = file
        self.frameCount = frameCount
    }

    func fail(_ message: String) -> InputError { InputError(file: file, frame: frame, location: location, message: message) }

    var frames: [FrameInput] = []
    var entryOfFrame: [Int: Int] = [:]
    // Targets are checked against every id the file lists (a subject may be out of frame
    // in the frame that names it): (frame, "focus"/"decision", target) to check at the end.
    var detectionIDs: Set<UInt32> = []
    var groupIDs: Set<UInt32> = []
    var targets: [(frame: Int, field: String, target: FocusTarget)] = []

    mutating func parse(_ data: Data) throws(InputError) -> [FrameInput] {
        frames = [FrameInput](repeating: FrameInput(), count: frameCount)
        let result: Result<Void, InputError> = data.withUnsafeBytes { raw in
            var reader = JSONReader(raw)
            do throws(InputError) {
                try top(&reader)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        for (index, field, target) in targets {
            location = "frame \(index), \(field)"
            frame = index
            switch target {
            case .detection(let id) where !detectionIDs.contains(id):
                throw fail("\"target\" names detection \(id), which no frame of the file lists")
            case .group(let id) where !groupIDs.contains(id):
                throw fail("\"target\" names group \(id), which no detection of the file belongs to")
            default:
                break
            }
        }
        return frames
    }

    /// The top-level object, with `"frames"` read one entry at a time.
    mutating func top(_ reader: inout JSONReader) throws(InputError) {
        func syntax(_ error: JSONReader.Failure) -> InputError {
            InputError(file: file, message: "not valid JSON: \(error.message) at byte \(error.offset)")
        }
        do {
            guard reader.peek() == UInt8(ascii: "{") else {
                let value = try reader.value()
                throw fail("the top level must be an object, not \(describe(value))")
            }
            try reader.expect(UInt8(ascii: "{"))
            var sawVersion = false, sawFrames = false, first = true
            while try reader.another(UInt8(ascii: "}"), first: first) {
                first = false
                let key = try reader.string()
                try reader.expect(UInt8(ascii: ":"))
                switch key {
                case "version":
                    try version(try reader.value())
                    sawVersion = true
                case "frames":
                    guard reader.peek() == UInt8(ascii: "[") else {
                        let value = try reader.value()
                        throw fail("\"frames\" must be an array, not \(describe(value))")
                    }
                    try reader.expect(UInt8(ascii: "["))
                    var entryIndex = 0
                    while try reader.another(UInt8(ascii: "]"), first: entryIndex == 0) {
                        let value = try reader.value(depth: 2)
                        try entry(value, entryIndex)
                        entryIndex += 1
                    }
                    location = nil
                    frame = nil
                    sawFrames = true
                default:
                    throw fail("unknown field \"\(key.prefix(40))\" (known here: \"frames\", \"version\")")
                }
            }
            reader.skipSpace()
            guard reader.atEnd else { throw reader.fail("more after the top-level object") }
            guard sawVersion else { throw fail("\"version\" is missing; write \"version\": 1") }
            guard sawFrames else { throw fail("\"frames\" is missing") }
        } catch let error as JSONReader.Failure {
            throw syntax(error)
        } catch let error as InputError {
            throw error
        } catch {
            throw InputError(file: file, message: "\(error)")
        }
    }

    func version(_ value: Any) throws(InputError) {
        let version = try integer(value, q("version"), in: Int64.min...Int64.max)
        guard version == Int64(DetectionsJSON.version) else {
            throw fail("\"version\" \(version) is not supported; this cinepack reads version \(DetectionsJSON.version)")
        }
    }

    /// One frame entry, checked and stored as soon as it is read.
    mutating func entry(_ entry: Any, _ entryIndex: Int) throws(InputError) {
        location = "frame entry \(entryIndex + 1)"
        frame = nil
        let object = try self.object(entry, "a frame entry")
        try onlyKnown(object, ["frame", "detections", "focus", "decision", "f_number", "scene"])
        guard let frameValue = object["frame"] else { throw fail("\"frame\" is missing") }
        let index = Int(try integer(frameValue, q("frame"), in: Int64.min...Int64.max))
        guard index >= 0 else { throw fail("\"frame\" \(index) is negative; frames are numbered from 0") }
        guard index < frameCount else {
            throw fail("\"frame\" \(index) is beyond the clip, which has \(frameCount) frames (0…\(frameCount - 1))")
        }
        if let earlier = entryOfFrame[index] {
            throw fail("frame \(index) is listed twice (frame entries \(earlier + 1) and \(entryIndex + 1))")
        }
        entryOfFrame[index] = entryIndex
        location = "frame \(index)"
        frame = index

        var result = FrameInput()
        if let list = object["detections"] {
            guard let detections = list as? [Any] else { throw fail("\"detections\" must be an array, not \(describe(list))") }
            guard detections.count <= FocusMetadataCodec.maxDetections else {
                throw fail("\(detections.count) detections, more than the \(FocusMetadataCodec.maxDetections) a frame can hold")
            }
            var seen: [UInt32: Int] = [:]
            for (i, value) in detections.enumerated() {
                location = "frame \(index), detection \(i + 1)"
                let detection = try self.detection(value)
                if let other = seen[detection.id] {
                    throw fail("\"id\" \(detection.id) is used twice in this frame (detections \(other + 1) and \(i + 1))")
                }
                seen[detection.id] = i
                detectionIDs.insert(detection.id)
                if detection.groupID != 0 { groupIDs.insert(detection.groupID) }
                result.detections.append(detection)
            }
        }
        if let value = object["focus"] {
            location = "frame \(index), focus"
            let focus = try self.focus(value)
            targets.append((index, "focus", focus.target))
            result.focus = focus
        }
        if let value = object["decision"] {
            location = "frame \(index), decision"
            let decision = try self.decision(value)
            targets.append((index, "decision", decision.target))
            result.decision = decision
        }
        location = "frame \(index)"
        if let value = object["f_number"] {
            let f = try float(value, q("f_number"))
            guard f > 0 else { throw fail("\"f_number\" must be > 0 (got \(f))") }
            result.fNumber = f
        }
        if let value = object["scene"] {
            result.scene = try scene(value)
        }
        frames[index] = result
    }

    // MARK: Objects of the format

    func detection(_ value: Any) throws(InputError) -> DetectionInput {
        let object = try self.object(value, "a detection")
        try onlyKnown(object, ["id", "group", "type", "rect", "disparity", "confidence"])
        guard let idValue = object["id"] else { throw fail("\"id\" is missing") }
        let id = UInt32(try integer(idValue, q("id"), in: 1...Int64(UInt32.max)))
        let group = try object["group"].map { (v) throws(InputError) in UInt32(try integer(v, q("group"), in: 0...Int64(UInt32.max))) } ?? 0
        guard let typeValue = object["type"] else { throw fail("\"type\" is missing; use a name such as \"face\" or a number") }
        let type = try detectionType(typeValue)
        guard let rectValue = object["rect"] else { throw fail("\"rect\" is missing; write [x, y, width, height], normalized") }
        let rect = try self.rect(rectValue)
        var disparity: Float?
        if let v = object["disparity"] {
            let d = try float(v, q("disparity"))
            guard d >= 0 else { throw fail("\"disparity\" must be ≥ 0 diopters (got \(d))") }
            disparity = d
        }
        var confidence: Float = 1
        if let v = object["confidence"] {
            confidence = try float(v, q("confidence"))
            guard (0...1).contains(confidence) else { throw fail("\"confidence\" must be within 0…1 (got \(confidence))") }
        }
        return DetectionInput(id: id, groupID: group, type: type, rect: rect, disparity: disparity, confidence: confidence)
    }

    func detectionType(_ value: Any) throws(InputError) -> DetectionType {
        if let name = value as? String {
            guard let type = DetectionType(name: name) else {
                let names = DetectionType.named.map { "\"\($0.0)\"" }.joined(separator: ", ")
                throw fail("\"type\" \"\(name.prefix(40))\" is not a detection type; use one of \(names) or a number 1…65535")
            }
            return type
        }
        return DetectionType(rawValue: UInt16(try integer(value, q("type"), in: 1...Int64(UInt16.max))))
    }

    func rect(_ value: Any) throws(InputError) -> NormalizedRect {
        guard let array = value as? [Any], array.count == 4 else {
            throw fail("\"rect\" must be an array of 4 numbers [x, y, width, height], not \(describe(value))")
        }
        var numbers: [Float] = []
        for (name, element) in zip(["x", "y", "width", "height"], array) {
            numbers.append(try float(element, "\"rect\" \(name)"))
        }
        let (x, y, w, h) = (numbers[0], numbers[1], numbers[2], numbers[3])
        let tolerance = DetectionsJSON.rectTolerance
        guard w > 0 else { throw fail("\"rect\" width must be > 0 (got \(w))") }
        guard h > 0 else { throw fail("\"rect\" height must be > 0 (got \(h))") }
        guard x >= -tolerance else { throw fail("\"rect\" x \(x) is left of the frame (normalized coordinates are 0…1)") }
        guard y >= -tolerance else { throw fail("\"rect\" y \(y) is above the frame (normalized coordinates are 0…1)") }
        guard x + w <= 1 + tolerance else { throw fail("\"rect\" x + width = \(x + w) is right of the frame (at most 1)") }
        guard y + h <= 1 + tolerance else { throw fail("\"rect\" y + height = \(y + h) is below the frame (at most 1)") }
        // Within tolerance: clamp so the stored rect lies in the frame.
        let left = max(0, x), top = max(0, y)
        return NormalizedRect(x: left, y: top, width: min(1, x + w) - left, height: min(1, y + h) - top)
    }

    func target(_ value: Any, _ field: String) throws(InputError) -> FocusTarget {
        if let text = value as? String {
            guard text == "none" else { throw fail("\"\(field)\" \"\(text)\" is not a target; the only string target is \"none\"") }
            return .none
        }
        let shapes = "{\"detection\": id}, {\"group\": id}, {\"disparity\": d}, {\"point\": [x, y]} or \"none\""
        guard let object = value as? [String: Any], object.count == 1, let only = object.first else {
            throw fail("\"\(field)\" must be one of \(shapes), not \(describe(value))")
        }
        let (kind, inner) = only
        switch kind {
        case "detection":
            return .detection(UInt32(try integer(inner, "\(q(field)) detection id", in: 1...Int64(UInt32.max))))
        case "group":
            return .group(UInt32(try integer(inner, "\(q(field)) group id", in: 1...Int64(UInt32.max))))
        case "disparity":
            let d = try float(inner, "\(q(field)) disparity")
            guard d >= 0 else { throw fail("\"\(field)\" disparity must be ≥ 0 diopters (got \(d))") }
            return .fixedDisparity(d)
        case "point":
            guard let array = inner as? [Any], array.count == 2 else {
                throw fail("\"\(field)\" point must be an array of 2 numbers [x, y], not \(describe(inner))")
            }
            let x = try float(array[0], "\(q(field)) point x")
            let y = try float(array[1], "\(q(field)) point y")
            let range = -DetectionsJSON.rectTolerance...(1 + DetectionsJSON.rectTolerance)
            guard range.contains(x), range.contains(y) else {
                throw fail("\"\(field)\" point (\(x), \(y)) is outside the frame (normalized coordinates are 0…1)")
            }
            return .point(x: min(max(x, 0), 1), y: min(max(y, 0), 1))
        default:
            throw fail("\"\(field)\" has unknown kind \"\(kind)\"; use one of \(shapes)")
        }
    }

    func focus(_ value: Any) throws(InputError) -> FocusInput {
        let object = try self.object(value, "\"focus\"")
        try onlyKnown(object, ["target", "disparity", "strong", "transition"])
        guard let targetValue = object["target"] else { throw fail("\"target\" is missing") }
        var focus = FocusInput(target: try target(targetValue, "target"))
        if let v = object["disparity"] {
            let d = try float(v, q("disparity"))
            guard d >= 0 else { throw fail("\"disparity\" must be ≥ 0 diopters (got \(d))") }
            focus.disparity = d
        }
        if let v = object["strong"] { focus.isStrong = try bool(v, q("strong")) }
        if let v = object["transition"] {
            let progress = try float(v, q("transition"))
            guard (0...1).contains(progress) else { throw fail("\"transition\" progress must be within 0…1 (got \(progress))") }
            // The format has no room for a point target's progress (spec/format.md §6.3).
            if case .point = focus.target, progress != 0 {
                throw fail("\"transition\" progress \(progress) cannot be stored with a point target (spec/format.md §6.3); use 0")
            }
            focus.transitionProgress = progress
        }
        return focus
    }

    func decision(_ value: Any) throws(InputError) -> CapturedDecision {
        let object = try self.object(value, "\"decision\"")
        try onlyKnown(object, ["target", "strong"])
        guard let targetValue = object["target"] else { throw fail("\"target\" is missing") }
        let target = try self.target(targetValue, "target")
        let strong = try object["strong"].map { (v) throws(InputError) in try bool(v, q("strong")) } ?? false
        return CapturedDecision(target: target, isStrong: strong)
    }

    func scene(_ value: Any) throws(InputError) -> SceneStatus {
        let names = SceneStatus.named.map { "\"\($0.0)\"" }.joined(separator: ", ")
        guard let array = value as? [Any] else { throw fail("\"scene\" must be an array of names (\(names)), not \(describe(value))") }
        var status: SceneStatus = []
        for element in array {
            guard let name = element as? String, let flag = SceneStatus.named.first(where: { $0.0 == name })?.1 else {
                throw fail("\"scene\" entry \(describe(element)) is not a scene status; use \(names)")
            }
            status.insert(flag)
        }
        return status
    }

    // MARK: JSON values

    func object(_ value: Any, _ what: String) throws(InputError) -> [String: Any] {
        guard let object = value as? [String: Any] else { throw fail("\(what) must be an object, not \(describe(value))") }
        return object
    }

    func onlyKnown(_ object: [String: Any], _ known: Set<String>) throws(InputError) {
        // Sorted so the message does not depend on dictionary order.
        if let unknown = object.keys.filter({ !known.contains($0) }).sorted().first {
            throw fail("unknown field \"\(unknown)\" (known here: \(known.sorted().map { "\"\($0)\"" }.joined(separator: ", ")))")
        }
    }

    /// Numbers and booleans are both NSNumber (as JSONSerialization gives them); booleans have type "c".
    private func isBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    /// `label` is how the value is named in messages, e.g. `"rect" x`.
    func number(_ value: Any, _ label: String) throws(InputError) -> Double {
        guard let number = value as? NSNumber, !isBoolean(number) else { throw fail("\(label) must be a number, not \(describe(value))") }
        let double = number.doubleValue
        guard double.isFinite else { throw fail("\(label) must be a finite number") }
        return double
    }

    func float(_ value: Any, _ label: String) throws(InputError) -> Float {
        let double = try number(value, label)
        let float = Float(double)
        guard float.isFinite else { throw fail("\(label) \(double) is too large for a 32-bit float") }
        return float
    }

    func integer(_ value: Any, _ label: String, in range: ClosedRange<Int64>) throws(InputError) -> Int64 {
        let double = try number(value, label)
        guard double.rounded() == double else { throw fail("\(label) must be a whole number (got \(double))") }
        // Doubles past ±2^63 do not convert; they are out of every range we accept anyway.
        guard double >= -9.2e18, double <= 9.2e18, range.contains(Int64(double)) else {
            throw fail("\(label) \(double.formatted) is out of range (\(range.lowerBound)…\(range.upperBound))")
        }
        return Int64(double)
    }

    func bool(_ value: Any, _ label: String) throws(InputError) -> Bool {
        guard let number = value as? NSNumber, isBoolean(number) else {
            throw fail("\(label) must be true or false, not \(describe(value))")
        }
        return number.boolValue
    }

    func q(_ name: String) -> String { "\"\(name)\"" }

    func describe(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let s as String: return "the string \"\(s.prefix(40))\""
        case let n as NSNumber: return isBoolean(n) ? (n.boolValue ? "true" : "false") : "the number \(n.doubleValue.formatted)"
        case let a as [Any]: return "an array of \(a.count)"
        case is [String: Any]: return "an object"
        default: return "a \(type(of: value))"
        }
    }
}

extension Double {
    /// Whole numbers without a trailing `.0`, for messages.
    fileprivate var formatted: String {
        if rounded() == self, abs(self) < 1e15 { return String(Int64(self)) }
        return String(self)
    }
}
