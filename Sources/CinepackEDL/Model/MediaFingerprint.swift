import CinepackContainer
import CinepackFormat
import CinepackTime

extension MediaBinding {
    /// The binding of a cinematic movie: its frame count, frame rate and the fingerprint of its
    /// video track (spec/edl.md: FNV-1a 64 over the timescale, the sample count and every
    /// sample's duration and size, big-endian, printed as 16 lowercase hex digits). It changes
    /// when the picture's samples change, not when metadata or the EDL do.
    package init(movie: CinematicMovie) throws(FormatError) {
        guard let rate = movie.frameRate else {
            throw FormatError("\(movie.path): frames are not evenly spaced; cannot bind an EDL to them")
        }
        self.init(frameCount: movie.frameCount, frameRate: rate, fingerprint: MediaBinding.fingerprint(of: movie.video))
    }

    package static func fingerprint(of track: Track) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ value: UInt64, bytes: Int) {
            for i in (0..<bytes).reversed() {
                hash ^= (value >> (UInt64(i) * 8)) & 0xFF
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        mix(UInt64(track.timescale), bytes: 4)
        mix(UInt64(track.samples.count), bytes: 8)
        track.samples.forEach { sample in
            mix(UInt64(bitPattern: sample.duration), bytes: 8)
            mix(UInt64(sample.size), bytes: 4)
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
