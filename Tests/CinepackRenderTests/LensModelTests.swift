import CinepackRender
import Testing

@Suite struct LensModelTests {
    /// The worked example: at 50 mm, f/2, 1920 px, subject at 2 m, a background at infinity gets about a
    /// 34 px circle. By hand: 0.05² · 1920 / (2 · 0.036 · (1 − 0.05 · 0.5)) · 0.5 = 34.19.
    @Test func matchesTheWorkedExample() {
        let lens = LensModel(focalLength35mm: 50, fNumber: 2, width: 1920)
        let c = lens.diameter(disparity: 0, focusDisparity: 0.5)
        #expect(abs(c - 34.188) < 0.01)
        #expect(lens.signedDiameter(disparity: 0, focusDisparity: 0.5) > 0)  // behind focus
        #expect(lens.signedDiameter(disparity: 1, focusDisparity: 0.5) < 0)  // in front
        #expect(lens.diameter(disparity: 0.5, focusDisparity: 0.5) == 0)
    }
}
