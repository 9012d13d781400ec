import CinepackRender
import Foundation

// The ground truth of the bokeh quality tests (spec/render.md §1.3): a slow, exact thin-lens
// renderer over known scene layers, ray-traced through the aperture and composited front to back.
//
// Coordinates. All images share one continuous pixel coordinate system: pixel (i, j) covers
// [i, i + 1) × [j, j + 1) and its centre is (i + 0.5, j + 0.5). The picture the camera records
// (what `LayeredScene.pinhole()` returns, and what the production renderer is given) is the scene
// seen through a pinhole at the lens centre, sampled at pixel centres.
//
// Thin-lens geometry. Let the sensor sit at distance s behind a lens of aperture diameter A focused at
// depth z_f (1/f = 1/s + 1/z_f). The ray leaving sensor point p through lens point L (|L| ≤ A/2)
// passes through p's conjugate point at depth z_f; at depth z it meets the world point X whose pinhole
// image (projection through the lens centre onto the sensor) is
//
//     q = p + s · L · (1/z − 1/z_f) = p + s · L · (d − d_f)        (d = 1/z, disparity).
//
// So, over the aperture, the rays of output pixel p see the pinhole picture of a plane at disparity d
// over a disk around p of diameter s · A · |d − d_f|. With A = F/N, s = F/(1 − F·d_f) and the sensor
// 0.036 m wide mapped to W pixels, that is F²·W/(N·0.036·(1 − F·d_f))·|d − d_f| pixels — exactly the
// lens model's c(d) (`LensModel.diameter`). Writing a for the aperture point in the unit disk:
//
//     q = p + a · k · (d − d_f),    k = LensModel.scale(focusDisparity: d_f) / 2.
//
// The sign matters: layers in front of and behind the focus plane are seen at opposite offsets along
// the same ray (rays cross at the focus plane), which is what makes occlusion at depth edges right.
// Conversely, a point at disparity d is reached from exactly the output pixels within c(d)/2 of its
// pinhole image: it images to a disk of diameter c(d).
//
// A receding plane has disparity linear in the image row, d(y) = d₀ + g·y (every world plane has
// disparity linear in pinhole image coordinates). The ray meets it where d = d₀ + g·q_y with
// q_y = p_y + a_y·k·(d − d_f), i.e.
//
//     d = (d₀ + g·p_y − g·a_y·k·d_f) / (1 − g·a_y·k),
//
// exact as long as |g·k| < 1 (the blur circle changes by less than 2 px per row).
//
// Each ray collects every layer's hit, sorts them nearest first (largest disparity) and composites
// premultiplied colour front to back. Layers are premultiplied RGBA textures in linear light on the
// pixel grid, sampled bilinearly with clamp-to-edge (so the world beyond the frame repeats the edge
// texels, the usual assumption of a renderer that has only the frame). The aperture is sampled with
// a fixed Vogel (golden-angle) spiral of uniformly spread points: the same points for every pixel and
// every frame, so the reference is deterministic and its small error is a fixed, smooth kernel, not
// noise. At the focus disparity every aperture sample lands on p itself, so in-focus layers render
// exactly as in the pinhole picture.

/// A premultiplied RGBA texture in linear light on the pixel grid.
struct RGBATexture: Sendable {
    let width: Int
    let height: Int
    /// `width × height × 4` values: premultiplied r, g, b, then alpha.
    var values: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        values = [Float](repeating: 0, count: width * height * 4)
    }

    /// A texture from straight (not premultiplied) colour and coverage at each pixel centre.
    init(width: Int, height: Int, _ texel: (_ x: Float, _ y: Float) -> (rgb: SIMD3<Float>, alpha: Float)) {
        self.init(width: width, height: height)
        for j in 0..<height {
            for i in 0..<width {
                let (rgb, alpha) = texel(Float(i) + 0.5, Float(j) + 0.5)
                let a = min(max(alpha, 0), 1)
                let o = (j * width + i) * 4
                values[o] = rgb.x * a
                values[o + 1] = rgb.y * a
                values[o + 2] = rgb.z * a
                values[o + 3] = a
            }
        }
    }

    func alpha(_ i: Int, _ j: Int) -> Float { values[(j * width + i) * 4 + 3] }

    func premultiplied(_ i: Int, _ j: Int) -> SIMD4<Float> {
        let o = (j * width + i) * 4
        return SIMD4(values[o], values[o + 1], values[o + 2], values[o + 3])
    }
}

