#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Per-pass timings (wall and process CPU) printed when CINEPACK_BOKEH_PROFILE is set
/// (development aid).
struct PassClock {
    static let enabled = getenv("CINEPACK_BOKEH_PROFILE") != nil
    var last = PassClock.now()
    var laps: [(String, Double, Double)] = []

    static func now() -> (wall: Double, cpu: Double) {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        var c = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c)
        return (Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6, Double(c.tv_sec) * 1e3 + Double(c.tv_nsec) / 1e6)
    }

    mutating func lap(_ name: String) {
        guard Self.enabled else { return }
        let now = Self.now()
        laps.append((name, now.wall - last.wall, now.cpu - last.cpu))
        last = now
    }

    func report() {
        guard Self.enabled else { return }
        func f(_ v: Double) -> String { String(Double(Int(v * 10)) / 10) }
        print("bokeh passes (ms wall/cpu): " + laps.map { "\($0.0) \(f($0.1))/\(f($0.2))" }.joined(separator: ", "))
    }
}
