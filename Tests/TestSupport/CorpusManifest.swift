import Foundation

/// The lines of corpus/manifest.tsv: file, mode (ok, warn, error), expected text, how it was made.
public enum CorpusManifest {
    public struct Entry: CustomStringConvertible, Sendable {
        public var file: String
        public var mode: String
        public var expected: String
        public var description: String { file }
    }

    public static let entries: [Entry] = {
        let text = (try? String(contentsOfFile: Paths.corpus("manifest.tsv"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return cols.count >= 3 ? Entry(file: cols[0], mode: cols[1], expected: cols[2]) : nil
        }
    }()
}