/// Where a layer sits in depth.
enum LayerDepth: Sendable, Equatable {
    /// A fronto-parallel plane at one disparity (diopters).
    case plane(Float)
    /// A receding plane (a floor, a table top): disparity `d(y) = atTop + perPixel · y` in continuous
    /// image coordinates (y down, so `perPixel > 0` comes nearer towards the bottom).
    case receding(atTop: Float, perPixel: Float)

    func disparity(atY y: Float) -> Float {
        switch self {
        case .plane(let d): return d
        case .receding(let d0, let g): return d0 + g * y
        }
    }
}

struct SceneLayer: Sendable {
    var name: String
    var depth: LayerDepth
    var texture: RGBATexture
}

/// A synthetic scene: RGBA layers at known depths. The last layer should be opaque everywhere so
/// every ray ends somewhere.
struct LayeredScene: Sendable {
    let width: Int
    let height: Int
    var layers: [SceneLayer]

    /// Layers count as the surface of a pixel (its disparity) from this coverage up.
    static let opaqueCoverage: Float = 0.5

    /// What the camera records through a pinhole: the front-to-back composite at each pixel centre;
    /// the disparity of the front-most layer covering the pixel at least `opaqueCoverage` (the back
    /// layer's if none does); and which layer that is.
    func pinhole() -> (picture: LinearImage, disparity: [Float], layer: [Int]) {
        var picture = LinearImage(width: width, height: height)
        var disparity = [Float](repeating: 0, count: width * height)
        var surface = [Int](repeating: layers.count - 1, count: width * height)
        for j in 0..<height {
            let y = Float(j) + 0.5
            let order = layers.indices.sorted { layers[$0].depth.disparity(atY: y) > layers[$1].depth.disparity(atY: y) }
            for i in 0..<width {
                var colour = SIMD3<Float>(repeating: 0)
                var transmittance: Float = 1
                var found = false
                for l in order {
                    let t = layers[l].texture.premultiplied(i, j)
                    colour += transmittance * SIMD3(t.x, t.y, t.z)
                    transmittance *= 1 - t.w
                    if !found, t.w >= Self.opaqueCoverage {
                        found = true
                        surface[j * width + i] = l
                    }
                }
                picture.setPixel(i, j, colour)
                disparity[j * width + i] = layers[surface[j * width + i]].depth.disparity(atY: y)
            }
        }
        return (picture, disparity, surface)
    }
}

/// The exact, slow thin-lens renderer over a `LayeredScene` (see the derivation at the top of this file).
struct ReferenceRenderer: Sendable {
    /// Aperture samples per output pixel (a Vogel spiral over the unit disk).
    var samples: Int

    init(samples: Int = 256) {
        precondition(samples >= 1)
        self.samples = samples
    }

    /// `count` points spread uniformly over the unit disk: radius √((i + ½)/count), golden-angle turns.
    static func vogelDisk(count: Int) -> [SIMD2<Float>] {
        let golden = Float.pi * (3 - Float(5).squareRoot())
        return (0..<count).map { i in
            let r = ((Float(i) + 0.5) / Float(count)).squareRoot()
            let theta = golden * Float(i)
            return SIMD2(r * cos(theta), r * sin(theta))
        }
    }

