import ArgumentParser
import Cinepack

/// Option values read through the libraries' rules, the same way by every command: numbers are
/// decimal only (`DecimalNumber`: no `0x1p3`, `nan` or `inf`), lens settings in `LensRules`' ranges.
/// Used as `transform:` of options declared with `parsing: .unconditional`, so a value starting with
/// `-` (`--at -1s`, `--disparity -1`) is taken as the value and explained, not mistaken for an option.
/// A refused value exits with status 64, like every other usage error (README, "Exit status").
enum OptionValue {
    /// ArgumentParser prints it after "The value 'X' is invalid for '--option <option>': ".
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static func fNumber(_ text: String) throws -> Float {
        do { return try LensRules.fNumber(try DecimalNumber.double(text)) } catch { throw Invalid(description: "\(error)") }
    }

    static func focalLength(_ text: String) throws -> Float {
        do { return try LensRules.focalLength(try DecimalNumber.double(text)) } catch { throw Invalid(description: "\(error)") }
    }

    /// A binary32 number (disparities, coordinates), as the EDL stores it.
    static func float(_ text: String) throws -> Float {
        do { return try DecimalNumber.float(text) } catch { throw Invalid(description: "\(error)") }
    }

    static func double(_ text: String) throws -> Double {
        do { return try DecimalNumber.double(text) } catch { throw Invalid(description: "\(error)") }
    }
}
