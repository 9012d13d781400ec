import CinepackContainer

/// Bytes ⇄ `FrameMetadata` for one focus-metadata sample (spec/format.md §6.2–§6.5).
///
/// Conventions beyond the byte layout, chosen so that `decode(encode(x)) == x`:
/// - `focus == nil` is written as target kind 0 (none), no flags, focus disparity NaN, and a focus
///   payload of exactly that shape reads back as nil (the spec requires the item in every sample).
/// - A decision's focus-disparity field holds the fixed disparity for kind 3 and NaN otherwise;
///   the model does not keep it, so reading ignores it.
/// - A decision on a point needs the point's y, which lies past the 16 bytes of §6.4: such a
///   decision payload is written as 20 bytes (value 2 = y), and a shorter one is refused.
/// - NaN in a disparity field means "unknown" and is kept; ±infinity there, and NaN or infinity
///   anywhere else (rects, confidence, points, fixed disparities, progress, f-number), is refused.
public enum FocusMetadataCodec {
    /// The detections count is a u16, so this is also the most a sample can carry.
    public static let maxDetections = Int(UInt16.max)
    /// Bytes of one detection record (§6.2).
    public static let detectionRecordSize = 40
    public static let focusPayloadSize = 20
    public static let decisionPayloadSize = 16
    /// A point decision carries its y after the 16 bytes of §6.4.
    public static let pointDecisionPayloadSize = 20

    // MARK: Encoding

    /// One sample: items in key order (§6.1 table), with the writer's local ids 1…5. Detections and
    /// focus are always present; decision, f-number and scene only when set.
    ///
    /// Writes the values as they are: a writer calls `validate` first so that it never produces a
    /// sample `decode` refuses (id 0, non-finite rects …). The count is a u16, so detections past
    /// the 65535th are not written; `validate` reports that case too.
    public static func encode(_ frame: FrameMetadata) -> [UInt8] {
        let detections = frame.detections.prefix(maxDetections)
        var w = ByteWriter(capacity: 8 + 4 + detections.count * detectionRecordSize + 28 + 24 + 12 + 12)
        item(.detections, in: &w) { w in
            w.u16(1)
            w.u16(UInt16(detections.count))
            for d in detections {
                w.u32(d.id); w.u32(d.groupID); w.u16(d.type.rawValue); w.u16(0)
                w.f32(d.rect.x); w.f32(d.rect.y); w.f32(d.rect.width); w.f32(d.rect.height)
                w.f32(d.disparity); w.f32(d.confidence); w.u32(0)
            }
        }
        item(.focus, in: &w) { w in
            let focus = frame.focus ?? FocusState(target: .none, focusDisparity: .nan)
            let (kind, id, v1, v2) = fields(of: focus.target)
            var flags: UInt8 = 0
            if focus.isStrong { flags |= 1 }
            if focus.inTransition { flags |= 2 }
            w.u8(1); w.u8(kind); w.u8(flags); w.u8(0)
            w.u32(id); w.f32(focus.focusDisparity); w.f32(v1)
            // Value 2 is a point's y; otherwise the progress, stored only while in transition.
            if case .point = focus.target { w.f32(v2) } else { w.f32(focus.inTransition ? focus.transitionProgress : 0) }
        }
        if let decision = frame.decision {
            item(.decision, in: &w) { w in
                let (kind, id, v1, v2) = fields(of: decision.target)
                w.u8(1); w.u8(kind); w.u8(decision.isStrong ? 1 : 0); w.u8(0)
                w.u32(id)
                if case .fixedDisparity(let d) = decision.target { w.f32(d) } else { w.f32(.nan) }
                w.f32(v1)
                if case .point = decision.target { w.f32(v2) }
            }
        }
        if let fNumber = frame.fNumber {
            item(.fNumber, in: &w) { $0.f32(fNumber) }
        }
        if !frame.scene.isEmpty {
            item(.scene, in: &w) { $0.u32(frame.scene.rawValue) }
        }
        return w.bytes
    }

