import Dispatch

// Shared machinery of the bokeh renderer: the parallel loop, padded planes, the disk-area table
// and the resolution schedule (which level renders which blur radius).

/// Runs `body(i)` for `i` in `0..<count`: on all cores by default, on `threads` workers when given
/// (1 = sequential). Every iteration writes disjoint memory and computes the same values whatever
/// thread runs it, so results never depend on the number of threads.
func parallelFor(_ count: Int, threads: Int?, _ body: @Sendable (Int) -> Void) {
    guard count > 0 else { return }
    let workers = min(count, threads ?? Int.max)
    if workers <= 1 {
        for i in 0..<count { body(i) }
    } else if threads == nil {
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
    } else {
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var i = w
            while i < count {
                body(i)
                i += workers
            }
        }
    }
}

/// A raw pointer that crosses into the parallel loop. Each iteration touches its own part.
struct Shared<T>: @unchecked Sendable {
    let p: UnsafeMutablePointer<T>
    init(_ p: UnsafeMutablePointer<T>) { self.p = p }
}

/// `count` planes of Float over a `width × height` grid with `pad` cells of zeros on every side
/// (the right side padded further so a SIMD8 read starting in the picture never leaves the
/// buffer). One zeroed allocation (calloc: pages never written cost nothing); the planes are
/// consecutive.
final class Planes: @unchecked Sendable {
    let width: Int
    let height: Int
    let pad: Int
    let stride: Int
    let rows: Int
    let count: Int
    let base: UnsafeMutablePointer<Float>

    init(width: Int, height: Int, pad: Int, count: Int) {
        self.width = width
        self.height = height
        self.pad = pad
        self.count = count
        stride = (pad + ((width + 7) & ~7) + pad + 8 + 7) & ~7
        rows = height + 2 * pad
        bytes = stride * rows * count * MemoryLayout<Float>.stride
        base = Self.allocate(bytes)
    }

    private let bytes: Int

    deinit { Self.deallocate(base, bytes) }

    /// Large plane sets (a level's) are mapped directly and offered huge pages: the gathers read
    /// a dozen planes at once, and 4 KiB pages would cost a TLB miss per plane per row.
    private static let hugeThreshold = 4 << 20

    private static func allocate(_ bytes: Int) -> UnsafeMutablePointer<Float> {
        #if os(Linux)
            if bytes >= hugeThreshold {
                let address = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                if let address, address != MAP_FAILED {
                    _ = madvise(address, bytes, 14)  // MADV_HUGEPAGE; a hint, ignored where unsupported
                    return address.bindMemory(to: Float.self, capacity: bytes / MemoryLayout<Float>.stride)
                }
            }
        #endif
        return zeroed(Float.self, bytes / MemoryLayout<Float>.stride)
    }

    private static func deallocate(_ base: UnsafeMutablePointer<Float>, _ bytes: Int) {
        #if os(Linux)
            if bytes >= hugeThreshold {
                munmap(base, bytes)
                return
            }
        #endif
        free(base)
    }

    var planeSize: Int { stride * rows }

    /// Pointer to cell (0, 0) of plane `k`.
    @inline(__always) func origin(_ k: Int) -> UnsafeMutablePointer<Float> {
        base + k * planeSize + pad * stride + pad
    }

    @inline(__always) func index(_ x: Int, _ y: Int) -> Int { y * stride + x }
}

/// A zeroed allocation of `count` values (calloc). Free with `free`.
func zeroed<T>(_ type: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
    guard let raw = calloc(max(1, count), MemoryLayout<T>.stride) else { fatalError("out of memory") }
    return raw.bindMemory(to: T.self, capacity: max(1, count))
}

/// Frees an allocation of `zeroed`.
func release<T>(_ p: UnsafeMutablePointer<T>) { free(p) }

