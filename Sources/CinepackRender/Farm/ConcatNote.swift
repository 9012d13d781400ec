/// What joining render parts tells the user beside its result: why no audio was added.
package enum ConcatNote: Sendable, Equatable, CustomStringConvertible {
    /// The parts' source has audio, and no audio source was given to take it from.
    case sourceAudioNotAdded(sourceName: String)
    /// The audio source given has no audio track.
    case audioSourceHasNoAudio(path: String)

    package var description: String {
        switch self {
        case .sourceAudioNotAdded(let source):
            "note: no audio added: the source \(source) has audio; give that movie as the audio source to add it"
        case .audioSourceHasNoAudio(let path): "note: no audio added: \(path) has no audio track"
        }
    }
}
