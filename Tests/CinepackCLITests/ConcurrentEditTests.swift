import Cinepack
import Foundation
import TestSupport
import Testing

/// In-place edits from two processes, and from two library handles, on one movie: every edit
/// that reported success is in the file at the end, every refused one said so (exit status 3,
/// "changed by another process"), the file always opens, and the undo history is consistent.
@Suite struct ConcurrentEditTests {
    /// A 120-frame demo clip (2 s at 60 fps, the smallest picture), so each edit can own a frame.
    static func clip() throws -> (TemporaryDirectory, String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        let made = try CLI.run(["demo", "-o", path, "--seconds", "2", "--fps", "60", "--size", "128x72"])
        #expect(made.status == 0, "\(made.stderr)")
        return (dir, path)
    }

    final class Outcomes: @unchecked Sendable {
        let lock = NSLock()
        var succeeded: [Int] = []
        var refused: [Int] = []
        var problems: [String] = []
        func add(_ frame: Int, _ result: CLI.Output) {
            lock.lock()
            defer { lock.unlock() }
            if result.status == 0 {
                succeeded.append(frame)
            } else if result.status == 3 && result.stderr.contains("was changed by another process since it was read; nothing written") {
                refused.append(frame)
            } else {
                problems.append("frame \(frame): status \(result.status): \(result.stderr)")
            }
        }
    }

    @Test func twoProcessesTimesFiftyEdits() throws {
        let (dir, path) = try Self.clip()
        defer { withExtendedLifetime(dir) {} }
        let outcomes = Outcomes()
        // Process A edits frames 0, 2, 4, …; process B frames 1, 3, 5, …; each decision's
        // disparity names its frame, so the final EDL can be checked edit by edit.
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for i in 0..<50 {
                let frame = 2 * i + worker
                let disparity = String(format: "%.3f", 0.5 + Double(frame) / 1000)
                do {
                    let result = try CLI.run(["refocus", path, "--at", "\(frame)f", "--disparity", disparity])
                    outcomes.add(frame, result)
                } catch {
                    outcomes.lock.lock()
                    outcomes.problems.append("frame \(frame): \(error)")
                    outcomes.lock.unlock()
                }
                // The file opens between edits, whoever is writing.
                if i % 10 == 9 {
                    let check = try? CLI.run(["decisions", path, "--json"])
                    if check?.status != 0 {
                        outcomes.lock.lock()
                        outcomes.problems.append("the file did not open: \(check?.stderr ?? "did not run")")
                        outcomes.lock.unlock()
                    }
                }
            }
        }
        #expect(outcomes.problems.isEmpty, "\(outcomes.problems)")
        #expect(outcomes.succeeded.count + outcomes.refused.count == 100)
        let edits = try MovieEdits.open(path: path)
        let stored = Set(edits.edl.decisions.map { Int($0.frame) })
        #expect(stored == Set(outcomes.succeeded), "missing: \(Set(outcomes.succeeded).subtracting(stored))")
        for decision in edits.edl.decisions {
            guard case .fixedDisparity(let d) = decision.target else {
                Issue.record("unexpected target \(decision.target)")
                continue
            }
            #expect(abs(Double(d) - (0.5 + Double(decision.frame) / 1000)) < 1e-4)
        }
        // Undo history: each step holds the EDL before it, one decision fewer, in order.
        var later = edits.edl
        for step in edits.edl.history.reversed() {
            let previous = try step.previousList()
            #expect(previous.decisions.count == later.decisions.count - 1, "\(step.description)")
            #expect(Set(previous.decisions.map(\.frame)).isSubset(of: Set(later.decisions.map(\.frame))))
            later = previous
        }
        print("concurrent edits: \(outcomes.succeeded.count) stored, \(outcomes.refused.count) refused as changed meanwhile")
    }

    @Test func twoLibraryHandles() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: path)
        var first = try MovieEdits.open(path: path)
        var second = try MovieEdits.open(path: path)
        #expect(first.sequence == second.sequence)
        try first.edit("aperture f/2") { $0.fNumber = 2 }
        let afterFirst = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            try second.edit("aperture f/8") { $0.fNumber = 8 }
            Issue.record("a stale handle overwrote another's edit")
        } catch {
            #expect(error.isChangedByAnotherWriter, "\(error)")
            #expect(error.storage?.file == path)
            #expect(error.description.contains("was changed by another process since it was read; nothing written"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == afterFirst)
        #expect(second.edl.fNumber == nil)  // the refused handle is unchanged
        // Read again, redo: both edits are there, in order, and undo steps back through them.
        second = try MovieEdits.open(path: path)
        try second.edit("aperture f/8") { $0.fNumber = 8 }
        // The first handle is now stale in turn.
        #expect(throws: EDLCommandError.self) { try first.edit("aperture f/4") { $0.fNumber = 4 } }
        var reread = try MovieEdits.open(path: path)
        #expect(reread.edl.fNumber == 8)
        #expect(reread.edl.history.map(\.description) == ["aperture f/2", "aperture f/8"])
        try reread.undo()
        #expect(try MovieEdits.open(path: path).edl.fNumber == 2)
    }

    /// A movie without slots: the first save rewrites the whole file and renames it over the
    /// path; a handle that read the old file must still see that it changed.
    @Test func staleHandleAfterAWholeFileRewrite() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: path)
        try WriteFailureTests.stripSlots(path)
        var first = try MovieEdits.open(path: path)
        var second = try MovieEdits.open(path: path)
        let result = try first.edit("aperture f/2") { $0.fNumber = 2 }.result
        #expect(result?.isFullRewrite == true)
        let error = #expect(throws: EDLCommandError.self) { try second.edit("aperture f/8") { $0.fNumber = 8 } }
        #expect(error?.isChangedByAnotherWriter == true, "\(String(describing: error))")
        #expect(try MovieEdits.open(path: path).edl.fNumber == 2)
    }

    /// A writer holding the lock longer than the wait makes the next one give up with "busy" (exit 4).
    @Test func heldLockMeansBusy() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let holder = try POSIXStorageIO().openForUpdate(path: path)
        let result = try CLI.run(["aperture", path, "--f-number", "2"], environment: ["CINEPACK_LOCK_WAIT": "0.3"])
        holder.close()
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("is busy"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // Released: the same edit goes through.
        #expect(try CLI.run(["aperture", path, "--f-number", "2"]).status == 0)
    }
}
