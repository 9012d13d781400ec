import Foundation
import TestSupport
import Testing

/// The farm recipes of docs/farm/ run for real: the Slurm job array and its dependent concat on a
/// one-node cluster started by scripts/slurm-local.sh; the Kubernetes manifest's structure
/// checked and each pod's command run as the kubelet would (Kubernetes cannot run here); the
/// OpenJD template decoded by openjd-model and its tasks run. Each result must be the
/// one-process render frame for frame.
@Suite struct FarmRecipeTests {
    static func recipe(_ name: String) -> String { Paths.root.appendingPathComponent("docs/farm/\(name)").path }
    static let binaryDirectory = URL(fileURLWithPath: Paths.cinepackBinary).deletingLastPathComponent().path

    /// Runs a command with extra environment (cinepack on the PATH first) through /usr/bin/env.
    @discardableResult
    static func run(_ command: [String], environment: [String: String] = [:], allowFailure: Bool = false) throws -> Peers.Result {
        let path = "\(binaryDirectory):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"
        let variables = environment.merging(["PATH": path, "CINEPACK": Paths.cinepackBinary]) { a, _ in a }
        return try Peers.run("/usr/bin/env", variables.map { "\($0.key)=\($0.value)" } + command, allowFailure: allowFailure)
    }

    static func oneProcessFrames(_ source: String, _ dir: TemporaryDirectory, quality: String) throws -> [String] {
        let whole = dir.file("whole-\(quality).mov")
        let made = try CLI.run(["render", source, "-o", whole, "--quality", quality])
        #expect(made.status == 0, "\(made.stderr)")
        return try FarmCommandTests.frames(whole)
    }

    static func clip(_ dir: TemporaryDirectory, name: String = "clip.mov") throws -> String {
        let source = dir.file(name)
        let made = try CLI.run(["demo", "-o", source, "--seconds", "0.5", "--size", "128x72"])
        #expect(made.status == 0, "\(made.stderr)")
        return source
    }

    @Test(.enabled(if: Peers.shouldRun("sbatch"), Peers.skipNote("sbatch")), .timeLimit(.minutes(4)))
    func slurmArrayOfFourShardsThenConcat() throws {
        _ = try Peers.require("sbatch")
        let script = Paths.root.appendingPathComponent("scripts/slurm-local.sh").path
        // The cluster is started before the tests (`.ci/run` runs `scripts/slurm-local.sh start`):
        // daemons spawned from inside the test process leave it waiting on their launcher.
        guard try Peers.run("/bin/bash", [script, "status"], allowFailure: true).status == 0 else {
            if Peers.isCI {
                Issue.record("the one-node Slurm cluster is not running: .ci/run starts it with scripts/slurm-local.sh start")
            } else {
                print("note: skipping the Slurm recipe test: start the cluster first with scripts/slurm-local.sh start")
            }
            return
        }
        let started = try Peers.run("/bin/bash", [script, "start"], allowFailure: true)
        #expect(started.status == 0, "slurm-local.sh start failed: \(started.stderr)")
        guard started.status == 0 else { return }
        let conf =
            started.text.split(separator: "\n").first { $0.hasPrefix("export SLURM_CONF=") }
            .map { String($0.dropFirst("export SLURM_CONF=".count)) } ?? ""
        let environment = ["SLURM_CONF": conf]

        let dir = try Paths.temporaryDirectory()
        let source = try Self.clip(dir)
        let parts = dir.file("parts"), output = dir.file("farm.mov")
        let submitted = try Self.run(
            ["bash", Self.recipe("slurm-submit.sh"), source, parts, output, "4", "--quality", "preview"], environment: environment)
        let ids = submitted.text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(ids.count == 2, "sbatch ids: \(submitted.text)")
        guard ids.count == 2 else { return }
        // Wait (bounded) until the concat job has left the queue.
        let deadline = Date().addingTimeInterval(150)
        var state = ""
        while Date() < deadline {
            let show = try Self.run(["scontrol", "show", "job", ids[1]], environment: environment, allowFailure: true).text
            state = show.split(separator: " ").first { $0.hasPrefix("JobState=") }.map(String.init) ?? "JobState=?"
            if ["JobState=COMPLETED", "JobState=FAILED", "JobState=CANCELLED", "JobState=TIMEOUT"].contains(state) { break }
            Thread.sleep(forTimeInterval: 0.5)
        }
        func logs() -> String {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: parts)) ?? []
            let jobLogs = files.filter { $0.hasSuffix(".log") }.sorted().map { name in
                "== \(name)\n" + ((try? String(contentsOfFile: "\(parts)/\(name)", encoding: .utf8)) ?? "")
            }
            let daemons = (try? Peers.run("/bin/bash", [script, "logs"], allowFailure: true).text) ?? ""
            return jobLogs.joined(separator: "\n") + "\n" + daemons
        }
        #expect(state == "JobState=COMPLETED", "concat job \(ids[1]): \(state)\n\(logs())")
        guard state == "JobState=COMPLETED" else { return }
        let partFiles = try FileManager.default.contentsOfDirectory(atPath: parts).filter { $0.hasSuffix(".mov") }.sorted()
        #expect(partFiles == ["part-00001.mov", "part-00002.mov", "part-00003.mov", "part-00004.mov"])
        #expect(try FarmCommandTests.frames(output) == Self.oneProcessFrames(source, dir, quality: "preview"), "\(logs())")
    }

    @Test(.enabled(if: Peers.shouldRun("python3"), Peers.skipNote("python3")))
    func kubernetesIndexedJobPodsRenderTheShardsAndTheConcatJobJoinsThem() throws {
        // Kubernetes cannot run here: the manifest is checked and its pod commands are run locally.
        let dir = try Paths.temporaryDirectory()
        let media = dir.file("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        let source = try Self.clip(dir, name: "media/clip.mov")
        let result = try Self.run([
            "python3", Paths.root.appendingPathComponent("Tests/Interop/farm_recipes.py").path, "k8s", Self.recipe("k8s-render.yaml"),
            media,
        ])
        #expect(result.text.contains(#""shards": 4"#), "\(result.text) \(result.stderr)")
        let parts = try FileManager.default.contentsOfDirectory(atPath: "\(media)/parts").sorted()
        #expect(parts == ["part-00001.mov", "part-00002.mov", "part-00003.mov", "part-00004.mov"])
        #expect(try FarmCommandTests.frames("\(media)/rendered.mov") == Self.oneProcessFrames(source, dir, quality: "export"))
    }

    @Test(.enabled(if: Peers.shouldRun("python3"), Peers.skipNote("python3")))
    func openJobDescriptionTemplateRunsOneTaskPerShardThenConcat() throws {
        let dir = try Paths.temporaryDirectory()
        let source = try Self.clip(dir)
        let output = dir.file("openjd.mov")
        let result = try Self.run([
            "python3", Paths.root.appendingPathComponent("Tests/Interop/farm_recipes.py").path, "openjd", Self.recipe("openjd-render.yaml"),
            source, dir.file("parts"), output, "3",
        ])
        #expect(result.text.contains(#""tasks": 3"#), "\(result.text) \(result.stderr)")
        #expect(try FarmCommandTests.frames(output) == Self.oneProcessFrames(source, dir, quality: "preview"))
    }
}