    private static func item(_ key: FocusMetadataKey, in w: inout ByteWriter, _ body: (inout ByteWriter) -> Void) {
        // An item has the shape of a box whose type is the local id.
        w.box(FourCC(rawValue: key.writerLocalID), body)
    }

    /// Target kind, target id, value 1, value 2 (§6.3).
    private static func fields(of target: FocusTarget) -> (UInt8, UInt32, Float, Float) {
        switch target {
        case .none: (0, 0, 0, 0)
        case .detection(let id): (1, id, 0, 0)
        case .group(let id): (2, id, 0, 0)
        case .fixedDisparity(let d): (3, 0, d, 0)
        case .point(let x, let y): (4, 0, x, y)
        }
    }

    /// Refuses a frame `decode` would refuse once written: more than 65535 detections, detection or
    /// target id 0, non-finite rects, confidences, points or fixed disparities, infinite
    /// disparities, progress outside 0…1, a non-positive f-number. `frameIndex` names the frame.
    public static func validate(_ frame: FrameMetadata, frameIndex: Int? = nil) throws(ContainerError) {
        let prefix = frameIndex.map { "cannot write frame \($0): " } ?? "cannot write frame: "
        func refuse(_ message: String, _ clause: String) -> ContainerError { .malformed(prefix + message, clause: clause) }
        guard frame.detections.count <= maxDetections else {
            throw .limit(prefix + "\(frame.detections.count) detections, more than the \(maxDetections) a sample can hold")
        }
        var ids: Set<UInt32> = []
        for (i, d) in frame.detections.enumerated() {
            if let problem = problem(with: d) { throw refuse("detection \(i + 1) (id \(d.id)): \(problem)", Clause.focusMetadataSample) }
            if !ids.insert(d.id).inserted {
                throw refuse("detection \(i + 1) (id \(d.id)): id \(d.id) appears twice in one frame", Clause.focusMetadataSample)
            }
        }
        if let focus = frame.focus {
            if let problem = problem(with: focus.target) { throw refuse("focus: \(problem)", Clause.focusPayload) }
            if focus.focusDisparity.isInfinite { throw refuse("focus: focus disparity is infinite", Clause.focusPayload) }
            if focus.inTransition, !isPoint(focus.target), !(0...1).contains(focus.transitionProgress) {
                throw refuse("focus: transition progress \(focus.transitionProgress) is outside 0…1", Clause.focusPayload)
            }
        }
        if let decision = frame.decision, let problem = problem(with: decision.target) {
            throw refuse("decision: \(problem)", Clause.decisionPayload)
        }
        if let f = frame.fNumber, !(f.isFinite && f > 0) {
            throw refuse("f-number \(f) is not a positive finite number", Clause.focusMetadataKeys)
        }
    }

    fileprivate static func isPoint(_ target: FocusTarget) -> Bool {
        if case .point = target { return true }
        return false
    }

    /// Why a reader would refuse this detection, or nil.
    private static func problem(with d: Detection) -> String? {
        if d.id == 0 { return "id 0 (ids start at 1)" }
        if ![d.rect.x, d.rect.y, d.rect.width, d.rect.height].allSatisfy(\.isFinite) { return "rect has a non-finite coordinate" }
        if d.rect.width < 0 || d.rect.height < 0 { return "rect has a negative size" }
        if d.disparity.isInfinite { return "disparity is infinite" }
        if !d.confidence.isFinite { return "confidence is not finite" }
        return nil
    }

    private static func problem(with target: FocusTarget) -> String? {
        switch target {
        case .none: nil
        case .detection(let id): id == 0 ? "target detection id 0 (ids start at 1)" : nil
        case .group(let id): id == 0 ? "target group id 0 (0 means no group)" : nil
        case .fixedDisparity(let d): d.isFinite ? nil : "fixed disparity \(d) is not finite"
        case .point(let x, let y): x.isFinite && y.isFinite ? nil : "point (\(x), \(y)) is not finite"
        }
    }