    func render(_ scene: LayeredScene, focusDisparity df: Float, lens: LensModel) -> LinearImage {
        precondition(lens.width == scene.width, "the lens model's width is the output width")
        let k = lens.scale(focusDisparity: df) / 2
        precondition(k.isFinite)
        let width = scene.width
        let height = scene.height
        let layerCount = scene.layers.count
        // Flatten the layers for the inner loop: kind (0 plane, 1 receding), d₀, g, texture offset.
        var planeDs = [Float](), gradients = [Float](), layerOffsets = [Int]()
        var allTexels = [Float]()
        for layer in scene.layers {
            precondition(layer.texture.width == width && layer.texture.height == height)
            switch layer.depth {
            case .plane(let d):
                planeDs.append(d)
                gradients.append(0)
            case .receding(let d0, let g):
                precondition(abs(g * k) < 0.5, "receding plane too steep for this blur (|g·k| must stay well below 1)")
                planeDs.append(d0)
                gradients.append(g)
            }
            layerOffsets.append(allTexels.count)
            allTexels += layer.texture.values
        }
        let planeD = planeDs, gradient = gradients, offsets = layerOffsets, texels = allTexels
        let aperture = Self.vogelDisk(count: samples)
        let n = samples
        // With fronto-parallel layers only, every ray meets them in the same order.
        let fixedOrder: [Int]? =
            gradient.allSatisfy({ $0 == 0 }) ? Array(0..<layerCount).sorted { planeD[$0] > planeD[$1] } : nil
        // Plain pointers for the inner loop (array access is slow in debug builds, where tests run).
        let table = ReadOnlyFloats(aperture.map(\.x) + aperture.map(\.y) + planeD + gradient)
        let indices = ReadOnlyInts(offsets + (fixedOrder ?? []))
        let hasFixedOrder = fixedOrder != nil
        defer {
            table.deallocate()
            indices.deallocate()
        }
        var out = [Float](repeating: 0, count: width * height * 3)
        forEachRowInParallel(height, output: &out) { j, output in
            texels.withUnsafeBufferPointer { texBuffer in
                let tex = texBuffer.baseAddress!
                let ax = table.base, ay = table.base + n, planes = table.base + 2 * n, gradients = planes + layerCount
                let textureOffset = indices.base, fixed = hasFixedOrder ? indices.base + layerCount : nil
                let hitD = UnsafeMutablePointer<Float>.allocate(capacity: layerCount)
                let order = UnsafeMutablePointer<Int>.allocate(capacity: layerCount)
                defer {
                    hitD.deallocate()
                    order.deallocate()
                }
                let py = Float(j) + 0.5
                for i in 0..<width {
                    let px = Float(i) + 0.5
                    var sr: Float = 0, sg: Float = 0, sb: Float = 0
                    for s in 0..<n {
                        let axs = ax[s], ays = ay[s]
                        var hits = 0
                        if let fixed {
                            while hits < layerCount {
                                hitD[hits] = planes[fixed[hits]]
                                order[hits] = fixed[hits]
                                hits += 1
                            }
                        } else {
                            // Intersect every layer; keep the hits (d ≥ 0) sorted nearest first.
                            for l in 0..<layerCount {
                                let g = gradients[l]
                                let d = g == 0 ? planes[l] : (planes[l] + g * py - g * ays * k * df) / (1 - g * ays * k)
                                if d < 0 { continue }  // beyond infinity: no hit
                                var at = hits
                                while at > 0 && hitD[at - 1] < d {
                                    hitD[at] = hitD[at - 1]
                                    order[at] = order[at - 1]
                                    at -= 1
                                }
                                hitD[at] = d
                                order[at] = l
                                hits += 1
                            }
                        }
                        var transmittance: Float = 1
                        for h in 0..<hits {
                            let shift = k * (hitD[h] - df)
                            let t = sampleBilinear(
                                tex + textureOffset[order[h]], width: width, height: height, x: px + axs * shift, y: py + ays * shift)
                            sr += transmittance * t.r
                            sg += transmittance * t.g
                            sb += transmittance * t.b
                            transmittance *= 1 - t.a
                            if transmittance <= 0 { break }
                        }
                    }
                    let o = (j * width + i) * 3
                    let inv = 1 / Float(n)
                    output[o] = sr * inv
                    output[o + 1] = sg * inv
                    output[o + 2] = sb * inv
                }
            }
        }
        return LinearImage(width: width, height: height, values: out)
    }
}

/// A copy of some values at a fixed address, shared read-only by the rows of a render.
private struct ReadOnlyFloats: @unchecked Sendable {
    let base: UnsafeMutablePointer<Float>
    init(_ values: [Float]) {
        base = .allocate(capacity: max(values.count, 1))
        base.initialize(from: values, count: values.count)
    }
    func deallocate() { base.deallocate() }
}

