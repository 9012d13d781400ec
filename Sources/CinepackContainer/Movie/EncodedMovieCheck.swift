import CinepackTime

/// Checks a movie another program (ffmpeg) just encoded, before it is put in place: the file
/// must parse with its `moov`, hold a video track with exactly the frames sent, last as long as
/// those frames, and have every sample inside the file. An encoder can exit successfully on a
/// full disk with no `moov` written; this is where that is caught.
package enum EncodedMovieCheck {
    package static func verify(path: String, frames: Int, rate: FrameRate) throws(ContainerError) {
        let movie = try Movie.read(path: path)
        guard let video = movie.tracks.first(where: { $0.kind == .video }) else {
            throw ContainerError.malformed("\(path): no video track")
        }
        guard video.samples.count == frames else {
            throw ContainerError.malformed("\(path): \(video.samples.count) frames in the video track, \(frames) were encoded")
        }
        var beyond: SampleInfo?
        video.samples.forEach { if beyond == nil, $0.byteRange.upperBound > movie.fileSize { beyond = $0 } }
        if let beyond {
            throw ContainerError.truncated(offset: beyond.offset, wanted: Int64(beyond.size), fileSize: movie.fileSize)
        }
        // Duration in seconds against frames / rate, within one frame of rounding.
        guard video.timescale > 0 else { throw ContainerError.malformed("\(path): video track timescale 0") }
        let seconds = Double(video.samples.totalDuration) / Double(video.timescale)
        let expected = Double(frames) * Double(rate.seconds) / Double(rate.frames)
        let frame = Double(rate.seconds) / Double(rate.frames)
        guard abs(seconds - expected) <= frame else {
            throw ContainerError.malformed(
                "\(path): the video track lasts \(seconds) s, \(frames) frames at \(rate) should last \(expected) s")
        }
    }
}