    // MARK: Decoding

    /// `decode` with the track's keys as local id → key name (names this reader does not know are
    /// skipped like unknown local ids).
    public static func decode(
        _ sample: [UInt8], keys: [UInt32: String], sampleIndex: Int, fileOffset: Int64? = nil
    )
        throws(ContainerError) -> FrameMetadata
    {
        try decode(sample, keys: FocusMetadataKeyMap(names: keys), sampleIndex: sampleIndex, fileOffset: fileOffset)
    }

    /// Reads one sample. `keys` maps the track's local ids to keys (items with other ids are
    /// skipped); `sampleIndex` (0-based, = video frame) and `fileOffset` (where the sample starts
    /// in the file, when known) only serve error messages, which name the sample, the item, the
    /// byte offset inside the sample and the spec clause.
    public static func decode(
        _ sample: [UInt8], keys: FocusMetadataKeyMap, sampleIndex: Int, fileOffset: Int64? = nil
    )
        throws(ContainerError) -> FrameMetadata
    {
        var walker = SampleWalker(sample: sample, sampleIndex: sampleIndex, fileOffset: fileOffset)
        guard !sample.isEmpty else {
            throw walker.error("the sample is empty; a metadata sample is never empty (QTFF)", at: 0, clause: Clause.focusMetadataSample)
        }
        var frame = FrameMetadata()
        var seen: Set<FocusMetadataKey> = []
        var position = 0
        var itemNumber = 0
        while position < sample.count {
            itemNumber += 1
            walker.item = (itemNumber, nil)
            let remaining = sample.count - position
            guard remaining >= 8 else {
                throw walker.error(
                    "\(remaining) bytes left, too few for an item header (size + local id, 8 bytes)", at: position,
                    clause: Clause.focusMetadataSample)
            }
            let size = readU32(sample, position)
            let localID = readU32(sample, position + 4)
            guard size >= 8 else {
                throw walker.error(
                    "item size \(size) is smaller than its own 8-byte header", at: position, clause: Clause.focusMetadataSample)
            }
            guard UInt64(size) <= UInt64(remaining) else {
                throw walker.error(
                    "item claims \(size) bytes but only \(remaining) remain in the sample", at: position,
                    clause: Clause.focusMetadataSample)
            }
            let payload = position + 8..<position + Int(size)
            if let key = keys[localID] {
                walker.item = (itemNumber, key)
                guard seen.insert(key).inserted else {
                    throw walker.error("a second '\(key)' item in one sample", at: position, clause: Clause.focusMetadataSample)
                }
                switch key {
                case .detections: frame.detections = try walker.detections(payload)
                case .focus: frame.focus = try walker.focus(payload)
                case .decision: frame.decision = try walker.decision(payload)
                case .fNumber: frame.fNumber = try walker.fNumber(payload)
                case .scene:
                    frame.scene = SceneStatus(rawValue: try walker.word(payload, what: "scene status", clause: Clause.scenePayload))
                }
            }
            // Unknown local ids: skipped whole, for forward compatibility (§6.1).
            position += Int(size)
        }
        walker.item = nil
        for key in FocusMetadataKey.allCases where key.isRequired && !seen.contains(key) {
            throw walker.error("no '\(key)' item; every sample carries one", at: 0, clause: Clause.focusMetadataSample)
        }
        return frame
    }
}

private func readU32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
}

private func readU16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
    UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
}

private func readF32(_ bytes: [UInt8], _ at: Int) -> Float { Float(bitPattern: readU32(bytes, at)) }

/// Reads payloads of one sample. Every payload length is checked before any field is read, so the
/// raw reads below stay inside the sample.
private struct SampleWalker {
    let sample: [UInt8]
    let sampleIndex: Int
    let fileOffset: Int64?
    /// 1-based item number and its key, for messages.
    var item: (number: Int, key: FocusMetadataKey?)?

