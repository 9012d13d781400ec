import CinepackContainer
import CinepackFormat
import Foundation
import Testing

@testable import CinepackEDL

/// Run by Benchmarks/edl-update.sh, never in the normal test run: it needs a multi-GB movie named
/// by CINEPACK_EDL_BENCH_MOVIE. Reports time and bytes per update; asserts nothing about time.
@Suite struct EDLUpdateBenchmark {
    static let environment = ProcessInfo.processInfo.environment

    /// Counters of this process from /proc/self/io (Linux): rchar/wchar are bytes passed to read and
    /// write system calls; write_bytes is what the kernel sends to storage.
    static func io() -> [String: Int64] {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return [:] }
        var result: [String: Int64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":")
            if parts.count == 2, let value = Int64(parts[1].trimmingCharacters(in: .whitespaces)) { result[String(parts[0])] = value }
        }
        return result
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    @Test(.enabled(if: environment["CINEPACK_EDL_BENCH_MOVIE"] != nil))
    func updateLargeMovie() throws {
        let path = try #require(Self.environment["CINEPACK_EDL_BENCH_MOVIE"])
        let runs = Int(Self.environment["CINEPACK_EDL_BENCH_RUNS"] ?? "") ?? 20
        let size = try FileByteSource(path: path).size
        let clock = ContinuousClock()
        var opens: [Double] = [], updates: [Double] = []
        var samples: [(written: Int64, wchar: Int64, storage: Int64, rchar: Int64)] = []
        var capacity = 0
        for n in 0..<runs {
            // A realistic EDL: a few KB of XML, different each time.
            let text = Array(
                ("<edl xmlns=\"urn:cinepack:edl:1\" version=\"1\">"
                    + String(repeating: "<decision t=\"\(n)/30s\" target=\"4\" strength=\"weak\"/>", count: 60) + "</edl>").utf8)
            let before = Self.io()
            let t0 = clock.now
            var store = try EDLStore(path: path)
            let t1 = clock.now
            let result = try store.update(text: text)
            let t2 = clock.now
            let after = Self.io()
            #expect(result.method == .inPlace)
            capacity = result.capacity
            opens.append(Self.milliseconds(t1 - t0))
            updates.append(Self.milliseconds(t2 - t1))
            samples.append(
                (
                    result.bytesWritten, (after["wchar"] ?? 0) - (before["wchar"] ?? 0),
                    (after["write_bytes"] ?? 0) - (before["write_bytes"] ?? 0), (after["rchar"] ?? 0) - (before["rchar"] ?? 0)
                ))
        }
        func stats(_ v: [Double]) -> String {
            let s = v.sorted()
            return String(format: "median %.2f ms, min %.2f, max %.2f", s[s.count / 2], s[0], s[s.count - 1])
        }
        print(
            "edl-bench: file \(size) bytes (\(String(format: "%.2f", Double(size) / Double(1 << 30))) GiB), slot capacity \(capacity) bytes, \(runs) in-place updates"
        )
        print("edl-bench: open (parse moov, read slots): \(stats(opens))")
        print("edl-bench: update (lock, re-read moov + slots, pwrite, fsync): \(stats(updates))")
        print(
            "edl-bench: bytes written per update: reported \(samples.map(\.written).max() ?? 0), write syscalls (wchar) \(samples.map(\.wchar).max() ?? 0), sent to storage (write_bytes) median \(samples.map(\.storage).sorted()[runs / 2]), max \(samples.map(\.storage).max() ?? 0)"
        )
        print("edl-bench: bytes read per open + update (rchar): max \(samples.map(\.rchar).max() ?? 0)")

        if Self.environment["CINEPACK_EDL_BENCH_REWRITE"] == "1" {
            // The fallback, for comparison: an EDL too large for the slots rewrites the whole file.
            var store = try EDLStore(path: path)
            let big = [UInt8](repeating: 0x20, count: capacity)
            let before = Self.io()
            let t0 = clock.now
            let result = try store.update(text: big)
            let elapsed = Self.milliseconds(clock.now - t0)
            let after = Self.io()
            print(
                String(
                    format: "edl-bench: full-rewrite fallback: %.0f ms, reported %lld bytes written, wchar %lld", elapsed,
                    result.bytesWritten, (after["wchar"] ?? 0) - (before["wchar"] ?? 0)))
        }
    }
}
