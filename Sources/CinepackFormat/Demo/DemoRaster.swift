/// Drawing the demo scene into a picture and a disparity map. Everything is evaluated analytically
/// per pixel (no textures stored), in one pass over the background and one pass per subject part
/// over its bounding box, so a frame costs a few milliseconds and holds no state.

/// A point light on the far wall: a near-white core (every channel ≥ 250) with a coloured glow.
struct DemoBulb: Sendable {
    var centre: DemoPoint
    var glow: DemoColour
}

struct DemoRaster: Sendable {
    let width: Int
    let height: Int
    let aspect: Float
    let mapWidth: Int
    let mapHeight: Int
    let keys: DemoKeys
    let bulbs: [DemoBulb]
    /// Wire segments between bulbs.
    let wires: [DemoShape]
    /// The unlit background (wall and floor, without the lights), drawn once: it never changes.
    /// Kept only up to UHD (25 MB); larger pictures draw it again for every frame.
    let backgroundCache: [UInt8]?

    static let cacheLimit = 3840 * 2160

    static let bulbCore = DemoColour(255, 253, 250)

    init(width: Int, height: Int, mapWidth: Int, mapHeight: Int, rng: inout DemoSplitMix64) {
        self.width = width
        self.height = height
        let aspect = Float(width) / Float(height)
        self.aspect = aspect
        self.mapWidth = mapWidth
        self.mapHeight = mapHeight
        self.keys = DemoKeys(&rng)
        // Two strings of lights sagging across the wall.
        let glows = [DemoColour(255, 178, 96), DemoColour(255, 140, 150), DemoColour(160, 196, 255), DemoColour(255, 214, 140)]
        var bulbList: [DemoBulb] = []
        var wireList: [DemoShape] = []
        let wireRadius = max(0.0008, 0.45 / Float(height))
        for (top, sag, shift) in [(Float(0.06), Float(0.07), Float(0)), (Float(0.17), Float(0.05), Float(0.5))] {
            let margin: Float = 0.04
            let span = max(aspect - 2 * margin, 0.1)
            let count = max(2, Int(span / 0.085) + 1)
            let step = span / Float(count - 1)
            func sagY(_ x: Float) -> Float {
                let u = (x - aspect / 2) / (span / 2)
                return top + sag * (1 - u * u)
            }
            var previous: DemoPoint?
            for i in 0..<count {
                let x = margin + (Float(i) + shift) * step + rng.next(in: -0.008...0.008)
                guard x < aspect - margin / 2 else { continue }
                let c = DemoPoint(x, sagY(x) + 0.006 + rng.next(in: -0.003...0.003))
                bulbList.append(DemoBulb(centre: c, glow: glows[Int(rng.next() % UInt64(glows.count))]))
                let hook = DemoPoint(x, sagY(x))
                if let previous { wireList.append(.capsule(previous, hook, wireRadius)) }
                previous = hook
            }
        }
        self.bulbs = bulbList
        self.wires = wireList
        if width * height <= Self.cacheLimit {
            let keys = self.keys
            backgroundCache = [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, initialized in
                Self.drawBackground(buffer.baseAddress!, width: width, height: height, keys: keys)
                initialized = width * height * 3
            }
        } else {
            backgroundCache = nil
        }
    }

    // MARK: Picture

