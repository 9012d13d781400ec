import CinepackContainer
import CinepackTime
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

    public init(output: String, pictures: PictureSource, disparity: ImageSequence, disparityFormat: DisparityFormat,
                disparityRange: DisparityQuantization, metadata: [FrameInput] = [], parameters: CinematicParameters = .init(),
                audioPath: String? = nil) {
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
    public static func pack(_ request: PackRequest, progress: (Int, Int) -> Void = { _, _ in }) throws(FormatError)
        -> CinematicWriteSummary
    {
        let frameCount: Int
        let video: CinematicWriterConfiguration.Video
        var firstPicture: (bytes: [UInt8], image: PixelImage)?
        switch request.pictures {
        case .frames(let sequence, let codec, let rate):
            frameCount = sequence.paths.count
            let first = try loadPicture(sequence.paths[0])
            firstPicture = first
            video = .encoded(codec, width: first.image.width, height: first.image.height, rate: rate)
        case .video(let path):
            let carried = try carriedTrack(path, kind: .video, role: "--video")
            frameCount = carried.track.samples.count
            video = .carried(carried)
        }
        guard request.disparity.paths.count == frameCount else {
            throw FormatError("\(frameCount) video frames but \(request.disparity.paths.count) disparity maps (\(request.disparity.pattern)); every frame needs one")
        }
        if request.metadata.count > frameCount {
            throw FormatError("detections name frame \(request.metadata.count - 1), but the clip has \(frameCount) frames (0…\(frameCount - 1))")
        }
        let firstMap = try loadDisparity(request.disparity.paths[0], request)
        let audio = try request.audioPath.map { (path) throws(FormatError) in try carriedTrack(path, kind: .audio, role: "--audio") }
        var configuration = CinematicWriterConfiguration(
            video: video, disparity: (firstMap.width, firstMap.height, request.disparityRange), writesMetadata: true,
            parameters: request.parameters, audio: audio)
        configuration.compressionLevel = 6
        let writer = try CinematicWriter(path: request.output, configuration: configuration)
        do throws(FormatError) {
            for index in 0..<frameCount {
                var picture: CinematicWriter.PictureInput?
                if case .frames(let sequence, let codec, _) = request.pictures {
                    let loaded = index == 0 ? firstPicture! : try loadPicture(sequence.paths[index])
                    guard loaded.image.width == firstPicture!.image.width, loaded.image.height == firstPicture!.image.height else {
                        throw FormatError("\(sequence.paths[index]): \(loaded.image.width)×\(loaded.image.height), but frame 0 is \(firstPicture!.image.width)×\(firstPicture!.image.height)")
                    }
                    picture = codec == .png
                        ? .png(loaded.bytes, width: loaded.image.width, height: loaded.image.height) : .image(try rgb8(loaded.image))
                }
                let map = index == 0 ? firstMap : try loadDisparity(request.disparity.paths[index], request)
                guard map.width == firstMap.width, map.height == firstMap.height else {
                    throw FormatError("\(request.disparity.paths[index]): \(map.width)×\(map.height), but frame 0's map is \(firstMap.width)×\(firstMap.height)")
                }
                let input = index < request.metadata.count ? request.metadata[index] : FrameInput()
                let frame = input.resolved(measureRect: { map.median(in: $0) },
                                           measurePoint: { x, y in let v = map.value(atNormalizedX: x, y: y); return v.isNaN ? nil : v })
                do {
                    try writer.append(picture: picture, disparity: map, metadata: frame)
                } catch {
                    throw FormatError("\(request.disparity.paths[index]): \(error.message)")
                }
                progress(index + 1, frameCount)
            }
            return try writer.finish()
        } catch {
            writer.cancel()
            throw error
        }
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
                throw FormatError("\(path): a png16 disparity map must be a 16-bit greyscale PNG (this one is \(image.bitDepth)-bit \(image.layout))")
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
            guard let track = movie.tracks.first(where: { $0.kind == kind && $0.isEnabled }) ?? movie.tracks.first(where: { $0.kind == kind })
            else {
                throw FormatError("\(role) \(path): the file has no \(kind.rawValue) track")
            }
            return CarriedTrack(movie: movie, track: track, source: source)
        } catch let error as ContainerError {
            throw .container(error, file: path)
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError("\(error)")
        }
    }
}
