import Cinepack
import Foundation
import TestSupport
import Testing

/// A seeded mutation fuzzer of whole cinematic movies through every reading command of the real
/// binary: the mutations hit the metadata samples, the disparity samples and the sample tables'
/// values (counts, deltas, samples per chunk, sizes, chunk offsets), not only box headers. Every
/// command must end by itself (exit 0 or 1, never a signal) within a time and memory bound, and
/// leave the movie byte-identical. Fixed seeds and count keep the CI cost to about a minute.
@Suite struct CommandMutationFuzzTests {
    static let memoryBound = 1 << 30
    static let timeBound = 20.0
    static let cases = 0..<16

    /// The clean movie and where its interesting bytes are, made once.
    struct Seed {
        let bytes: [UInt8]
        /// Byte ranges of the metadata and disparity samples.
        let metadataSamples: [Range<Int>]
        let disparitySamples: [Range<Int>]
        /// Offsets of 32-bit table fields: stts counts and deltas, stsc first chunk / samples per chunk /
        /// description index, stsz sizes (and the sample count), stco offsets.
        let tableFields: [Int]
    }

    static let seed: Seed? = {
        guard let dir = try? Paths.temporaryDirectory("fuzz-seed") else { return nil }
        let path = dir.file("seed.mov")
        guard (try? CLI.run(["demo", "-o", path, "--seconds", "1", "--size", "64x64"]))?.status == 0,
            let data = try? Data(contentsOf: URL(fileURLWithPath: path)), let clip = try? CinematicMovie.open(path: path)
        else { return nil }
        func ranges(_ track: Track?) -> [Range<Int>] {
            var out: [Range<Int>] = []
            track?.samples.forEach { out.append(Int($0.offset)..<Int($0.offset) + Int($0.size)) }
            return out
        }
        var fields: [Int] = []
        for track in clip.movie.tracks {
            guard let stbl = track.box.child("mdia")?.child("minf")?.child("stbl") else { continue }
            for box in stbl.children where box.origin == .file {
                let payload = Int(box.header.payloadOffset)
                let end = Int(box.header.end)
                switch box.type.description {
                case "stts", "stsc", "stco", "stsz":
                    // version/flags, then (stsz: sample size and) the entry count, then 32-bit fields.
                    var at = payload + 4
                    while at + 4 <= end {
                        fields.append(at)
                        at += 4
                    }
                default: continue
                }
            }
        }
        return Seed(
            bytes: Array(data), metadataSamples: ranges(clip.metadata), disparitySamples: ranges(clip.disparity), tableFields: fields)
    }()