    init(sample: [UInt8], sampleIndex: Int, fileOffset: Int64?) {
        self.sample = sample
        self.sampleIndex = sampleIndex
        self.fileOffset = fileOffset
    }

    func error(_ message: String, at byte: Int, clause: String, kind: ContainerError.Kind = .malformed) -> ContainerError {
        var place = "metadata sample \(sampleIndex)"
        if let item {
            place += ", item \(item.number)"
            if let key = item.key { place += " (\(key))" }
        }
        return ContainerError(
            kind, "\(place), sample byte \(byte): \(message)", offset: fileOffset.map { $0 + Int64(byte) },
            clause: clause)
    }

    func detections(_ payload: Range<Int>) throws(ContainerError) -> [Detection] {
        let clause = Clause.focusMetadataSample
        guard payload.count >= 4 else {
            throw error(
                "detections payload is \(payload.count) bytes, too short for its version and count (4 bytes)",
                at: payload.lowerBound, clause: clause)
        }
        let base = payload.lowerBound
        let version = readU16(sample, base)
        guard version == 1 else {
            throw error(
                "detections payload version \(version) is not supported (this reader knows version 1)", at: base,
                clause: clause, kind: .unsupported)
        }
        let count = Int(readU16(sample, base + 2))
        let needed = 4 + FocusMetadataCodec.detectionRecordSize * count  // ≤ 4 + 40 · 65535: no overflow
        guard payload.count >= needed else {
            throw error(
                "detections payload is \(payload.count) bytes, shorter than the 4 + 40 × \(count) = \(needed) its count needs",
                at: base, clause: clause)
        }
        // Bounded by the check above: count records fit in the sample.
        var detections: [Detection] = []
        detections.reserveCapacity(count)
        var seenIDs: Set<UInt32> = []
        for i in 0..<count {
            let at = base + 4 + FocusMetadataCodec.detectionRecordSize * i
            let id = readU32(sample, at)
            let what = "detection \(i + 1) (id \(id))"
            guard id != 0 else { throw error("\(what): id 0; detection ids start at 1", at: at, clause: clause) }
            guard seenIDs.insert(id).inserted else { throw error("\(what): id \(id) appears twice in one sample", at: at, clause: clause) }
            let rect = NormalizedRect(
                x: readF32(sample, at + 12), y: readF32(sample, at + 16), width: readF32(sample, at + 20),
                height: readF32(sample, at + 24))
            for (offset, value, name) in [(12, rect.x, "x"), (16, rect.y, "y"), (20, rect.width, "width"), (24, rect.height, "height")] {
                guard value.isFinite else {
                    throw error("\(what): rect \(name) is \(value), not a finite number", at: at + offset, clause: clause)
                }
            }
            guard rect.width >= 0, rect.height >= 0 else {
                throw error("\(what): rect size \(rect.width) × \(rect.height) is negative", at: at + 20, clause: clause)
            }
            let disparity = readF32(sample, at + 28)
            guard !disparity.isInfinite else { throw error("\(what): disparity is infinite", at: at + 28, clause: clause) }
            let confidence = readF32(sample, at + 32)
            guard confidence.isFinite else {
                throw error("\(what): confidence is \(confidence), not a finite number", at: at + 32, clause: clause)
            }
            // Flags (at + 10) and the reserved word (at + 36) are ignored, as §9 asks of readers.
            detections.append(
                Detection(
                    id: id, groupID: readU32(sample, at + 4), type: DetectionType(rawValue: readU16(sample, at + 8)),
                    rect: rect, disparity: disparity, confidence: confidence))
        }
        return detections
    }

