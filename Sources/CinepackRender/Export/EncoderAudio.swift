import CinepackEDL
import CinepackEditor

/// The program's audio for an ffmpeg encode (the pictures are its input 0): the source file, and
/// the filter graph that cuts and retimes it (`ProgramAudio.ffmpegFilter`), or nil for a plain copy
/// of the source's audio.
package struct EncoderAudio: Sendable, Equatable {
    package var path: String
    package var filter: String?

    package init(path: String, filter: String?) {
        self.path = path
        self.filter = filter
    }

    /// The source's audio as `plan`'s program plays it: a plain copy when the program is the whole
    /// clip unedited, else the source cut and retimed (the same cut `ProgramAudioTrack` makes for
    /// PNG). Nil when the source has no audio.
    package init?(programOf plan: RenderPlan) {
        guard let track = plan.movie.audio else { return nil }
        let source = plan.movie.path
        if plan.playsSourceAudioUnchanged {
            self.init(path: source, filter: nil)
            return
        }
        let audio = ProgramAudio(timeline: plan.timeline, frames: plan.outputFrames)
        let rate = Int(track.audio?.sampleRate ?? 0) > 0 ? Int(track.audio!.sampleRate) : Int(track.timescale)
        self.init(path: source, filter: audio.ffmpegFilter(input: "1:a:0", sampleRate: rate, output: "aout"))
    }
}