    /// The picture: background (scaled by `light`), lights (not scaled: they are the light), subjects
    /// far to near (scaled by `light`).
    func picture(figures: [DemoFigure], light: Float) -> PixelImage {
        let count = width * height * 3
        let samples = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = buffer.baseAddress!
            if let backgroundCache {
                backgroundCache.withUnsafeBufferPointer { base.initialize(from: $0.baseAddress!, count: count) }
            } else {
                Self.drawBackground(base, width: width, height: height, keys: keys)
            }
            if light != 1 {
                // The same table for every pixel: cached and drawn backgrounds darken identically.
                let table = (0..<256).map { UInt8(min(Float($0) * light + 0.5, 255)) }
                table.withUnsafeBufferPointer { t in
                    for i in 0..<count { base[i] = t[Int(base[i])] }
                }
            }
            drawLights(base)
            for figure in figures {
                for part in figure.parts { draw(part, base, light: light) }
            }
            initialized = count
        }
        // The sample count always matches width × height × 3.
        return try! PixelImage(width: width, height: height, layout: .rgb, samples: samples)
    }

    @inline(__always)
    private static func byte(_ v: Float) -> UInt8 {
        v >= 254.5 ? 255 : v > 0 ? UInt8(v + 0.5) : 0  // NaN → 0
    }

    @inline(__always)
    private static func store(_ c: DemoColour, _ p: UnsafeMutablePointer<UInt8>) {
        p[0] = byte(c.x)
        p[1] = byte(c.y)
        p[2] = byte(c.z)
    }

    @inline(__always)
    private static func load(_ p: UnsafeMutablePointer<UInt8>) -> DemoColour {
        DemoColour(Float(p[0]), Float(p[1]), Float(p[2]))
    }

    /// Wall and floor, unlit (the low-light darkening is applied afterwards, to every byte alike).
    private static func drawBackground(_ out: UnsafeMutablePointer<UInt8>, width: Int, height: Int, keys: DemoKeys) {
        let aspect = Float(width) / Float(height)
        let H = Float(height)
        let pixel = 1 / H
        let wallScale = DemoWorld.focalScale * DemoWorld.wallDisparity  // scene units per metre on the wall
        let wallPixel = pixel / wallScale  // metres per pixel on the wall
        let mortar = DemoColour(182, 172, 158)
        let half = aspect / 2
        let skirting: Float = 0.32, course: Float = 0.25, brickLength: Float = 0.55
        for py in 0..<height {
            let y = (Float(py) + 0.5) * pixel
            var p = out + py * width * 3
            if y < DemoWorld.wallBaseY {
                let ym = (DemoWorld.wallBaseY - y) / wallScale  // metres above the floor
                if ym < skirting {
                    let edge = demoLineCoverage((ym - skirting) / 0.04 + 1, line: 0.5, footprint: wallPixel / 0.04)
                    let board = DemoColour(52, 74, 64) + (DemoColour(96, 118, 102) - DemoColour(52, 74, 64)) * edge
                    for px in 0..<width {
                        let g = demoHashSigned(Int32(px), Int32(py), keys.grain) * 5
                        Self.store(board + DemoColour(repeating: g), p)
                        p += 3
                    }
                } else {
                    let rowT = (ym - skirting) / course
                    let row = demoCell(rowT)
                    let hMortar = demoLineCoverage(rowT, line: 0.14, footprint: wallPixel / course)
                    let offset: Float = row & 1 == 0 ? 0 : 0.5
                    for px in 0..<width {
                        let x = (Float(px) + 0.5) * pixel
                        let colT = (x - half) / wallScale / brickLength + offset
                        let col = demoCell(colT)
                        let vMortar = demoLineCoverage(colT, line: 0.064, footprint: wallPixel / brickLength)
                        let tint = demoHashUnit(col, row, keys.wall)
                        let hue = demoHashSigned(row, col, keys.wall ^ 0x5bd1_e995)
                        let brick = DemoColour(150 + 18 * hue, 78, 58 - 8 * hue) * (0.74 + 0.42 * tint)
                        let m = 1 - (1 - hMortar) * (1 - vMortar)
                        let g = demoHashSigned(Int32(px), Int32(py), keys.grain) * 7
                        Self.store(brick + (mortar - brick) * m + DemoColour(repeating: g), p)
                        p += 3
                    }
                }
            } else {
                let d = (y - DemoWorld.horizonY) / DemoWorld.floorScale
                let perUnit = 1 / (DemoWorld.focalScale * d)  // metres across per scene unit at this row
                let z = 1 / d
                let plank: Float = 0.16, board: Float = 1.7
                let footU = pixel * perUnit / plank
                let footW = pixel / (d * d * DemoWorld.floorScale) / board
                let grainFade = max(0, min(1, 1.5 - footU * 14))
                let shade = 0.62 + 0.38 * min(1, (d - DemoWorld.wallDisparity) / 0.7)
                for px in 0..<width {
                    let x = (Float(px) + 0.5) * pixel
                    let u = (x - half) * perUnit / plank
                    let plankIndex = demoCell(u)
                    let seam = demoLineCoverage(u, line: 0.05, footprint: footU)
                    let w = z / board + demoHashUnit(plankIndex, 7, keys.floor)
                    let segment = demoCell(w)
                    let joint = demoLineCoverage(w, line: 0.015, footprint: footW)
                    let tint = demoHashUnit(plankIndex, segment, keys.floor)
                    let grain = demoHashSigned(demoCell(u * 14), segment, keys.floor ^ 0x27d4_eb2d) * 14 * grainFade
                    let wood = DemoColour(152, 104, 66) * (0.8 + 0.35 * tint) + DemoColour(repeating: grain)
                    let dark = DemoColour(58, 38, 26)
                    let g = demoHashSigned(Int32(px), Int32(py), keys.grain) * 5
                    Self.store((wood + (dark - wood) * max(seam, joint) + DemoColour(repeating: g)) * shade, p)
                    p += 3
                }
            }
        }
    }

    private func drawLights(_ out: UnsafeMutablePointer<UInt8>) {
        let H = Float(height)
        for wire in wires {
            draw(DemoPart(shape: wire, paint: .flat(DemoColour(36, 32, 28))), out, light: 1)
        }
        let core = max(0.0042, 1.6 / H)
        let glow = 4 * core
        for bulb in bulbs {
            let (x0, x1, y0, y1) = pixelRange(bulb.centre - DemoPoint(glow, glow), bulb.centre + DemoPoint(glow, glow))
            guard x0 < x1, y0 < y1 else { continue }
            for py in y0..<y1 {
                let y = (Float(py) + 0.5) / H
                for px in x0..<x1 {
                    let x = (Float(px) + 0.5) / H
                    let dx = x - bulb.centre.x, dy = y - bulb.centre.y
                    let dist = (dx * dx + dy * dy).squareRoot()
                    guard dist < glow else { continue }
                    let p = out + (py * width + px) * 3
                    var c = Self.load(p)
                    let g = 1 - dist / glow
                    c += bulb.glow * (0.85 * g * g)
                    let cover = min(max((core - dist) * H + 0.5, 0), 1)
                    c += (Self.bulbCore - c) * cover
                    Self.store(c, p)
                }
            }
        }
    }

    /// Pixel range [x0, x1) × [y0, y1) covering a scene-unit box plus one pixel of anti-aliasing.
    @inline(__always)
    private func pixelRange(_ lo: DemoPoint, _ hi: DemoPoint) -> (Int, Int, Int, Int) {
        let H = Float(height)
        func clampIndex(_ v: Float, _ n: Int) -> Int {
            guard v.isFinite else { return v > 0 ? n : 0 }
            return Int(min(max(v, 0), Float(n)))
        }
        return (
            clampIndex((lo.x * H - 1).rounded(.down), width), clampIndex((hi.x * H + 1).rounded(.up), width),
            clampIndex((lo.y * H - 1).rounded(.down), height), clampIndex((hi.y * H + 1).rounded(.up), height)
        )
    }

    private func draw(_ part: DemoPart, _ out: UnsafeMutablePointer<UInt8>, light: Float) {
        let b = part.shape.bounds
        let (x0, x1, y0, y1) = pixelRange(b.min, b.max)
        guard x0 < x1, y0 < y1 else { return }
        let H = Float(height)
        let pixel = 1 / H
        for py in y0..<y1 {
            let y = (Float(py) + 0.5) * pixel
            var p = out + (py * width + x0) * 3
            for px in x0..<x1 {
                let x = (Float(px) + 0.5) * pixel
                let d = part.shape.distance(x, y) * H
                if d < 0.5 {
                    let cover = min(0.5 - d, 1)
                    let c = part.paint.colour(x, y, pixel: pixel) * light
                    if cover >= 1 {
                        Self.store(c, p)
                    } else {
                        let under = Self.load(p)
                        Self.store(under + (c - under) * cover, p)
                    }
                }
                p += 3
            }
        }
    }

    // MARK: Disparity

    /// The disparity map, sampled at the centre of each map pixel: the background's analytic
    /// disparity, overwritten by each subject (far to near) wherever the subject covers the point.
    func disparity(figures: [DemoFigure]) -> [Float] {
        let mw = mapWidth, mh = mapHeight
        return [Float](unsafeUninitializedCapacity: mw * mh) { buffer, initialized in
            let out = buffer.baseAddress!
            for v in 0..<mh {
                let y = (Float(v) + 0.5) / Float(mh)
                let d = DemoWorld.backgroundDisparity(y: y)
                (out + v * mw).initialize(repeating: d, count: mw)
            }
            for figure in figures {
                for part in figure.parts {
                    let b = part.shape.bounds
                    // Map pixel u's centre is at ((u + 0.5) / mw) · aspect.
                    let u0 = index(b.min.x / aspect * Float(mw) - 0.5, mw, up: true)
                    let u1 = index(b.max.x / aspect * Float(mw) - 0.5, mw, up: false)
                    let v0 = index(b.min.y * Float(mh) - 0.5, mh, up: true)
                    let v1 = index(b.max.y * Float(mh) - 0.5, mh, up: false)
                    guard u0 <= u1, v0 <= v1 else { continue }
                    for v in v0...v1 {
                        let y = (Float(v) + 0.5) / Float(mh)
                        for u in u0...u1 {
                            let x = (Float(u) + 0.5) / Float(mw) * aspect
                            if part.shape.distance(x, y) < 0 { out[v * mw + u] = figure.disparity }
                        }
                    }
                }
            }
            initialized = mw * mh
        }
    }

    /// First (`up`) or last map index whose centre lies on the inner side of `v` (in pixel units,
    /// centre-relative), clamped to [0, n-1]; an empty range comes back as first > last.
    @inline(__always)
    private func index(_ v: Float, _ n: Int, up: Bool) -> Int {
        guard v.isFinite else { return up ? n : -1 }
        let r = up ? v.rounded(.up) : v.rounded(.down)
        if up { return Int(min(max(r, 0), Float(n))) }
        return Int(min(max(r, -1), Float(n - 1)))
    }
}