/// A dense `width × height` array of SIMD4<Float> (unpadded), zeroed.
final class Quads: @unchecked Sendable {
    let width: Int
    let height: Int
    let p: UnsafeMutablePointer<SIMD4<Float>>

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        p = zeroed(SIMD4<Float>.self, width * height)
    }

    deinit { free(p) }
}

/// Edge profiles of the soft disks, as functions of `v = radius + 0.5 − distance`:
/// - coarse levels: a smoothstep over one cell (`v` in 0…1);
/// - full resolution: the disk convolved with a pixel tent (what bilinear reconstruction does, and
///   what the reference renderer's bilinear lookups do): a quadratic spline over two pixels
///   centred on the radius (`v` in −0.5…1.5). At radius 0 it leaves a pixel alone, and it lets
///   neighbours in smoothly as the radius grows (no kink when a pixel starts to blur).
enum EdgeProfile {
    case coarse, fine

    @inline(__always) func scalar(_ v: Float) -> Float {
        switch self {
        case .coarse:
            let t = min(max(v, 0), 1)
            return t * t * (3 - 2 * t)
        case .fine:
            let u = min(max((v + 0.5) * 0.5, 0), 1)
            let a = min(u, 0.5)
            let b = max(u - 0.5, 0)
            return 2 * a * a + 2 * b * (1 - b)
        }
    }

    @inline(__always) func callAsFunction(_ v: SIMD8<Float>) -> SIMD8<Float> {
        switch self {
        case .coarse:
            let t = vsaturate(v)
            return t * t * (3 - 2 * t)
        case .fine:
            let u = vsaturate((v + 0.5) * 0.5)
            let a = vmin(u, SIMD8(repeating: 0.5))
            let b = vmax(u - 0.5, SIMD8())
            return 2 * a * a + 2 * b * (1 - b)
        }
    }

    /// How far beyond the radius the profile reaches (taps needed: distance < radius + reach + 0.5).
    var reach: Float { self == .coarse ? 0.5 : 1 }
}

/// The discrete area of a soft disk, `Σ profile(c + 0.5 − |o|)` over integer offsets `o`, so that
/// a sample spread with weights `profile / area` sums to exactly one (energy preserved).
/// `inverse` reads a table (radius steps of 1/64 up to 16 cells); hot loops fetch it once.
enum DiskArea {
    static let step: Float = 1.0 / 64
    static let limit: Float = 16
    struct Table: @unchecked Sendable {
        let p: UnsafeMutablePointer<Float>
        /// Smallest radius the profile gives a point (coarse levels: half a cell).
        let floor: Float
    }

    static func make(_ profile: EdgeProfile) -> Table {
        make(profile) { x, y in (x * x + y * y).squareRoot() }
    }

    /// The same for a shaped aperture, `gauge` standing for the distance (spec/render.md §5).
    static func make(_ profile: EdgeProfile, gauge: (Float, Float) -> Float) -> Table {
        let n = Int(limit / step) + 2
        let t = UnsafeMutablePointer<Float>.allocate(capacity: n)
        for i in 0..<n {
            let c = Float(i) * step
            let reach = Int(c + 2.5)
            var sum: Float = 0
            for dy in -reach...reach {
                for dx in -reach...reach {
                    sum += profile.scalar(c + 0.5 - gauge(Float(dx), Float(dy)))
                }
            }
            t[i] = 1 / sum
        }
        return Table(p: t, floor: profile == .coarse ? 0.5 : 0)
    }

    static let table = make(.coarse)
    static let fine = make(.fine)

    /// 1 / area for a radius in cells.
    @inline(__always) static func inverse(_ radius: Float, _ table: Table) -> Float {
        let c = max(radius, table.floor)
        if !(c < limit) { return c.isFinite ? 1 / (Float.pi * (c * c + 1.0 / 12)) : 0 }
        let f = c / step
        let i = Int(f)
        let t = f - Float(i)
        return table.p[i] * (1 - t) + table.p[i + 1] * t
    }

    static func inverse(_ radius: Float) -> Float { inverse(radius, table) }
}

