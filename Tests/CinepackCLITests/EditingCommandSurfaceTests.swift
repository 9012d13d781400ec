import Cinepack
import Foundation
import TestSupport
import Testing

/// What every editing command shares, through the real binary: the file argument and the output
/// flags (one definition each), the wording of the document's errors, unknown options named with a
/// suggestion, and the refusal of a movie without depth.
@Suite struct EditingCommandSurfaceTests {
    /// Each editing command with a valid rest of the command line.
    static let commands: [(name: String, rest: [String], json: Bool, dryRun: Bool)] = [
        ("refocus", ["--at", "1s", "--object", "1"], true, true),
        ("decisions", [], true, false),
        ("focus", ["--at", "1s"], true, false),
        ("unfocus", ["--all-user"], true, true),
        ("aperture", ["--f-number", "2.8"], true, true),
        ("lens", ["--blades", "6"], true, true),
        ("retime", ["--shift", "+1f", "--range", "0s..1s"], true, true),
        ("trim", ["--all"], true, true),
        ("speed", ["--range", "0s..1s", "--rate", "2"], true, true),
        ("undo", [], true, true),
        ("redo", [], true, true),
        ("plot", ["-o", "/nonexistent-dir/x.svg"], false, false),
    ]

    static func arguments(of command: String) throws -> [[String: Any]] {
        let dump = try CLI.run([command, "--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let info = try #require(root["command"] as? [String: Any])
        return try #require(info["arguments"] as? [[String: Any]])
    }

    static func definition(_ arguments: [[String: Any]], long name: String) -> String? {
        guard
            let found = arguments.first(where: {
                ($0["names"] as? [[String: Any]])?.contains { $0["name"] as? String == name } ?? false
            })
        else { return nil }
        return "\(found["kind"] ?? "") \(found["abstract"] ?? "") \(found["isOptional"] ?? "")"
    }

    @Test func everyEditingCommandSharesTheFileArgumentAndOutputFlags() throws {
        var files: Set<String> = [], jsons: Set<String> = [], dryRuns: Set<String> = []
        for command in Self.commands {
            let arguments = try Self.arguments(of: command.name)
            let first = try #require(arguments.first, "\(command.name)")
            #expect(first["kind"] as? String == "positional", "\(command.name)")
            files.insert("\(first["valueName"] ?? "") \(first["abstract"] ?? "")")
            let json = Self.definition(arguments, long: "json")
            #expect((json != nil) == command.json, "\(command.name) --json")
            json.map { _ = jsons.insert($0) }
            let dryRun = Self.definition(arguments, long: "dry-run")
            #expect((dryRun != nil) == command.dryRun, "\(command.name) --dry-run")
            dryRun.map { _ = dryRuns.insert($0) }
        }
        #expect(files == ["file A cinematic movie."])
        #expect(jsons.count == 1 && dryRuns.count == 1, "\(jsons) \(dryRuns)")
    }

    /// Every leaf subcommand of `cinepack`, by its words (`["edl", "export"]`), with its arguments.
    static func everySubcommand() throws -> [(words: [String], arguments: [[String: Any]])] {
        let dump = try CLI.run(["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [(words: [String], arguments: [[String: Any]])] = []
        func walk(_ command: [String: Any], _ words: [String]) {
            let subcommands = command["subcommands"] as? [[String: Any]] ?? []
            if subcommands.isEmpty, let name = words.last, name != "help" {
                found.append((words, command["arguments"] as? [[String: Any]] ?? []))
            }
            for sub in subcommands { walk(sub, words + [sub["commandName"] as? String ?? "?"]) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    /// `--json`, `--dry-run`, `--force`/`-y` and the movie argument mean the same in every command that
    /// has them (one option group each); every output file is `-o/--output`. `edl import --force`
    /// is the one flag of that name with another meaning (apply an EDL made for other media), and
    /// `inspect` reads any movie, not only cinematic ones.
    @Test func everySubcommandSharesTheFileAndOutputGroups() throws {
        let commands = try Self.everySubcommand()
        #expect(commands.count >= 20, "\(commands.map(\.words))")
        var definitions: [String: Set<String>] = [:]
        var movieArguments: Set<String> = []
        for (words, arguments) in commands {
            let name = words.joined(separator: " ")
            for long in ["json", "dry-run", "force"] where !(long == "force" && name == "edl import") {
                guard let definition = Self.definition(arguments, long: long) else { continue }
                definitions[long, default: []].insert(definition)
            }
            if let force = arguments.first(where: {
                ($0["names"] as? [[String: Any]])?.contains { $0["name"] as? String == "force" } ?? false
            }),
                name != "edl import"
            {
                let names = (force["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                #expect(Set(names) == ["force", "y"], "\(name): \(names)")
            }
            if let output = arguments.first(where: {
                ($0["names"] as? [[String: Any]])?.contains { $0["name"] as? String == "output" } ?? false
            }) {
                let names = (output["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                #expect(Set(names) == ["output", "o"], "\(name): \(names)")
            }
            if let file = arguments.first(where: { $0["kind"] as? String == "positional" && $0["valueName"] as? String == "file" }),
                name != "inspect"
            {
                movieArguments.insert("\(file["abstract"] ?? "")")
            }
        }
        for long in ["json", "dry-run", "force"] {
            #expect(definitions[long]?.count == 1, "--\(long): \(definitions[long] ?? [])")
        }
        #expect(movieArguments == ["A cinematic movie."])
    }

    /// The EDL and timeline commands open the movie as a document too: the same refusal.
    @Test func edlAndTimelineCommandsRefuseAMovieWithoutDepth() throws {
        let dir = try Paths.temporaryDirectory()
        let demo = dir.file("demo.mov"), flat = dir.file("flat.mov"), sidecar = dir.file("edits.xml")
        #expect(try CLI.run(["demo", "-o", demo, "--seconds", "1", "--size", "128x72"]).status == 0)
        #expect(try CLI.run(["render", demo, "-o", flat, "--range", "0s..0.1s", "--quality", "preview"]).status == 0)
        #expect(try CLI.run(["edl", "export", demo, "-o", sidecar]).status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: flat))
        let expected = "Error: \(flat) is not a cinematic movie (no disparity/focus-metadata track); make one with `cinepack pack`\n"
        for arguments in [
            ["edl", "export", flat], ["edl", "import", flat, sidecar],
            ["export-timeline", flat, "--format", "otio", "-o", dir.file("t.otio")],
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == expected, "\(arguments): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: flat)) == original)
        #expect(!FileManager.default.fileExists(atPath: dir.file("t.otio")))
        // A sidecar bound to other media keeps its wording, with the flag that applies it anyway.
        let other = dir.file("other.mov")
        #expect(try CLI.run(["demo", "-o", other, "--seconds", "2", "--size", "128x72"]).status == 0)
        let ours = try #require(try MovieEdits.open(path: demo).edl.media)
        let theirs = try #require(try MovieEdits.open(path: other).edl.media)
        let refused = try CLI.run(["edl", "import", other, sidecar])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: \(sidecar) was made for other media (\(ours.frameCount) frames at \(ours.frameRate), fingerprint \(ours.fingerprint)); \(other) has \(theirs.frameCount) frames at \(theirs.frameRate), fingerprint \(theirs.fingerprint). Use --force to apply it anyway\n",
            "\(refused.stderr)")
    }

    @Test func aMovieWithoutDepthIsRefusedByEveryEditingCommand() throws {
        let dir = try Paths.temporaryDirectory()
        let demo = dir.file("demo.mov"), flat = dir.file("flat.mov")
        #expect(try CLI.run(["demo", "-o", demo, "--seconds", "1", "--size", "128x72"]).status == 0)
        #expect(try CLI.run(["render", demo, "-o", flat, "--range", "0s..0.1s", "--quality", "preview"]).status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: flat))
        let expected = "Error: \(flat) is not a cinematic movie (no disparity/focus-metadata track); make one with `cinepack pack`\n"
        for command in Self.commands {
            let result = try CLI.run([command.name, flat] + command.rest)
            #expect(result.status == 1, "\(command.name)")
            #expect(result.stderr == expected, "\(command.name): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: flat)) == original)
    }

    @Test func unknownOptionsAreNamedWithTheNearestOne() throws {
        let cases: [([String], String)] = [
            (["refocus", "x.mov", "--at", "1s", "--objetc", "3"], "unknown option '--objetc'; did you mean '--object'?"),
            (["trim", "x.mov", "--kepe", "0s..1s"], "unknown option '--kepe'; did you mean '--keep'?"),
            (["aperture", "x.mov", "--fnumber", "2"], "unknown option '--fnumber'; did you mean '--f-number'?"),
            (["edl", "export", "x.mov", "--outptu", "y.xml"], "unknown option '--outptu'; did you mean '--output'?"),
            (["render", "x.mov", "--qualty=preview"], "unknown option '--qualty'; did you mean '--quality'?"),
            (["focus", "x.mov", "--zzzzzzzz"], "unknown option '--zzzzzzzz'; see 'cinepack focus --help'"),
        ]
        for (arguments, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == "Error: \(message)\n", "\(arguments): \(result.stderr)")
        }
    }

    /// Today's wording of the rules' refusals, whole lines (golden).
    @Test func refusalsKeepTheirWording() throws {
        let dir = try Paths.temporaryDirectory()
        let demo = dir.file("demo.mov")
        #expect(try CLI.run(["demo", "-o", demo, "--seconds", "4", "--size", "160x90"]).status == 0)
        let cases: [([String], String)] = [
            (
                ["refocus", demo, "--at", "1.5s", "--object", "9"],
                "object 9 is not visible at 1.500s (frame 45); it is seen at 0.000s–0.800s, 2.733s–3.967s"
            ),
            (
                ["refocus", demo, "--at", "1.0s", "--object", "99"],
                "no object 99 in this movie; objects at 1.000s (frame 30): 1 (face), 2 (head), 3 (torso), 4 (face), 5 (head), "
                    + "6 (torso), 7 (dog-body), 8 (dog-head)"
            ),
            (["refocus", demo, "--at", "9s", "--object", "1"], "9s is outside the clip (frames 0…119, 0s…4.000s)"),
            (["refocus", demo, "--at", "1s", "--point", "200,20"], "point 200,20 is outside the frame (160×90 pixels, or 0…1 normalized)"),
            (["unfocus", demo, "--decision", "3"], "\(demo): no user decision 3; there are 0 (see `cinepack decisions`)"),
            (["undo", demo], "\(demo): nothing to undo"),
        ]
        for (arguments, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "Error: \(message)\n", "\(arguments): \(result.stderr)")
        }
    }

    @Test func clearingTheEditsCanBeUndone() throws {
        let dir = try Paths.temporaryDirectory()
        let demo = dir.file("demo.mov")
        #expect(try CLI.run(["demo", "-o", demo, "--seconds", "1", "--size", "128x72"]).status == 0)
        #expect(try CLI.run(["refocus", demo, "--at", "0.5s", "--object", "4"]).status == 0)
        #expect(try CLI.run(["aperture", demo, "--f-number", "2.8"]).status == 0)
        func stored() throws -> EditDecisionList {
            try EditDecisionList.parse(Array(try CLI.run(["edl", "export", demo]).stdout.utf8), source: "export")
        }
        /// What the edits say, without their undo and redo steps.
        func body(_ edl: EditDecisionList) -> [UInt8] {
            var copy = edl
            copy.history = []
            copy.redo = []
            return copy.xmlData()
        }
        let before = try stored()
        #expect(try CLI.run(["edl", "clear", demo]).status == 0)
        let cleared = try EditDecisionList.parse(Array(try CLI.run(["edl", "export", demo]).stdout.utf8), source: "cleared")
        #expect(cleared.decisions.isEmpty && cleared.fNumber == nil)
        let undone = try CLI.run(["undo", demo])
        #expect(undone.stdout == "undid \"clear all edits\"; 2 earlier steps remain\n", "\(undone.stderr)")
        let redone = try CLI.run(["redo", demo])
        #expect(redone.stdout == "redid \"clear all edits\"; 3 earlier steps remain\n", "\(redone.stderr)")
        let again = try EditDecisionList.parse(Array(try CLI.run(["edl", "export", demo]).stdout.utf8), source: "redone")
        #expect(again.decisions.isEmpty && again.fNumber == nil)
        #expect(try CLI.run(["undo", demo]).status == 0)
        let afterSecondUndo = try stored()
        #expect(body(afterSecondUndo) == body(before) && afterSecondUndo.redo.count == 1)
        // Another edit drops what could be redone.
        #expect(try CLI.run(["aperture", demo, "--f-number", "4"]).status == 0)
        let nothing = try CLI.run(["redo", demo])
        #expect(nothing.status == 1 && nothing.stderr == "Error: \(demo): nothing to redo\n", "\(nothing.stderr)")
    }
}
