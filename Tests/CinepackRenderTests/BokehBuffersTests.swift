import Testing

@testable import CinepackRender

/// The renderer's buffer layer: owned raw memory and planes named by enums.
@Suite struct BokehBuffersTests {
    @Test func rawBuffersStartZeroedOrFilled() {
        let small = RawBuffer<Float>(count: 1000)
        #expect((0..<1000).allSatisfy { small[$0] == 0 })
        // Large enough to be mapped when large pages are asked for.
        let count = RawBuffer<Float>.largePageThreshold / 4 + 17
        let large = RawBuffer<Float>(count: count, largePages: true)
        #expect(large[0] == 0 && large[count / 2] == 0 && large[count - 1] == 0)
        large[count - 1] = 3
        large.zero()
        #expect(large[count - 1] == 0)
        let stats = RawBuffer(repeating: TileStats(), count: 5)
        #expect((0..<5).allSatisfy { stats[$0].maxFar == -1 && stats[$0].minNear == .infinity })
    }

    @Test func planesAreConsecutiveAndPadded() {
        let planes = Planes<LevelPlane>(width: 21, height: 5, pad: 3)
        #expect(planes.stride >= 3 + 21 + 3 + 8 && planes.stride % 8 == 0)
        #expect(planes.storage.count == planes.planeSize * 18)
        for plane in LevelPlane.allCases {
            #expect(planes.origin(plane) - planes.base == plane.rawValue * planes.planeSize + 3 * planes.stride + 3)
        }
    }

    /// The gathers read a group from its first plane at `GroupPlane` offsets: every group must
    /// keep that order.
    @Test func gatheredGroupsFollowTheGroupLayout() {
        let groups: [(LevelPlane, [GroupPlane: LevelPlane])] = [
            (
                .farRed,
                [.red: .farRed, .green: .farGreen, .blue: .farBlue, .alpha: .farAlpha, .radius: .farRadius, .inverseArea: .farInverseArea]
            ),
            (.fillRed, [.red: .fillRed, .green: .fillGreen, .blue: .fillBlue, .alpha: .fillAlpha]),
            (
                .nearRed,
                [
                    .red: .nearRed, .green: .nearGreen, .blue: .nearBlue, .alpha: .nearAlpha, .radius: .nearRadius,
                    .inverseArea: .nearInverseArea,
                ]
            ),
        ]
        for (first, members) in groups {
            for (offset, plane) in members { #expect(first.rawValue + offset.rawValue == plane.rawValue) }
        }
        #expect(LevelPlane.gathered == 0..<16)
        #expect(LevelPlane.count == 18)
        let full: [(FullResolutionPlane, [GroupPlane: FullResolutionPlane])] = [
            (
                .farRed,
                [.red: .farRed, .green: .farGreen, .blue: .farBlue, .alpha: .farAlpha, .radius: .farRadius, .inverseArea: .farInverseArea]
            ),
            (
                .nearRed,
                [
                    .red: .nearRed, .green: .nearGreen, .blue: .nearBlue, .alpha: .nearAlpha, .radius: .nearRadius,
                    .inverseArea: .nearInverseArea,
                ]
            ),
        ]
        for (first, members) in full {
            for (offset, plane) in members { #expect(first.rawValue + offset.rawValue == plane.rawValue) }
        }
    }
}
