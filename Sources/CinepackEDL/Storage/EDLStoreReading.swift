import CinepackContainer

extension EDLStore {
    /// The stored EDL of the movie in `source`, read without opening the file for writing: what
    /// `cinepack inspect` reports, warnings about torn or empty-of-magic slots included (spec/format.md
    /// §8). Throws what opening a store throws (a `cpES` of unknown version, a malformed `cpED`).
    package static func read(source: any ByteSource, name: String) throws(EDLStorageError) -> StoredEDL {
        try scan(source, name: name).stored
    }
}
