import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Progress of long work on stderr: a bar redrawn in place on a terminal, nothing otherwise
/// (so logs and pipes stay clean), or one JSON object per line with `--progress-json`.
struct ProgressReporter {
    enum Style { case automatic, json, none }
    let label: String
    let style: Style
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private var lastDrawn = -1

    init(label: String, style: Style = .automatic) {
        self.label = label
        self.style = style
    }

    mutating func update(_ done: Int, of total: Int) {
        switch style {
        case .none:
            return
        case .json:
            CLIErrors.note(#"{"event":"progress","task":"\#(label)","done":\#(done),"total":\#(total)}"#)
        case .automatic:
            guard isTerminal, total > 0 else { return }
            let percent = done * 100 / total
            guard percent != lastDrawn || done == total else { return }
            lastDrawn = percent
            let width = 30
            let filled = done * width / total
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total) \(percent)%".utf8))
            if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
        }
    }
}