/// The radius full-resolution gathers use for a blur-circle radius `r`: 0 up to the pass-through
/// radius (a quarter pixel), then growing at 0.6 of the true rate and catching up smoothly with
/// `r` by 2.25 px. Blur must start from nothing at the pass-through radius (in-focus pixels are
/// kept exactly); the gentle start keeps that onset from showing as a step during a rack focus.
@inline(__always) func fineRadius(_ r: SIMD8<Float>) -> SIMD8<Float> {
    let t = vmax(SIMD8(), r - 0.25)
    let u = vsaturate(t * 0.5)
    let s = u * u * (3 - 2 * u)
    return 0.6 * t + (0.4 * t + 0.25) * s
}

@inline(__always) func fineRadius(_ r: Float) -> Float {
    let t = max(0, r - 0.25)
    let u = min(t * 0.5, 1)
    let s = u * u * (3 - 2 * u)
    return 0.6 * t + (0.4 * t + 0.25) * s
}

/// Full-resolution weight of a tap for effective radius `e` (per lane), `profile` the spline
/// weight and `inverseArea` its normalisation: below one pixel of radius, the exact disk ⊗ tent
/// kernel on the 3 × 3 neighbourhood (side 2e/3π − e²/4π, diagonal e²/8π, centre the rest:
/// neighbours come in linearly as a circle starts to grow), blended into the spline by e = 1.
@inline(__always) func fineWeight(
    _ e: SIMD8<Float>, ring: Int32, profile: SIMD8<Float>, inverseArea: SIMD8<Float>
) -> SIMD8<Float> {
    let spline = profile * inverseArea
    let toSpline = vsaturate((e - 0.7) * (1 / 0.3))
    guard any(toSpline .< 1) else { return spline }
    let side = e * (2 / (3 * Float.pi)) - e * e * (1 / (4 * Float.pi))
    let diagonal = e * e * (1 / (8 * Float.pi))
    let exact: SIMD8<Float>
    switch ring {
    case 0: exact = 1 - 4 * side - 4 * diagonal
    case 1: exact = side
    case 2: exact = diagonal
    default: exact = SIMD8()
    }
    let t = toSpline * toSpline * (3 - 2 * toSpline)
    return exact + t * (spline - exact)
}

/// Integer offsets of a disk, in a fixed order, with `0.5 − distance` precomputed: the taps of
/// every gather (deterministic, no random taps). `taps[r]` holds the offsets with distance < r + 0.5.
enum DiskTaps {
    struct Tap {
        let dx: Int32
        let dy: Int32
        let half: Float  // 0.5 − distance
        /// 0 centre, 1 side, 2 diagonal neighbour, 3 farther.
        let ring: Int32
    }

    static let maxRadius = 12
    /// Quarter-pixel steps of the reach: `table[k]` holds the taps closer than k / 4, up to
    /// `maxRadius + 0.5` (a disk no larger than a profile needs, so no tap of zero weight is
    /// visited in a ring up to a pixel wide).
    static let steps = 4 * maxRadius + 2
    static let table: [[Tap]] = (0...steps).map { k in
        let limit = Float(k) / 4
        var taps: [Tap] = []
        for dy in -maxRadius...maxRadius {
            for dx in -maxRadius...maxRadius {
                let d = Float(dx * dx + dy * dy).squareRoot()
                let ring = Int32(dx * dx + dy * dy > 2 ? 3 : dx * dx + dy * dy)
                if d < limit { taps.append(Tap(dx: Int32(dx), dy: Int32(dy), half: 0.5 - d, ring: ring)) }
            }
        }
        return taps
    }
}

