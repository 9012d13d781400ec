/// The layers of the preview's reduced render, planes of `width × height` floats in this order:
/// the near field (premultiplied colour and coverage), then what lies behind it.
enum PreviewLayer: Int, PlaneSet {
    case nearRed, nearGreen, nearBlue, nearCoverage
    case behindRed, behindGreen, behindBlue

    static let count = allCases.count
}
