import CinepackContainer
import CinepackTime
import Dispatch
import Foundation

/// `cinepack pack` as a library call: image sequences (or a carried video), disparity maps and
/// detections into one cinematic movie.
public struct PackRequest: Sendable {
    public enum DisparityFormat: String, Sendable, CaseIterable {
        /// 16-bit grey PNG: value v maps to min + v/65535·(max − min) diopters.
        case png16
        /// One-channel float PFM holding diopters directly; NaN/inf mark invalid pixels.
        case pfm
    }

    public enum PictureSource: Sendable {
        case frames(ImageSequence, codec: BuiltInVideoCodec, rate: FrameRate)
        case video(path: String)
    }

    public var output: String
    public var pictures: PictureSource
    public var disparity: ImageSequence
    public var disparityFormat: DisparityFormat
    public var disparityRange: DisparityQuantization
    /// Per-frame detections and focus, indexed by frame; disparities the input leaves out are
    /// measured from that frame's map (median inside a rectangle, the value at a point).
    /// Frames past the end of the list get empty metadata.
    public var metadata: [FrameInput]
    public var parameters: CinematicParameters
    public var audioPath: String?
    /// Replace an existing output file (`--force`); an output that is one of the inputs is
    /// refused whatever this says.
    public var overwrite = false

    /// Every file the pack reads.
    public var inputPaths: [String] {
        var paths = disparity.paths
        switch pictures {
        case .frames(let sequence, _, _): paths += sequence.paths
        case .video(let path): paths.append(path)
        }
        if let audioPath { paths.append(audioPath) }
        return paths
    }

    /// Where the movie goes and the rules it obeys (`OutputTarget`).
    public var outputTarget: OutputTarget { OutputTarget(path: output, inputs: inputPaths, overwrite: overwrite) }

    public init(
        output: String, pictures: PictureSource, disparity: ImageSequence, disparityFormat: DisparityFormat,
        disparityRange: DisparityQuantization, metadata: [FrameInput] = [], parameters: CinematicParameters = .init(),
        audioPath: String? = nil
    ) {
        self.output = output
        self.pictures = pictures
        self.disparity = disparity
        self.disparityFormat = disparityFormat
        self.disparityRange = disparityRange
        self.metadata = metadata
        self.parameters = parameters
        self.audioPath = audioPath
    }
}

public enum Packer {
    /// Packs the movie. `progress(done, total)` is called after every frame.
    @discardableResult
    public static func pack(
        _ request: PackRequest, progress: (Int, Int) -> Void = { _, _ in }
    ) throws(FormatError)
        -> CinematicWriteSummary
    {
        // Refused before any work: an output that is an input, or exists without `overwrite`.
        do { try request.outputTarget.validate() } catch { throw .output(error) }
        let frameCount: Int
        let video: CinematicWriterConfiguration.Video
        var firstImage: PixelImage?
        switch request.pictures {
        case .frames(let sequence, let codec, let rate):
            frameCount = sequence.paths.count
            let first = try loadPicture(sequence.paths[0])
            firstImage = first.image
            video = .encoded(codec, width: first.image.width, height: first.image.height, rate: rate)
        case .video(let path):
            let carried = try carriedTrack(path, kind: .video, role: "--video")
            frameCount = carried.track.samples.count
            video = .carried(carried)
        }
        guard request.disparity.paths.count == frameCount else {
            throw FormatError(
                "\(frameCount) video frames but \(request.disparity.paths.count) disparity maps (\(request.disparity.pattern)); every frame needs one"
            )
        }
        if request.metadata.count > frameCount {
            throw FormatError(
                "detections name frame \(request.metadata.count - 1), but the clip has \(frameCount) frames (0…\(frameCount - 1))")
        }
        let firstMap = try loadDisparity(request.disparity.paths[0], request)
        let audio = try request.audioPath.map { (path) throws(FormatError) in try carriedTrack(path, kind: .audio, role: "--audio") }
        var configuration = CinematicWriterConfiguration(
            video: video, disparity: (firstMap.width, firstMap.height, request.disparityRange), writesMetadata: true,
            parameters: request.parameters, audio: audio)
        configuration.compressionLevel = 6
        let writer = try CinematicWriter(target: request.outputTarget, configuration: configuration)
        // Frames are read and checked (full PNG decode, disparity range) in parallel batches and
        // written in order, so memory stays a few frames whatever the clip length.
        let batch = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
        let firstFrame = firstImage
        do throws(FormatError) {
            var start = 0
            while start < frameCount {
                let count = min(batch, frameCount - start)
                let loaded = LoadedBatch(count: count)
                let base = start
                DispatchQueue.concurrentPerform(iterations: count) { i in
                    loaded.set(i, Result { () throws(FormatError) in try loadFrame(base + i, request, first: firstFrame) })
                }
                for i in 0..<count {
                    let index = base + i
                    let (picture, map) = try loaded.get(i)
                    guard map.width == firstMap.width, map.height == firstMap.height else {
                        throw FormatError(
                            "\(request.disparity.paths[index]): \(map.width)×\(map.height), but frame 0's map is \(firstMap.width)×\(firstMap.height)"
                        )
                    }
                    let input = index < request.metadata.count ? request.metadata[index] : FrameInput()
                    let frame = input.resolved(
                        measureRect: { map.median(in: $0) },
                        measurePoint: { x, y in
                            let v = map.value(atNormalizedX: x, y: y); return v.isNaN ? nil : v
                        })
                    try writer.append(picture: picture, disparity: map, metadata: frame)
                    progress(index + 1, frameCount)
                }
                start += count
            }
            return try writer.finish()
        } catch {
            writer.cancel()
            throw error
        }
    }