/// Which resolution renders which blur radius. Level 0 is full resolution and takes radii up to
/// `r0`; level ℓ ≥ 1 (2^ℓ-times smaller) takes radii up to `rt · 2^ℓ`, i.e. at most `rt` cells, so
/// the work per output pixel is bounded whatever the blur. Over the top quarter of a level's range
/// the weight moves linearly to the next level: membership is continuous (no flicker when a
/// radius crosses a boundary during a rack focus). The far and near fields each have one; at
/// export the near field keeps larger circles at full resolution.
struct BokehSchedule: Sendable {
    /// Top radius of level 0, full-resolution pixels.
    let r0: Float
    /// Top radius of the coarse levels, in their own cells.
    let rt: Float
    /// Number of coarse levels (the coarsest takes every larger radius, clamped to its top).
    let levels: Int
    static let blend: Float = 0.25
    /// Radii at or below this (a blur circle under half a pixel across) pass the pixel through.
    static let passThrough: Float = 0.25

    /// The schedule of a quality for the far field (and the fill behind near samples), or with
    /// `nearField` for near samples spreading over what lies behind them. A `shaped` aperture
    /// (spec/render.md §5) gathers up to twice as many cells per level, so that its corners and
    /// straight sides are drawn on enough cells to read as such.
    init(quality: RenderQuality, width: Int, height: Int, nearField: Bool = false, shaped: Bool = false) {
        switch quality {
        case .export:
            // Far circles from about 1.7 px of radius already blend into half resolution, whose
            // soft rim is invisible under the blur; near ones keep full resolution up to 3 px.
            r0 = nearField ? 3 : 2.25
            rt = shaped ? 12 : 6
        case .preview:
            r0 = 2
            rt = shaped ? 6 : 3
        }
        var l = 0
        var w = width
        var h = height
        // Stop when the level would be tiny or already covers any radius the frame can show.
        while l < 10, (w + 1) / 2 >= 3, (h + 1) / 2 >= 3, rt * Float(1 << l) < Float(max(width, height)) {
            l += 1
            w = (w + 1) / 2
            h = (h + 1) / 2
        }
        levels = l
    }

    /// Top radius of level `l` in full-resolution pixels.
    func top(_ l: Int) -> Float { l == 0 ? r0 : rt * Float(1 << l) }

    /// Lowest radius level `l` serves (it starts sharing weight with level `l − 1` there).
    func low(_ l: Int) -> Float { l == 0 ? Self.passThrough : (1 - Self.blend) * top(l - 1) }

    /// The largest radius rendered; larger ones are clamped to it.
    var maxRadius: Float { top(levels) }

    /// The level serving radius `rho` and the weight `t` that moves to the next level.
    @inline(__always) func split(_ rho: Float) -> (level: Int, t: Float) {
        var l = 0
        while l < levels, rho > top(l) { l += 1 }
        if l == levels { return (l, 0) }
        let start = (1 - Self.blend) * top(l)
        return (l, min(max((rho - start) / (Self.blend * top(l)), 0), 1))
    }

    /// Weight of level `l` for radius `rho` (the weights of all levels sum to one).
    @inline(__always) func weight(_ rho: Float, level l: Int) -> Float {
        let (k, t) = split(rho)
        if k == l { return 1 - t }
        if k + 1 == l { return t }
        return 0
    }
}

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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Lane-wise helpers written as lane loops, which the optimiser turns into minps / maxps (the
// standard library's `pointwiseMin` / `pointwiseMax`, `replacing(with:where:)` and reductions are
// not inlined into the hot loops). NaN handling follows x86: `vmax(a, b)` keeps `a` when either
// is NaN.
@inline(__always) func vmin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    var r = a
    for i in 0..<8 { r[i] = b[i] < a[i] ? b[i] : a[i] }
    return r
}

@inline(__always) func vmax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    var r = a
    for i in 0..<8 { r[i] = b[i] > a[i] ? b[i] : a[i] }
    return r
}

@inline(__always) func vmin(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    var r = a
    for i in 0..<4 { r[i] = b[i] < a[i] ? b[i] : a[i] }
    return r
}

@inline(__always) func vmax(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    var r = a
    for i in 0..<4 { r[i] = b[i] > a[i] ? b[i] : a[i] }
    return r
}

