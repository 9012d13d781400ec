import CinepackContainer
import CinepackFormat

/// The source audio's channel layout (`chan` box) put on the program audio ffmpeg writes: ffmpeg
/// cuts and retimes the samples but labels 4 channels "4.0", not the first-order ambisonics
/// (ACN/SN3D) a phone records. After ffmpeg has written a file (the cut audio of
/// `ProgramAudioTrack`, or an encoded render with audio), its audio sample entry gets the source's
/// `chan` box back, byte for byte (spec/retime.md §6).
package enum ProgramChannelLayout {
    /// Gives the first audio track of the file at `path` the channel layout of `movie`'s audio;
    /// nothing when the source audio has no `chan` box.
    package static func restore(from movie: CinematicMovie, intoFileAt path: String) throws(FormatError) {
        guard let audio = movie.audio else { return }
        do {
            guard let chan = try ChannelLayoutWriter.channelLayoutBox(of: audio, in: movie.source) else { return }
            try ChannelLayoutWriter.set(chan, inFileAt: path)
        } catch { throw .container(error, file: path) }
    }
}
