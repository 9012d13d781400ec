import CinepackFormat
import TestSupport
import Testing

@testable import CinepackRender

/// The coarse fill and near gathers that visit only the rows of taps whose samples reach must
/// give the whole table's sums bit for bit (the render must not change): checked against the
/// whole-table gathers on planes with empty rows, zero weights and a spread of radii.
@Suite struct RowGatherTests {
    static let shaped = ApertureTaps.make(LensLook(blades: 6, bladeRotation: 15, bladeCurvature: 0.3))
    static let squeezed = ApertureTaps.make(LensLook(anamorphic: 1.5))

    /// Each table split into its rows gives back the table, and the table for a limit is the
    /// one `ApertureTaps.within` takes.
    @Test(arguments: [ApertureTaps.circle, shaped, squeezed])
    func rowsCoverEachTableInOrder(_ aperture: ApertureTaps) throws {
        let rows = try #require(TapRows.of(aperture))
        for k in 0...DiskTaps.steps {
            var joined: [DiskTaps.Tap] = []
            for dy in -rows.reach...rows.reach {
                let (start, end) = rows.row(k, dy)
                joined += (start..<end).map { rows.taps[$0] }
            }
            let table = aperture.taps[k]
            #expect(joined.count == table.count)
            #expect(zip(joined, table).allSatisfy { $0.dx == $1.dx && $0.dy == $1.dy && $0.half == $1.half })
        }
        var limits: [Float] = [-1, 0, 0.1, 0.25, 0.5, 1, 12.5, 13, 100, .infinity, .nan]
        for q in 0...60 {
            let quarter = Float(q) / 4
            for x in [quarter, quarter + 0.1] { limits += [x.nextDown, x, x.nextUp] }
        }
        for limit in limits {
            let k = TapRows.table(limit)
            let within = aperture.within(limit) { $0.baseAddress }
            #expect(aperture.taps[k].withUnsafeBufferPointer { $0.baseAddress } == within, "limit \(limit)")
        }
    }

    @Test func aCatsEyeKeepsItsZoneTables() {
        #expect(TapRows.of(ApertureTaps.make(LensLook(catEye: 0.6))) == nil)
    }

    /// Planes of a level: `pad` cells around, six planes (`GroupPlane`), rows of samples with
    /// colour or weight in bands, others empty.
    struct Scene {
        static let width = 48
        static let height = 48
        static let pad = 20
        static let stride = width + 2 * pad
        static let rows = height + 2 * pad
        static let planeSize = stride * rows
        var planes = [Float](repeating: 0, count: 6 * planeSize)

        init(seed: UInt64) {
            var generator = SeededGenerator(seed: seed)
            func unit() -> Float { Float(generator.next() % 1_000_000) / 1_000_000 }
            for y in 0..<Self.rows {
                // Bands of rows without samples, rows with some, and rows full of them.
                let band = (y / 5 + Int(seed)) % 3
                for x in 0..<Self.stride where band == 2 || (band == 1 && unit() < 0.3) {
                    let q = y * Self.stride + x
                    for c in 0..<4 { planes[c * Self.planeSize + q] = unit() * (c == 3 ? 1 : 4) }
                    planes[GroupPlane.radius.rawValue * Self.planeSize + q] = 0.5 + unit() * (unit() < 0.5 ? 2 : 12)
                    planes[GroupPlane.inverseArea.rawValue * Self.planeSize + q] = unit() < 0.2 ? 0 : 0.01 + unit()
                }
            }
        }

        /// Per row, the fill reach (any colour or alpha) and the near reach (largest radius with
        /// weight) over the whole row.
        var reaches: (fill: [Float], near: [Float]) {
            var fill = [Float](repeating: 0, count: Self.rows)
            var near = [Float](repeating: 0, count: Self.rows)
            for y in 0..<Self.rows {
                for x in 0..<Self.stride {
                    let q = y * Self.stride + x
                    if (0..<4).contains(where: { planes[$0 * Self.planeSize + q] != 0 }) { fill[y] = 1 }
                    if planes[GroupPlane.inverseArea.rawValue * Self.planeSize + q] != 0 {
                        near[y] = max(near[y], planes[GroupPlane.radius.rawValue * Self.planeSize + q])
                    }
                }
            }
            return (fill, near)
        }
    }

    static func same(_ a: Accum8, _ b: Accum8) -> Bool {
        (0..<8).allSatisfy {
            a.r[$0].bitPattern == b.r[$0].bitPattern && a.g[$0].bitPattern == b.g[$0].bitPattern
                && a.b[$0].bitPattern == b.b[$0].bitPattern && a.a[$0].bitPattern == b.a[$0].bitPattern
        }
    }

    @Test(arguments: [ApertureTaps.circle, shaped, squeezed])
    func rowGathersMatchTheWholeTable(_ aperture: ApertureTaps) throws {
        let rows = try #require(TapRows.of(aperture))
        for seed: UInt64 in 0..<3 {
            var scene = Scene(seed: seed)
            let (fill, near) = scene.reaches
            var generator = SeededGenerator(seed: 100 + seed)
            try scene.planes.withUnsafeMutableBufferPointer { planes in
                let base = try #require(planes.baseAddress)
                for y in stride(from: Scene.pad, to: Scene.pad + Scene.height, by: 3) {
                    for x0 in stride(from: Scene.pad, to: Scene.pad + Scene.width - 8, by: 7) {
                        let p = base + y * Scene.stride + x0
                        let rho = SIMD8<Float>((0..<8).map { _ in 0.5 + Float(generator.next() % 1000) / 1000 * 11 })
                        let inverseArea = SIMD8<Float>((0..<8).map { _ in Float(generator.next() % 1000) / 1000 })
                        let limit = Float(generator.next() % 51) / 4
                        let k = TapRows.table(limit)
                        try fill.withUnsafeBufferPointer { fill in
                            let reach = RowReach(p: try #require(fill.baseAddress), stride: 1, y: y, height: Scene.rows)
                            let whole = aperture.within(limit) {
                                gatherFill(
                                    p, planeSize: Scene.planeSize, stride: Scene.stride, taps: $0, rho: rho, inverseArea: inverseArea)
                            }
                            let byRows = gatherFill(
                                p, planeSize: Scene.planeSize, stride: Scene.stride, rows: rows, table: k, reach: reach, rho: rho,
                                inverseArea: inverseArea)
                            #expect(Self.same(whole, byRows), "fill at \(x0), \(y), limit \(limit)")
                        }
                        try near.withUnsafeBufferPointer { near in
                            let reach = RowReach(p: try #require(near.baseAddress), stride: 1, y: y, height: Scene.rows)
                            let whole = aperture.within(limit) { gatherNear(p, planeSize: Scene.planeSize, stride: Scene.stride, taps: $0) }
                            let byRows = gatherNear(p, planeSize: Scene.planeSize, stride: Scene.stride, rows: rows, table: k, reach: reach)
                            #expect(Self.same(whole, byRows), "near at \(x0), \(y), limit \(limit)")
                        }
                    }
                }
            }
        }
    }
}
