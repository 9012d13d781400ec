import CinepackTime
import Foundation

/// Tracker output in the MOT challenge layout (spec/detections.md §3): one box per line,
/// `frame,id,x,y,w,h,conf,...`, frames from 1, boxes in pixels. Columns after `conf` (MOT's
/// class/visibility or 3-D position) are ignored.
public enum MOTCSV {
    /// MOT files do not say what they track, so rows are custom detections unless told otherwise.
    public static let defaultType = DetectionType.custom

    public static func load(
        path: String, frameCount: Int, width: Int, height: Int, type: DetectionType = defaultType
    )
        throws(InputError) -> [FrameInput]
    {
        try parse(DetectionsInput.readFile(path), file: path, frameCount: frameCount, width: width, height: height, type: type)
    }

    /// `file` only names the input in messages; `width` × `height` is the video's size in pixels.
    /// Returns exactly `frameCount` frames.
    public static func parse(
        _ data: Data, file: String, frameCount: Int, width: Int, height: Int, type: DetectionType = defaultType
    )
        throws(InputError) -> [FrameInput]
    {
        guard width > 0, height > 0 else {
            throw InputError(file: file, message: "the video size \(width)×\(height) is needed to normalize MOT boxes")
        }
        let frameCount = max(0, frameCount)
        var frames = [FrameInput](repeating: FrameInput(), count: frameCount)
        // (frame, id) → line, to report both lines of a duplicate.
        var lineOf: [Int: [UInt32: Int]] = [:]
        let (w, h) = (Double(width), Double(height))
        var sawData = false

        for (lineIndex, rawLine) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let lineNumber = lineIndex + 1
            func fail(_ message: String, frame: Int? = nil) -> InputError {
                InputError(file: file, line: lineNumber, frame: frame, message: message)
            }
            let text = String(decoding: rawLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty || text.hasPrefix("#") { continue }
            let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // One optional header line, recognised by its first column.
            if !sawData, fields.first?.lowercased() == "frame" {
                sawData = true
                continue
            }
            sawData = true
            guard fields.count >= 6 else {
                throw fail("\(fields.count) columns; a MOT line has at least frame,id,x,y,w,h")
            }
            func number(_ column: Int, _ name: String) throws(InputError) -> Double {
                // Decimal only: `0x10` is not an id, `inf` not a coordinate.
                guard let value = try? DecimalNumber.double(fields[column]) else {
                    throw fail("column \(column + 1) (\(name)) is \"\(fields[column].prefix(40))\", not a finite number")
                }
                return value
            }
            func whole(_ column: Int, _ name: String) throws(InputError) -> Int64 {
                let value = try number(column, name)
                guard value.rounded() == value, abs(value) < 9e15 else {
                    throw fail("column \(column + 1) (\(name)) is \(fields[column]), not a whole number")
                }
                return Int64(value)
            }
            let frameNumber = try whole(0, "frame")
            guard frameNumber >= 1 else { throw fail("frame \(frameNumber): MOT frames are numbered from 1") }
            guard frameNumber <= Int64(frameCount) else {
                throw fail("frame \(frameNumber) is beyond the clip, which has \(frameCount) frames (1…\(frameCount) in MOT numbering)")
            }
            let frame = Int(frameNumber - 1)
            let idValue = try whole(1, "id")
            guard idValue >= 1, idValue <= Int64(UInt32.max) else {
                throw fail("id \(idValue) is not a track id ≥ 1 (untracked detections, id -1, cannot be packed)", frame: frame)
            }
            let id = UInt32(idValue)
            let (x, y, bw, bh) = (try number(2, "x"), try number(3, "y"), try number(4, "w"), try number(5, "h"))
            guard bw > 0, bh > 0 else { throw fail("box size \(bw)×\(bh) must be positive", frame: frame) }
            // MOT boxes of subjects entering or leaving the picture stick out of it: keep the
            // visible part; a box with none is an error.
            let left = max(0, x), top = max(0, y), right = min(w, x + bw), bottom = min(h, y + bh)
            guard right > left, bottom > top else {
                throw fail("box (\(x), \(y), \(bw), \(bh)) lies entirely outside the \(width)×\(height) frame", frame: frame)
            }
            var confidence: Float = 1
            if fields.count >= 7, !fields[6].isEmpty {
                let c = try number(6, "conf")
                if c == -1 {
                    confidence = 1  // MOT's "unknown"
                } else {
                    guard (0...1).contains(c) else { throw fail("conf \(c) is neither -1 (unknown) nor within 0…1", frame: frame) }
                    confidence = Float(c)
                }
            }
            if let other = lineOf[frame]?[id] {
                throw fail("id \(id) appears twice in frame \(frameNumber) (lines \(other) and \(lineNumber))", frame: frame)
            }
            lineOf[frame, default: [:]][id] = lineNumber
            guard frames[frame].detections.count < FocusMetadataCodec.maxDetections else {
                throw fail("more than \(FocusMetadataCodec.maxDetections) boxes in frame \(frameNumber)", frame: frame)
            }
            let rect = NormalizedRect(
                x: Float(left / w), y: Float(top / h), width: Float((right - left) / w), height: Float((bottom - top) / h))
            frames[frame].detections.append(DetectionInput(id: id, type: type, rect: rect, disparity: nil, confidence: confidence))
        }
        return frames
    }
}
