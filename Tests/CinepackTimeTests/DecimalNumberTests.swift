import CinepackTime
import Testing

/// `DecimalNumber`: what people type as numbers, and nothing else Swift's parser also takes.
@Suite struct DecimalNumberTests {
    @Test(arguments: [
        ("12", 12.0), ("-0.5", -0.5), ("+2.8", 2.8), (".5", 0.5), ("5.", 5.0), ("1e-05", 1e-5), ("2E3", 2000.0),
        ("1e-45", 1e-45), ("0", 0.0),
    ])
    func acceptsDecimals(_ text: String, _ value: Double) throws {
        #expect(try DecimalNumber.double(text) == value)
    }

    @Test(arguments: ["0x10", "0x1p3", "nan", "inf", "-infinity", "", "-", ".", "1e", "1e+", " 1", "1 ", "1,5", "1.2.3", "e5", "٣"])
    func refusesEverythingElse(_ text: String) {
        let error = #expect(throws: DecimalNumber.ParseError.self) { try DecimalNumber.double(text) }
        #expect(error?.reason == .notDecimal)
        #expect(error?.description == "\"\(text)\" is not a decimal number (e.g. 2.8, -0.5, 1e-3)")
    }

    /// Out of range for the type, as spec/edl.md §10 reads binary32 numbers: 1e39 has no finite binary32.
    @Test func tooLargeForTheType() throws {
        #expect(try DecimalNumber.float("3.4028234e38") == Float.greatestFiniteMagnitude)
        #expect(throws: DecimalNumber.ParseError(text: "1e39", reason: .outOfRange)) { try DecimalNumber.float("1e39") }
        #expect(throws: DecimalNumber.ParseError(text: "1e400", reason: .outOfRange)) { try DecimalNumber.double("1e400") }
        #expect(try DecimalNumber.double("1e39") == 1e39)
    }

    /// Errors quote at most 40 characters of what they were given.
    @Test func longTextIsQuotedShort() {
        let long = String(repeating: "x", count: 10_000)
        let error = #expect(throws: DecimalNumber.ParseError.self) { try DecimalNumber.double(long) }
        #expect(error?.description.count ?? 0 < 100)
    }
}
