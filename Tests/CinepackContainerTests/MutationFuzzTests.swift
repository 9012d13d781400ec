import Foundation
import TestSupport
import Testing

@testable import CinepackContainer

/// A seeded mutation fuzzer over the corpus: bit flips, truncations, size-field rewrites and
/// splices. Every case must end in a result or a `ContainerError`: no crash, no hang, and memory
/// bounded by the limits (a huge allocation would abort the test process).
@Suite struct MutationFuzzTests {
    static let seeds: [[UInt8]] = (Paths.corpusFiles("valid") + Paths.corpusFiles("invalid")).compactMap {
        (try? Data(contentsOf: URL(fileURLWithPath: $0))).map { Array($0) }
    }

    /// Offsets of every box header in a file, found by walking the tree of the unmutated seed.
    static func headerOffsets(_ bytes: [UInt8]) -> [Int] {
        guard let tree = try? BoxReader(source: MemoryByteSource(bytes)).readTree() else { return [] }
        var offsets: [Int] = []
        for box in tree.boxes { box.forEach { b, _ in if b.origin == .file { offsets.append(Int(b.header.offset)) } } }
        return offsets
    }

    static func mutate(_ input: [UInt8], headers: [Int], rng: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        guard !bytes.isEmpty else { return bytes }
        switch rng.next() % 6 {
        case 0:  // flip a few bits anywhere
            for _ in 0..<(1 + rng.next() % 8) {
                let i = Int(rng.next() % UInt64(bytes.count))
                bytes[i] ^= UInt8(1 << (rng.next() % 8))
            }
        case 1:  // truncate
            bytes.removeSubrange(Int(rng.next() % UInt64(bytes.count))...)
        case 2, 3:  // rewrite a box size with an interesting value
            guard let at = headers.randomElement(using: &rng), at + 4 <= bytes.count else { break }
            let interesting: [UInt32] = [
                0, 1, 7, 8, 9, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x8000_0000, UInt32(bytes.count - at), UInt32(bytes.count - at + 1),
                UInt32(truncatingIfNeeded: rng.next()),
            ]
            let v = interesting[Int(rng.next() % UInt64(interesting.count))]
            bytes[at] = UInt8(v >> 24); bytes[at + 1] = UInt8(v >> 16 & 0xFF); bytes[at + 2] = UInt8(v >> 8 & 0xFF);
            bytes[at + 3] = UInt8(v & 0xFF)
        case 4:  // overwrite a table field (just after a header) with extreme values
            guard let at = headers.randomElement(using: &rng), at + 20 <= bytes.count else { break }
            let field = at + 8 + Int(rng.next() % 12)
            bytes[field] = [0x00, 0xFF, 0x7F, 0x80][Int(rng.next() % 4)]
        default:  // splice a chunk of the file somewhere else
            let a = Int(rng.next() % UInt64(bytes.count)), len = Int(rng.next() % 64)
            let chunk = Array(bytes[a..<min(bytes.count, a + len)])
            let b = Int(rng.next() % UInt64(bytes.count))
            bytes.insert(contentsOf: chunk, at: b)
        }
        return bytes
    }

    @Test func thousandsOfMutationsNeverCrash() throws {
        #expect(Self.seeds.count >= 20)
        var rng = SeededGenerator(seed: 0xC1DE_7ACC)
        let limits = ReaderLimits()
        var outcomes = (ok: 0, error: 0)
        let started = Date()
        for (n, seed) in Self.seeds.enumerated() {
            let headers = Self.headerOffsets(seed)
            for _ in 0..<150 {
                let mutated = Self.mutate(seed, headers: headers, rng: &rng)
                do {
                    let movie = try Movie.read(source: MemoryByteSource(mutated), options: .init(limits: limits))
                    // Exercise the sample index the way inspect does.
                    for track in movie.tracks {
                        track.samples.forEach { _ in }
                        _ = track.samples.sample(at: track.samples.count - 1)
                        _ = track.samples.sampleIndex(atDecodeTime: track.samples.totalDuration / 2)
                    }
                    var text = TextInspector()
                    MovieInspection.summary(movie, fileName: "fuzz", into: &text)
                    outcomes.ok += 1
                } catch {
                    #expect(!error.description.isEmpty)
                    outcomes.error += 1
                }
            }
            _ = n
        }
        // Both outcomes occur: the mutations are neither all harmless nor all fatal.
        #expect(outcomes.ok > 100 && outcomes.error > 100, "\(outcomes)")
        // No hang: thousands of cases finish quickly even in a debug build.
        #expect(Date().timeIntervalSince(started) < 120)
    }

    /// Crashers found by the libFuzzer target live in corpus/fuzz-crashers and must keep passing.
    @Test func fuzzCrashersAreReplayed() {
        for path in Paths.corpusFiles("fuzz-crashers") {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { continue }
            _ = try? Movie.read(source: MemoryByteSource(Array(data)))
        }
    }
}
