import CinepackContainer
import Foundation

/// Where a depth input's frames come from: a numbered sequence of files, one NumPy array, one
/// `.npz` member or a grey video. The frame size is known from headers before any pixel is
/// decoded; frames are read one at a time, so memory does not grow with the clip.
public protocol DepthFrameSource: AnyObject {
    /// What the user named (pattern or file), for messages.
    var name: String { get }
    var frameCount: Int { get }
    var width: Int { get }
    var height: Int { get }
    /// Whether frames may be read in any order and from several threads; otherwise they must
    /// be read in order from 0 (reading frame 0 again starts over).
    var isRandomAccess: Bool { get }
    /// The file holding frame `index` (the pattern's file, or the one file), for messages.
    func file(_ index: Int) -> String
    func read(_ index: Int) throws(DepthInputError) -> RawDepthFrame
}
