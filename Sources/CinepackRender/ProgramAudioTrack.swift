import CinepackContainer
import CinepackEditor
import CinepackFormat
import Foundation

/// The audio track a rendered program carries when cinepack writes the movie itself (PNG renders,
/// joined farm parts): the source's own audio track when the program plays the whole clip
/// unchanged, else the source's audio cut at the program's rational times and retimed (spec/retime.md
/// §6, ffmpeg `atempo`: pitch kept) into a temporary 24-bit PCM movie beside the output. Outputs
/// encoded by ffmpeg apply the same `ProgramAudio` filter in the encoding run instead.
package struct ProgramAudioTrack: Sendable {
    package let track: CarriedTrack
    /// The temporary movie holding the cut audio, nil for the source's own track; `remove()` it
    /// once the output is written.
    package let temporaryPath: String?

    /// The program audio of `plan`, or nil when the source has none. `output` names the file being
    /// written: the temporary movie goes beside it (same folder, hidden name).
    package static func make(_ plan: RenderPlan, besides output: String) throws(FormatError) -> ProgramAudioTrack? {
        let movie = plan.movie
        guard let source = movie.audio else { return nil }
        if plan.playsSourceAudioUnchanged {
            return ProgramAudioTrack(track: CarriedTrack(movie: movie.movie, track: source, source: movie.source), temporaryPath: nil)
        }
        let audio = ProgramAudio(timeline: plan.timeline, frames: plan.outputFrames)
        let rate = Int(source.audio?.sampleRate ?? 0) > 0 ? Int(source.audio!.sampleRate) : Int(source.timescale)
        let url = URL(fileURLWithPath: output)
        let path = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).audio-\(getpid()).mov").path
        let token = PartialFiles.add(path)
        do throws(FormatError) {
            let ffmpeg: String
            do { ffmpeg = try FFmpegTool.require("cutting and retiming the audio of an edited program") } catch {
                throw FormatError(error.description)
            }
            let arguments = [
                "-v", "error", "-nostdin", "-y", "-i", movie.path, "-filter_complex",
                audio.ffmpegFilter(input: "0:a:0", sampleRate: rate, output: "aout"), "-map", "[aout]", "-c:a", "pcm_s24le", "-f", "mov",
                path,
            ]
            let result: (status: Int32, log: String)
            do { result = try FFmpegTool.run(ffmpeg, arguments) } catch { throw FormatError(error.description) }
            guard result.status == 0 else {
                throw FormatError(
                    "\(movie.path): ffmpeg could not cut the program's audio (status \(result.status)): \(FFmpegTool.tail(result.log))")
            }
            try ProgramChannelLayout.restore(from: movie, intoFileAt: path)
            let file: FileByteSource
            let cut: Movie
            do {
                file = try FileByteSource(path: path)
                cut = try Movie.read(source: file)
            } catch { throw .container(error, file: path) }
            guard let track = cut.tracks.first(where: { $0.kind == .audio }) else {
                throw FormatError("\(path): ffmpeg wrote no audio track")
            }
            return ProgramAudioTrack(track: CarriedTrack(movie: cut, track: track, source: file), temporaryPath: path, token: token)
        } catch {
            unlink(path)
            PartialFiles.remove(token)
            throw error
        }
    }

    private let token: Int?

    init(track: CarriedTrack, temporaryPath: String?, token: Int? = nil) {
        self.track = track
        self.temporaryPath = temporaryPath
        self.token = token
    }

    /// Deletes the temporary movie (nothing for the source's own track).
    package func remove() {
        guard let temporaryPath else { return }
        unlink(temporaryPath)
        PartialFiles.remove(token)
    }
}
