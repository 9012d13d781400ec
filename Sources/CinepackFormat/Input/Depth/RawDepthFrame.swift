/// One depth frame as stored: numbers in the file's own unit, row-major, top row first.
public struct RawDepthFrame: Sendable {
    public var width: Int
    public var height: Int
    public var values: [Float]
    /// For integer samples (PNG, integer NumPy, video): the sample type's largest code (255,
    /// 1023, 65535…); nil for floating-point data.
    public var integerMaximum: Float?

    public init(width: Int, height: Int, values: [Float], integerMaximum: Float?) {
        self.width = width
        self.height = height
        self.values = values
        self.integerMaximum = integerMaximum
    }
}