    /// Reads and checks frame `index`: its picture (decoded, same size as frame 0) and its
    /// disparity map (inside the declared range). Errors name the file.
    static func loadFrame(
        _ index: Int, _ request: PackRequest, first: PixelImage?
    ) throws(FormatError)
        -> (CinematicWriter.PictureInput?, DisparityMap)
    {
        var picture: CinematicWriter.PictureInput?
        if case .frames(let sequence, let codec, _) = request.pictures, let first {
            let path = sequence.paths[index]
            let loaded = try loadPicture(path)
            guard loaded.image.width == first.width, loaded.image.height == first.height else {
                throw FormatError("\(path): \(loaded.image.width)×\(loaded.image.height), but frame 0 is \(first.width)×\(first.height)")
            }
            // spec/format.md §4: a video sample is an RGB or RGBA PNG. A truecolour file is stored as
            // it is; a palette file (decoded to RGB/RGBA) is re-encoded, pixel for pixel; grey is refused.
            guard loaded.image.layout == .rgb || loaded.image.layout == .rgba else {
                throw FormatError("\(path): \(loaded.image.bitDepth)-bit \(loaded.image.layout) PNG; frames must be RGB or RGBA")
            }
            let truecolour = (try? PNGDecoder.header(of: loaded.bytes)).map { $0.colorType == .rgb || $0.colorType == .rgba } ?? false
            switch codec {
            case .png:
                picture = truecolour ? .png(loaded.bytes, width: loaded.image.width, height: loaded.image.height) : .image(loaded.image)
            case .raw:
                do { picture = .image(try rgb8(loaded.image)) } catch { throw FormatError("\(path): \(error.message)") }
            }
        }
        let path = request.disparity.paths[index]
        let map = try loadDisparity(path, request)
        do { _ = try map.codes(request.disparityRange) } catch { throw FormatError("\(path): \(error.message)") }
        return (picture, map)
    }

    static func loadPicture(_ path: String) throws(FormatError) -> (bytes: [UInt8], image: PixelImage) {
        let bytes = try readFile(path)
        do {
            let image = try PNGDecoder.decode(bytes)
            return (bytes, image)
        } catch {
            throw FormatError("\(path): \(error)")
        }
    }

    /// 8-bit RGB for the `raw ` codec.
    static func rgb8(_ image: PixelImage) throws(FormatError) -> PixelImage {
        guard image.layout == .rgb else { throw FormatError("raw video needs RGB frames, not \(image.layout)") }
        if image.bitDepth == 8 { return image }
        do { return try image.converted(toBitDepth: 8) } catch { throw FormatError("\(error)") }
    }

    static func loadDisparity(_ path: String, _ request: PackRequest) throws(FormatError) -> DisparityMap {
        let bytes = try readFile(path)
        switch request.disparityFormat {
        case .pfm:
            return try PFM.read(bytes, name: path)
        case .png16:
            let image: PixelImage
            do { image = try PNGDecoder.decode(bytes) } catch { throw FormatError("\(path): \(error)") }
            guard image.layout == .gray, let codes = image.samples16 else {
                throw FormatError(
                    "\(path): a png16 disparity map must be a 16-bit greyscale PNG (this one is \(image.bitDepth)-bit \(image.layout))")
            }
            let q = request.disparityRange
            let span = q.maximum - q.minimum
            return DisparityMap(width: image.width, height: image.height, values: codes.map { q.minimum + Float($0) / 65535 * span })
        }
    }

    static func readFile(_ path: String) throws(FormatError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FormatError("\(path): cannot read the file")
        }
        return Array(data)
    }

    static func carriedTrack(_ path: String, kind: TrackKind, role: String) throws(FormatError) -> CarriedTrack {
        do {
            let source = try FileByteSource(path: path)
            let movie = try Movie.read(source: source)
            guard
                let track = movie.tracks.first(where: { $0.kind == kind && $0.isEnabled }) ?? movie.tracks.first(where: { $0.kind == kind })
            else {
                throw FormatError("\(role) \(path): the file has no \(kind.rawValue) track")
            }
            return CarriedTrack(movie: movie, track: track, source: source)
        } catch {
            throw .from(error, file: path)
        }
    }
}

/// Results of a parallel batch of frame loads, filled from worker threads.
final class LoadedBatch: @unchecked Sendable {
    private var slots: [Result<(CinematicWriter.PictureInput?, DisparityMap), FormatError>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Result<(CinematicWriter.PictureInput?, DisparityMap), FormatError>) {
        lock.lock()
        slots[i] = value
        lock.unlock()
    }
    func get(_ i: Int) throws(FormatError) -> (CinematicWriter.PictureInput?, DisparityMap) {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = slots[i] else { throw FormatError("internal: frame slot \(i) empty") }
        return try slot.get()
    }
}
