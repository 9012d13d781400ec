/// Escaping of text for the XML this module writes: canonical EDL (spec/edl.md §12) and FCPXML
/// (spec/interchange.md). The one place that decides how attribute text is spelled.
enum XMLEscape {
    /// What happens to characters XML 1.0 cannot carry at all, not even as character references
    /// (C0 controls other than tab, LF and CR; U+FFFE; U+FFFF).
    enum Forbidden {
        /// Each becomes U+FFFD, so the document is always well-formed. For exports, where a
        /// slightly changed name beats a file other tools refuse.
        case replace
        /// Written as is ("everything else is literal UTF-8", spec/edl.md §12). The canonical EDL
        /// writer needs this: `validate()` refuses such text, and writing an invalid list must
        /// give a document the reader refuses, not quietly a different, valid list.
        case keep
    }

    /// Whether `scalar` may appear in an XML 1.0 document (the Char production).
    static func isCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// Text for an attribute value between double quotes: `&` `<` `>` `"` as entities, and tab, LF
    /// and CR as character references so attribute-value normalisation does not turn them into
    /// spaces. Everything else is literal, except characters XML forbids (see `Forbidden`).
    static func attribute(_ s: String, forbidden: Forbidden = .replace) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case _ where forbidden == .replace && !isCharacter(scalar): out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