    /// The fields common to focus and decision payloads.
    private func target(
        _ payload: Range<Int>, minimum: Int, what: String, clause: String
    )
        throws(ContainerError) -> (target: FocusTarget, flags: UInt8, disparity: Float, value2: Float?)
    {
        let base = payload.lowerBound
        guard payload.count >= minimum else {
            throw error("\(what) payload is \(payload.count) bytes, shorter than \(minimum)", at: base, clause: clause)
        }
        guard sample[base] == 1 else {
            throw error(
                "\(what) payload version \(sample[base]) is not supported (this reader knows version 1)", at: base,
                clause: clause, kind: .unsupported)
        }
        let kind = sample[base + 1]
        let flags = sample[base + 2]
        let id = readU32(sample, base + 4)
        let disparity = readF32(sample, base + 8)
        let value1 = readF32(sample, base + 12)
        let value2: Float? = payload.count >= 20 ? readF32(sample, base + 16) : nil
        guard !disparity.isInfinite else { throw error("\(what): focus disparity is infinite", at: base + 8, clause: clause) }
        let target: FocusTarget
        switch kind {
        case 0:
            target = .none
        case 1, 2:
            guard id != 0 else {
                throw error("\(what): target \(kind == 1 ? "detection" : "group") id is 0", at: base + 4, clause: clause)
            }
            target = kind == 1 ? .detection(id) : .group(id)
        case 3:
            guard value1.isFinite else {
                throw error("\(what): fixed disparity is \(value1), not a finite number", at: base + 12, clause: clause)
            }
            target = .fixedDisparity(value1)
        case 4:
            guard let y = value2 else {
                throw error(
                    "\(what): a point target needs value 2 (the point's y), but the payload is \(payload.count) bytes",
                    at: base, clause: clause)
            }
            guard value1.isFinite, y.isFinite else {
                throw error("\(what): point (\(value1), \(y)) is not finite", at: base + 12, clause: clause)
            }
            target = .point(x: value1, y: y)
        default:
            throw error(
                "\(what): unknown target kind \(kind) (0 none, 1 detection, 2 group, 3 fixed disparity, 4 point)",
                at: base + 1, clause: clause)
        }
        return (target, flags, disparity, value2)
    }

    func focus(_ payload: Range<Int>) throws(ContainerError) -> FocusState? {
        let clause = Clause.focusPayload
        let (target, flags, disparity, value2) = try self.target(
            payload, minimum: FocusMetadataCodec.focusPayloadSize, what: "focus",
            clause: clause)
        let strong = flags & 1 != 0
        let inTransition = flags & 2 != 0
        // The writer's encoding of "no focus state" (see FocusMetadataCodec).
        if target == .none, !strong, !inTransition, disparity.isNaN { return nil }
        var progress: Float = 0  // also for points, whose value 2 is y (§6.3)
        if inTransition, !FocusMetadataCodec.isPoint(target) {
            progress = value2 ?? 0
            guard progress.isFinite, (0...1).contains(progress) else {
                throw error("focus: transition progress \(progress) is outside 0…1", at: payload.lowerBound + 16, clause: clause)
            }
        }
        return FocusState(
            target: target, focusDisparity: disparity, isStrong: strong, inTransition: inTransition,
            transitionProgress: progress)
    }

    func decision(_ payload: Range<Int>) throws(ContainerError) -> CapturedDecision {
        let (target, flags, _, _) = try self.target(
            payload, minimum: FocusMetadataCodec.decisionPayloadSize, what: "decision",
            clause: Clause.decisionPayload)
        return CapturedDecision(target: target, isStrong: flags & 1 != 0)
    }

    func word(_ payload: Range<Int>, what: String, clause: String) throws(ContainerError) -> UInt32 {
        guard payload.count == 4 else {
            throw error("\(what) payload is \(payload.count) bytes, not 4", at: payload.lowerBound, clause: clause)
        }
        return readU32(sample, payload.lowerBound)
    }

    func fNumber(_ payload: Range<Int>) throws(ContainerError) -> Float {
        let value = Float(bitPattern: try word(payload, what: "f-number", clause: Clause.focusMetadataKeys))
        guard value.isFinite, value > 0 else {
            throw error("f-number \(value) is not a positive finite number", at: payload.lowerBound, clause: Clause.focusMetadataKeys)
        }
        return value
    }
}