private struct ReadOnlyInts: @unchecked Sendable {
    let base: UnsafeMutablePointer<Int>
    init(_ values: [Int]) {
        base = .allocate(capacity: max(values.count, 1))
        base.initialize(from: values, count: values.count)
    }
    func deallocate() { base.deallocate() }
}

/// Bilinear, clamp-to-edge lookup of a premultiplied RGBA texture at continuous coordinates
/// (written without generic helpers: it is the inner loop of debug-build tests).
@inline(__always)
private func sampleBilinear(
    _ tex: UnsafePointer<Float>, width: Int, height: Int, x: Float, y: Float
) -> (r: Float, g: Float, b: Float, a: Float) {
    var u = x - 0.5, v = y - 0.5
    let maxU = Float(width - 1), maxV = Float(height - 1)
    if u < 0 { u = 0 } else if u > maxU { u = maxU }
    if v < 0 { v = 0 } else if v > maxV { v = maxV }
    let i0 = Int(u), j0 = Int(v)
    let di = i0 + 1 < width ? 4 : 0, dj = j0 + 1 < height ? width * 4 : 0
    let fu = u - Float(i0), fv = v - Float(j0)
    let w00 = (1 - fu) * (1 - fv), w10 = fu * (1 - fv), w01 = (1 - fu) * fv, w11 = fu * fv
    let p00 = tex + (j0 * width + i0) * 4
    let p10 = p00 + di, p01 = p00 + dj, p11 = p00 + di + dj
    return (
        w00 * p00[0] + w10 * p10[0] + w01 * p01[0] + w11 * p11[0],
        w00 * p00[1] + w10 * p10[1] + w01 * p01[1] + w11 * p11[1],
        w00 * p00[2] + w10 * p10[2] + w01 * p01[2] + w11 * p11[2],
        w00 * p00[3] + w10 * p10[3] + w01 * p01[3] + w11 * p11[3]
    )
}

extension LayeredScene {
    /// The scene with every texel a renderer cannot see — hidden in the pinhole picture behind nearer
    /// layers (transmittance below ½) — replaced by a smooth guess from the same layer's visible texels
    /// (normalised Gaussian average, widening until enough is visible). The reference of this scene
    /// against the true reference measures what unknowable occluded content costs even a renderer
    /// with a perfect lens model and a sensible fill: the scenes' fairness.
    func withHiddenContentGuessed() -> LayeredScene {
        var transmittance = [Float](repeating: 1, count: width * height)
        var hidden = [[Bool]](repeating: [Bool](repeating: false, count: width * height), count: layers.count)
        for j in 0..<height {
            let y = Float(j) + 0.5
            // Nearest first at this row (the order may change along y for receding layers).
            let order = layers.indices.sorted { layers[$0].depth.disparity(atY: y) > layers[$1].depth.disparity(atY: y) }
            for i in 0..<width {
                let p = j * width + i
                for l in order {
                    hidden[l][p] = transmittance[p] < 0.5
                    transmittance[p] *= 1 - layers[l].texture.alpha(i, j)
                }
            }
        }
        var result = self
        for l in layers.indices {
            let texture = layers[l].texture
            var guessed = texture
            for j in 0..<height {
                for i in 0..<width where hidden[l][j * width + i] {
                    for sigma in [2, 4, 8, 16, 32, 64] {
                        let radius = 2 * sigma
                        var sum = SIMD4<Float>(repeating: 0), weight: Float = 0
                        for v in max(0, j - radius)...min(height - 1, j + radius) {
                            for u in max(0, i - radius)...min(width - 1, i + radius) where !hidden[l][v * width + u] {
                                let w = expf(-Float((u - i) * (u - i) + (v - j) * (v - j)) / Float(2 * sigma * sigma))
                                sum += w * texture.premultiplied(u, v)
                                weight += w
                            }
                        }
                        if weight > 0.5 || sigma == 64 {
                            let value = weight > 0 ? sum / weight : .zero
                            for c in 0..<4 { guessed.values[(j * width + i) * 4 + c] = value[c] }
                            break
                        }
                    }
                }
            }
            result.layers[l].texture = guessed
        }
        return result
    }
}
