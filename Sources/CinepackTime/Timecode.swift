/// SMPTE timecode (ST 12-1) counting: labels `hh:mm:ss:ff` ⇄ frame numbers.
///
/// Timecode counts in whole "nominal" frames per second, `ceil(fps)`. At 29.97 and 59.94 fps that runs
/// slow against the clock, so drop-frame timecode skips the labels ;00–;01 (;00–;03 at 59.94) at the start
/// of every minute except minutes divisible by ten. No frames are dropped, only labels.

/// The timecode label of `frame`, e.g. frame 1800 at 30000/1001 with `dropFrame` is `00:01:00;02`.
///
/// Hours are not wrapped at 24 and grow past two digits when needed; frames get three digits at rates
/// above 100 fps; negative frames get a leading `-`. `dropFrame` applies only to 30000/1001 and 60000/1001
/// (`rate.isDropFrameCandidate`); at other rates it is ignored and the label is non-drop, since SMPTE
/// defines no drop-frame counting for them.
package func timecode(ofFrame frame: Int64, rate: FrameRate, dropFrame: Bool) -> String {
    let counting = TimecodeCounting(rate: rate, dropFrame: dropFrame)
    let label = counting.label(ofFrame: frame.magnitude)
    return (frame < 0 ? "-" : "") + counting.format(label)
}

/// The counting rules for one rate and mode.
struct TimecodeCounting: Sendable {
    /// Frames per timecode second, ceil(fps).
    let nominal: Int64
    /// Labels skipped at the start of each minute not divisible by ten; 0 for non-drop.
    let dropped: Int64

    init(rate: FrameRate, dropFrame: Bool) {
        nominal = rate.nominalRate
        dropped = dropFrame ? (rate.dropFramesPerMinute ?? 0) : 0
    }

    var isDropFrame: Bool { dropped > 0 }

    struct Label: Equatable {
        var hours: UInt64
        var minutes: UInt64
        var seconds: UInt64
        var frames: UInt64
    }

    /// The label of a non-negative frame number. Works on magnitudes so that every `Int64` has a label.
    func label(ofFrame frame: UInt64) -> Label {
        let base = UInt64(nominal)
        var totalMinutes: UInt64
        var frameInMinute: UInt64
        if isDropFrame {
            let drop = UInt64(dropped)
            let perMinute = base * 60 - drop  // a minute that skips labels
            let perTenMinutes = base * 600 - drop * 9  // the first minute of ten keeps all its labels
            let tens = frame / perTenMinutes
            let inTen = frame % perTenMinutes
            if inTen < base * 60 {
                totalMinutes = tens * 10
                frameInMinute = inTen
            } else {
                let afterFirst = inTen - base * 60
                totalMinutes = tens * 10 + 1 + afterFirst / perMinute
                frameInMinute = afterFirst % perMinute + drop  // labels resume after the skipped ones
            }
        } else {
            let perMinute = base * 60
            totalMinutes = frame / perMinute
            frameInMinute = frame % perMinute
        }
        return Label(
            hours: totalMinutes / 60, minutes: totalMinutes % 60,
            seconds: frameInMinute / base, frames: frameInMinute % base)
    }

    func format(_ label: Label) -> String {
        func padded(_ n: UInt64, _ width: Int) -> String {
            let digits = "\(n)"
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let frameWidth = nominal > 100 ? 3 : 2
        return padded(label.hours, 2) + ":" + padded(label.minutes, 2) + ":" + padded(label.seconds, 2)
            + (isDropFrame ? ";" : ":") + padded(label.frames, frameWidth)
    }

    enum LabelProblem: Error, Equatable {
        case fieldOutOfRange
        case framesTooLarge
        case skippedLabel
        case overflow
    }

    /// The frame number a label names, or why it names none.
    func frameNumber(hours: Int, minutes: Int, seconds: Int, frames: Int) -> Result<Int64, LabelProblem> {
        guard hours >= 0, (0..<60).contains(minutes), (0..<60).contains(seconds), frames >= 0 else {
            return .failure(.fieldOutOfRange)
        }
        guard Int64(frames) < nominal else { return .failure(.framesTooLarge) }
        // Checked all the way: hours come from user text and may be huge.
        func checked(_ r: (partialValue: Int64, overflow: Bool)) -> Int64? { r.overflow ? nil : r.partialValue }
        guard let hourMinutes = checked(Int64(hours).multipliedReportingOverflow(by: 60)),
            let minutesCount = checked(hourMinutes.addingReportingOverflow(Int64(minutes))),
            let minuteSeconds = checked(minutesCount.multipliedReportingOverflow(by: 60)),
            let secondsCount = checked(minuteSeconds.addingReportingOverflow(Int64(seconds))),
            let secondFrames = checked(secondsCount.multipliedReportingOverflow(by: nominal)),
            let labelCount = checked(secondFrames.addingReportingOverflow(Int64(frames)))
        else { return .failure(.overflow) }
        if isDropFrame && minutesCount % 10 != 0 && seconds == 0 && Int64(frames) < dropped {
            return .failure(.skippedLabel)
        }
        // Minus the labels skipped in every started minute not divisible by ten (cannot overflow:
        // it is below labelCount, which fit).
        let n = labelCount - dropped * (minutesCount - minutesCount / 10)
        return .success(n)
    }
}
