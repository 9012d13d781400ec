import Testing

@testable import CinepackRender

/// The full-resolution gathers' shortcuts must give exactly what the full formulas give.
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
}
