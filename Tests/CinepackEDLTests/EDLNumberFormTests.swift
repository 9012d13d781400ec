import Foundation
import TestSupport
import Testing

@testable import CinepackEDL

/// spec/edl.md §12: numbers are the shortest round-tripping digits, plain for E ≥ −4 and
/// |x| ≤ 2^24 (binary32) / 2^53 (binary64), exponent form otherwise. Hand-computed boundary cases,
/// then numpy's shortest digits (Dragon4, `unique=True`) laid out by the spec's rule on a random
/// sample of binary32 values.
@Suite struct EDLNumberFormTests {
    @Test func boundaryCasesAreWrittenAsTheSpecSays() {
        let floats: [(Float, String)] = [
            (0.5, "0.5"), (2, "2.0"), (-0.0, "-0.0"), (0, "0.0"), (123456.7, "123456.7"), (9_999_999, "9999999.0"),
            (16_777_216, "16777216.0"), (16_777_218, "1.6777218e+07"), (33_554_432, "3.3554432e+07"),
            (Float(0.0001), "0.0001"), (Float(0.0001).nextDown, "9.999999e-05"), (1e-5, "1e-05"),
            (.greatestFiniteMagnitude, "3.4028235e+38"), (-2.5e-7, "-2.5e-07"),
        ]
        for (value, text) in floats { #expect(EDLValue.text(value) == text, "\(value.bitPattern)") }
        let doubles: [(Double, String)] = [
            (9_007_199_254_740_992, "9007199254740992.0"), (9_007_199_254_740_994, "9.007199254740994e+15"), (1e16, "1e+16"),
            (0.0001, "0.0001"), (0.0001.nextDown, "9.999999999999999e-05"), (1.0 / 3.0, "0.3333333333333333"),
        ]
        for (value, text) in doubles { #expect(EDLValue.text(value) == text, "\(value)") }
    }

    @Test func randomBinary32ValuesFollowTheLayoutRule() throws {
        guard try Peers.available("python3") else { return }
        var rng = SeededGenerator(seed: 12)
        var values: [Float] = []
        for _ in 0..<3000 {
            let exponent = Int.random(in: -40...40, using: &rng)
            values.append(Float.random(in: 1..<10, using: &rng) * Float(pow(10.0, Double(exponent))))
        }
        values += [16_777_216, 16_777_218, Float(0.0001), Float(0.0001).nextDown, Float(1e-4).nextUp]
        values = values.filter(\.isFinite)
        // The spec's layout of numpy's shortest digits.
        let script = """
            import sys, numpy as np
            for word in sys.stdin.read().split():
                x = np.frombuffer(bytes.fromhex(word), dtype=">f4")[0].astype(np.float32)
                sci = np.format_float_scientific(x, unique=True, trim="-", exp_digits=2)
                mant, e = sci.split("e")
                E = int(e)
                digits = mant.replace("-", "").replace(".", "")
                sign = "-" if x < 0 else ""
                if E >= -4 and abs(float(x)) <= 2.0 ** 24:
                    if E >= 0:
                        whole = (digits + "0" * (E + 1))[:E + 1]
                        frac = digits[E + 1:] or "0"
                    else:
                        whole, frac = "0", "0" * (-E - 1) + digits
                    print(sign + whole + "." + frac)
                else:
                    m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
                    print(sign + m + "e" + ("+" if E >= 0 else "-") + "%02d" % abs(E))
            """
        let words = values.map { v in String(v.bitPattern, radix: 16).leftPadding(8) }.joined(separator: " ")
        let out = try Peers.run("python3", ["-c", script], stdin: Data(words.utf8))
        let expected = out.text.split(separator: "\n").map(String.init)
        try #require(expected.count == values.count, "numpy: \(out.stderr)")
        for (value, text) in zip(values, expected) {
            #expect(EDLValue.text(value) == text, "binary32 \(value.bitPattern): cinepack \(EDLValue.text(value)), spec \(text)")
        }
    }
}

extension String {
    fileprivate func leftPadding(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
