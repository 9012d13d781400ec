import Cinepack
import Foundation

// editor-client FILE --at TIME --object ID --still OUT.png
let args = Array(CommandLine.arguments.dropFirst())
func value(_ flag: String) -> String? { args.firstIndex(of: flag).flatMap { args.indices.contains($0 + 1) ? args[$0 + 1] : nil } }
guard let file = args.first, let atText = value("--at"), let id = value("--object").flatMap(UInt32.init), let still = value("--still")
else {
    FileHandle.standardError.write(Data("usage: editor-client FILE --at TIME --object ID --still OUT.png\n".utf8))
    exit(64)
}

do {
    let at = try TimeExpression(parsing: atText)
    var document = try CinematicDocument(path: file)
    for subject in document.subjects {
        let spans = subject.seen.map { "\($0.lowerBound.formattedSeconds())–\($0.upperBound.formattedSeconds())" }
        print("subject \(subject.id) (\(subject.type)): \(spans.joined(separator: ", "))")
    }
    let before = try document.focus(at: at)
    print("focus at \(atText) before: \(before.primary), \(before.focusDisparity) D")

    let outcome = try document.addDecision(target: .object(id), at: at, strength: .strong)
    try document.save()
    print("added decision \(outcome.index + 1): \(outcome.decision.target), \(outcome.decision.strength)")

    let after = try CinematicDocument(path: file).focus(at: at)
    print("focus at \(atText) after: \(after.primary), \(after.focusDisparity) D")

    let frame = try await document.renderFrame(at: at)
    try frame.writePNG(to: still)
    print("wrote \(still): frame \(frame.snapped.frame), focus \(frame.focusDisparity) D, f/\(frame.fNumber)")
} catch {
    FileHandle.standardError.write(Data("editor-client: \(error)\n".utf8))
    exit(1)
}