    static func mutate(_ seed: Seed, rng: inout SeededGenerator) -> [UInt8] {
        var bytes = seed.bytes
        func put(_ value: UInt32, at i: Int) {
            for k in 0..<4 { bytes[i + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(k))) }
        }
        func scribble(_ ranges: [Range<Int>]) {
            guard let range = ranges.randomElement(using: &rng), !range.isEmpty else { return }
            for _ in 0..<(1 + rng.next() % 6) {
                let i = range.lowerBound + Int(rng.next() % UInt64(range.count))
                bytes[i] = [0x00, 0xFF, 0x7F, 0x80, 0x7F, UInt8(truncatingIfNeeded: rng.next())][Int(rng.next() % 6)]
            }
            // Sometimes a float field becomes NaN, ±Inf or the largest binary32.
            if rng.next() % 2 == 0, range.count >= 4 {
                let at = range.lowerBound + Int(rng.next() % UInt64(range.count - 3))
                put([0x7FC0_0000, 0x7F80_0000, 0xFF80_0000, 0x7F7F_FFFF, 0x5F0A_C723][Int(rng.next() % 5)], at: at)
            }
        }
        for _ in 0..<(1 + rng.next() % 3) {
            switch rng.next() % 3 {
            case 0: scribble(seed.metadataSamples)
            case 1: scribble(seed.disparitySamples)
            default:
                guard let at = seed.tableFields.randomElement(using: &rng) else { break }
                let interesting: [UInt32] = [0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE, 30, 31, UInt32(seed.bytes.count)]
                put(
                    rng.next() % 4 == 0 ? UInt32(truncatingIfNeeded: rng.next()) : interesting[Int(rng.next() % UInt64(interesting.count))],
                    at: at)
            }
        }
        return bytes
    }

    @Test(arguments: cases)
    func mutatedMovieThroughEveryCommand(_ n: Int) throws {
        let seed = try #require(Self.seed)
        var rng = SeededGenerator(seed: 0x5EED_0000 + UInt64(n))
        let mutated = Self.mutate(seed, rng: &rng)
        let dir = try Paths.temporaryDirectory()
        let movie = dir.file("fuzz.mov")
        try Data(mutated).write(to: URL(fileURLWithPath: movie))
        let commands: [[String]] = [
            ["inspect", movie], ["inspect", movie, "--json"], ["focus", movie, "--csv"], ["decisions", movie],
            ["extract", movie, "--at", "15f", "--track", "disparity", "-o", dir.file("e.png")], ["plot", movie, "-o", dir.file("p.svg")],
            ["render", movie, "--at", "15f", "--quality", "preview", "-o", dir.file("r.png")],
            ["export-timeline", movie, "--format", "otio", "-o", dir.file("t.otio")],
        ]
        for arguments in commands {
            let r = try MeasuredRun.cinepack(arguments, timeLimit: Self.timeBound)
            let what = "case \(n): \(arguments[0]) \(arguments.dropFirst(2).joined(separator: " "))"
            #expect(!r.signalled, "\(what) crashed (\(r.status)) after \(r.seconds) s: \(r.stderr.suffix(1500))")
            #expect([0, 1].contains(r.status), "\(what): \(r.stderr.prefix(500))")
            #expect(r.peakMemory <= Self.memoryBound, "\(what) peaked at \(r.peakMemory) bytes")
            #expect(r.seconds < Self.timeBound, "\(what) took \(r.seconds) s")
            if r.status == 1 { #expect(r.stderr.hasPrefix("Error: "), "\(what): \(r.stderr.prefix(500))") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: movie)) == Data(mutated), "case \(n): the input changed")
    }

    /// The reproduction: one 4-byte change, stsc samples-per-chunk = 0xFFFFFFFF, used to make every
    /// command loop 2³² times per chunk (178 s for inspect). Now the work is bounded by the samples the
    /// file has.
    @Test func stscSamplesPerChunkOfAllOnes() throws {
        let seed = try #require(Self.seed)
        let movie0 = try Movie.read(source: MemoryByteSource(seed.bytes))
        var bytes = seed.bytes
        for track in movie0.tracks {
            let stsc = try #require(track.box.child("mdia")?.child("minf")?.child("stbl")?.child("stsc"))
            // version/flags, entry count, then entry 1: first chunk, samples per chunk.
            let at = Int(stsc.header.payloadOffset) + 12
            for k in 0..<4 { bytes[at + k] = 0xFF }
        }
        let dir = try Paths.temporaryDirectory()
        let movie = dir.file("stsc.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: movie))
        for arguments in [["inspect", movie], ["focus", movie], ["decisions", movie], ["plot", movie, "-o", dir.file("p.svg")]] {
            let r = try MeasuredRun.cinepack(arguments, timeLimit: Self.timeBound)
            #expect(!r.signalled && [0, 1].contains(r.status), "\(arguments[0]): \(r.stderr.prefix(500))")
            #expect(r.seconds < 10, "\(arguments[0]) took \(r.seconds) s")
            #expect(r.peakMemory <= Self.memoryBound)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: movie)) == Data(bytes))
    }

    /// Inputs that once crashed a libFuzzer target (corpus/fuzz-crashers/, named after the target by
    /// scripts/fuzz.sh) go back through that target's code: a result or an error, never a crash.
    @Test func fuzzCrashersAreReplayed() {
        for path in Paths.corpusFiles("fuzz-crashers") {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { continue }
            let bytes = Array(data)
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix("FuzzEDLReader") {
                if let edl = try? EditDecisionList.parse(bytes, source: name) {
                    #expect((try? EditDecisionList.parse(edl.xmlData(), source: name)) == edl, "\(name)")
                }
            } else if name.hasPrefix("FuzzMetadataDecoder") {
                _ = try? FocusMetadataCodec.decode(bytes, keys: FocusMetadataKeyMap.writer, sampleIndex: 0)
            } else if let movie = try? Movie.read(source: MemoryByteSource(bytes)) {
                for track in movie.tracks { track.samples.forEach { _ in } }
            }
        }
    }
}