/// Lane-wise square root (`SIMD8.squareRoot()` calls `sqrtf` once per lane here).
@inline(__always) func vsqrt(_ v: SIMD8<Float>) -> SIMD8<Float> {
    var r = v
    for i in 0..<8 { r[i] = v[i].squareRoot() }
    return r
}

@inline(__always) func vsaturate(_ v: SIMD8<Float>) -> SIMD8<Float> { vmin(vmax(SIMD8(), v), SIMD8(repeating: 1)) }
@inline(__always) func vsaturate(_ v: SIMD4<Float>) -> SIMD4<Float> { vmin(vmax(SIMD4(), v), SIMD4(repeating: 1)) }
@inline(__always) func vabs(_ v: SIMD8<Float>) -> SIMD8<Float> { vmax(v, -v) }
@inline(__always) func vabs(_ v: SIMD4<Float>) -> SIMD4<Float> { vmax(v, -v) }

/// 1 where `v > 0` (and not vanishingly small), else 0.
@inline(__always) func vpositive(_ v: SIMD4<Float>) -> SIMD4<Float> { vsaturate(v * 1e30) }
@inline(__always) func vpositive(_ v: SIMD8<Float>) -> SIMD8<Float> { vsaturate(v * 1e30) }

@inline(__always) func hmax(_ v: SIMD4<Float>) -> Float { Swift.max(Swift.max(v[0], v[1]), Swift.max(v[2], v[3])) }

/// `f` applied to each lane, the vector built in one go (writing lanes one by one through a
/// variable index stalls on store forwarding).
@inline(__always) func map8(_ v: SIMD8<Float>, _ f: (Float) -> Float) -> SIMD8<Float> {
    SIMD8(f(v[0]), f(v[1]), f(v[2]), f(v[3]), f(v[4]), f(v[5]), f(v[6]), f(v[7]))
}

@inline(__always) func hmax(_ v: SIMD8<Float>) -> Float { Swift.max(hmax(v.lowHalf), hmax(v.highHalf)) }

/// Eight RGB pixels stored interleaved (the inverse of `strided`); the vectors are complete before
/// the first store, so the optimiser does not scalarise their computation into a lane loop.
@inline(__always) func storeInterleaved(_ p: UnsafeMutablePointer<Float>, _ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>) {
    for i in 0..<8 {
        p[3 * i] = r[i]
        p[3 * i + 1] = g[i]
        p[3 * i + 2] = b[i]
    }
}

/// Disparity and colour (interleaved RGB) of `count` ≤ 8 consecutive pixels from index `p0`, as
/// lanes; lanes past `count` hold `fill` disparity and black.
@inline(__always) func loadPixels8(
    _ picture: UnsafePointer<Float>, _ disparity: UnsafePointer<Float>, at p0: Int, count: Int, fill: Float
) -> (d: SIMD8<Float>, r: SIMD8<Float>, g: SIMD8<Float>, b: SIMD8<Float>) {
    if count == 8 {
        return (
            UnsafeRawPointer(disparity + p0).loadUnaligned(as: SIMD8<Float>.self), strided(picture + 3 * p0),
            strided(picture + 3 * p0 + 1), strided(picture + 3 * p0 + 2)
        )
    }
    var d = SIMD8<Float>(repeating: fill)
    var r = SIMD8<Float>()
    var g = SIMD8<Float>()
    var b = SIMD8<Float>()
    for k in 0..<count {
        d[k] = disparity[p0 + k]
        r[k] = picture[3 * (p0 + k)]
        g[k] = picture[3 * (p0 + k) + 1]
        b[k] = picture[3 * (p0 + k) + 2]
    }
    return (d, r, g, b)
}

/// Eight floats 3 apart (one channel of interleaved RGB).
@inline(__always) func strided(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
    SIMD8(p[0], p[3], p[6], p[9], p[12], p[15], p[18], p[21])
}
