import Testing

@testable import CinepackRender

/// The full-resolution gathers' shortcuts must give exactly what the full formulas give: the
/// taps that skip the small-disk kernel, and the eight-lane area lookup.
@Suite struct FineWeightsTests {
    /// Radii around the kernel's blend (0.7 … 1) and the profile's reach, densely, and beyond.
    static let radii: [Float] =
        (0...256).map { Float($0) / 64 } + [0.7, 0.9999999, 1, 1.0000001, 2.25, 7.5, 12.25].flatMap { [$0.nextDown, $0, $0.nextUp] }

    /// Skipping the kernel for a tap is exact: where `splineOnly` says so, the kernel's weight is
    /// bit for bit the spline, for every shape's taps (the anamorphic one brings ring-3 taps
    /// closer than two pixels, which must not skip).
    @Test(arguments: [LensLook(), LensLook(blades: 6, bladeRotation: 15, bladeCurvature: 0.3), LensLook(anamorphic: 1.5)])
    func splineOnlyTapsTakeTheSpline(look: LensLook) {
        let aperture = ApertureTaps.make(look)
        let taps = aperture.taps[DiskTaps.steps]
        let inverseArea = SIMD8<Float>(repeating: 0.37)
        var skipped = 0
        var kept = 0
        for tap in taps {
            guard FineKernel.splineOnly(tap) else {
                if tap.ring > 2 { kept += 1 }
                continue
            }
            skipped += 1
            for start in stride(from: 0, to: Self.radii.count, by: 8) {
                let e = SIMD8<Float>((0..<8).map { Self.radii[min(start + $0, Self.radii.count - 1)] })
                let spline = EdgeProfile.fineProfile(e + tap.half) * inverseArea
                let weight = FineKernel(e).weight(ring: tap.ring, spline: spline)
                for k in 0..<8 {
                    #expect(weight[k].bitPattern == spline[k].bitPattern, "tap (\(tap.dx), \(tap.dy)), e = \(e[k])")
                }
            }
        }
        #expect(skipped > taps.count / 2)
        if look.anamorphic != 1 { #expect(kept > 0) }
    }

    /// The eight-lane area lookup equals the scalar one lane for lane, bit for bit, on and between
    /// the table's steps, at its end (16) and past it.
    @Test func eightLaneInverseAreaMatchesTheScalar() {
        let radii: [Float] =
            (0...1100).map { Float($0) / 64 } + (0..<200).map { Float($0) * 0.173 + 0.01 }
            + [0, 0.5, 15.999999, 16, 16.000002, 40, 1e20, .infinity].flatMap { [$0, $0.nextUp] }
        for table in [DiskArea.fine, DiskArea.table, ApertureTaps.make(LensLook(anamorphic: 1.5)).fine] {
            for start in stride(from: 0, to: radii.count, by: 8) {
                let lanes = SIMD8<Float>((0..<8).map { radii[min(start + $0, radii.count - 1)] })
                let v = DiskArea.inverse(lanes, table)
                for k in 0..<8 {
                    #expect(v[k].bitPattern == DiskArea.inverse(lanes[k], table).bitPattern, "radius \(lanes[k])")
                }
            }
        }
    }
}
