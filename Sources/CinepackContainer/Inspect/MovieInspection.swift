/// The walkers behind `cinepack inspect`: summary, box tree, sample table. They speak only to an
/// `Inspector`, so text and JSON come from the same calls. Field names are documented in
/// `spec/inspect-json.md` and are stable.
public enum MovieInspection {
    /// `moreWarnings` are problems found above the box layer (identification, EDL slots); they are
    /// listed after the reader's own.
    public static func summary(_ movie: Movie, fileName: String, moreWarnings: [String] = [], into out: inout some Inspector) {
        out.object(key: "file", label: "file") { out in
            out.field("name", .string(fileName), label: "name", text: fileName)
            out.field("size", .int(movie.fileSize), label: "size", text: "\(movie.fileSize) bytes (\(humanBytes(movie.fileSize)))")
            if let ftyp = movie.fileType {
                out.field("major_brand", .fourCC(ftyp.majorBrand), label: "brand", text: "'\(ftyp.majorBrand)'")
                out.field("minor_version", .int(ftyp.minorVersion), label: "minor version")
                out.field(
                    "compatible_brands", .list(ftyp.compatibleBrands.map { .fourCC($0) }), label: "compatible brands",
                    text: ftyp.compatibleBrands.map { "'\($0)'" }.joined(separator: " "))
            } else {
                out.field("major_brand", .null, label: "brand", text: "none (no ftyp)")
            }
        }
        out.object(key: "movie", label: "movie") { out in
            out.field("timescale", .int(movie.timescale), label: "timescale")
            out.field(
                "duration", .int(movie.duration), label: "duration",
                text: "\(seconds(movie.durationSeconds)) (\(movie.duration)/\(movie.timescale))")
            out.field("duration_seconds", .double(movie.durationSeconds), label: "", text: nil)
            out.field("track_count", .int(movie.tracks.count), label: "tracks")
            out.field("moov_offset", .int(movie.moovInFile.header.offset), label: "moov at byte")
            out.field("moov_size", .int(movie.moovInFile.header.size), label: "moov size")
            out.field("compressed_moov", .bool(movie.isCompressed), label: "compressed moov")
            out.field("fragmented", .bool(movie.isFragmented), label: "fragmented")
            out.field("fragment_count", .int(movie.fragmentCount), label: "fragments")
        }
        out.array(key: "tracks", label: "") { out in
            for track in movie.tracks { self.track(track, movie: movie, into: &out) }
        }
        let warnings = movie.diagnostics.map(\.error.description) + moreWarnings
        out.array(key: "warnings", label: warnings.isEmpty ? "" : "warnings") { out in
            for w in warnings { out.field("warning", .string(w), label: "warning", text: w) }
        }
    }

    static func track(_ track: Track, movie: Movie, into out: inout some Inspector) {
        let codec = track.codec.map { "'\($0)'" } ?? "no sample entry"
        out.object(key: nil, label: "track \(track.id): \(track.kind.rawValue) \(codec)") { out in
            out.field("id", .int(track.id), label: "id")
            out.field("kind", .string(track.kind.rawValue), label: "kind")
            out.field(
                "handler", track.handler.map { .fourCC($0.handlerType) } ?? .null, label: "handler",
                text: track.handler.map { "'\($0.handlerType)' \"\($0.name)\"" } ?? "none")
            out.field("handler_name", .string(track.handler?.name ?? ""), label: "", text: nil)
            out.field("codec", track.codec.map { .fourCC($0) } ?? .null, label: "codec", text: codec)
            out.field("enabled", .bool(track.isEnabled), label: "enabled")
            if let v = track.visual {
                out.field("width", .int(v.width), label: "width")
                out.field("height", .int(v.height), label: "height")
            }
            if track.header.width > 0 || track.header.height > 0 {
                out.field("display_width", .double(track.header.width), label: "display width")
                out.field("display_height", .double(track.header.height), label: "display height")
            }
            if let rate = track.averageFrameRate, track.kind == .video || track.kind == .auxiliaryVideo {
                let fps = Double(rate.frames) / Double(rate.seconds)
                out.field(
                    "frame_rate", .double(fps), label: "frame rate",
                    text: "\(fixed(fps, 3)) fps (\(rate.frames)/\(rate.seconds))")
                out.field("frame_rate_exact", .string("\(rate.frames)/\(rate.seconds)"), label: "", text: nil)
            }
            if let a = track.audio {
                out.field("channels", .int(a.channelCount), label: "channels")
                out.field("sample_rate", .double(a.sampleRate), label: "sample rate", text: "\(InspectValue.format(a.sampleRate)) Hz")
                out.field("bits_per_sample", .int(a.sampleSize), label: "bits per sample")
            }
            if let layout = track.channelLayout {
                out.field("channel_layout", .string(layout.layoutName), label: "channel layout")
            }
            out.field("sample_count", .int(track.samples.count), label: "samples")
            out.field("sync_sample_count", .int(track.samples.syncSampleCount), label: "sync samples")
            out.field("timescale", .int(track.timescale), label: "timescale")
            out.field(
                "duration", .int(track.mediaDuration), label: "duration",
                text: "\(seconds(track.mediaDurationSeconds)) (\(track.mediaDuration)/\(track.timescale))")
            out.field("duration_seconds", .double(track.mediaDurationSeconds), label: "", text: nil)
            out.field("bytes", .int(track.samples.totalBytes), label: "bytes")
            out.field(
                "bitrate", track.bitrate.map { .double(($0).rounded()) } ?? .null, label: "bitrate",
                text: track.bitrate.map { humanBitrate($0) } ?? "-")
            out.field("language", .string(track.media.languageCode), label: "language")
            if let elst = track.editList {
                out.array(key: "edit_list", label: "edit list") { out in
                    for e in elst.entries {
                        let media = e.mediaTime < 0 ? "empty" : "media \(e.mediaTime)"
                        out.object(key: nil, label: "edit", oneLine: true) { out in
                            out.field("duration", .int(e.segmentDuration), label: "duration")
                            out.field("media_time", .int(e.mediaTime), label: "media_time", text: media == "empty" ? "-1 (empty)" : nil)
                            out.field("rate", .double(e.mediaRate), label: "rate")
                        }
                    }
                }
            }
            if !track.references.isEmpty {
                out.array(key: "references", label: "references") { out in
                    for r in track.references {
                        out.object(key: nil, label: "'\(r.type)'", oneLine: true) { out in
                            out.field("type", .fourCC(r.type), label: "", text: nil)
                            out.field("track_ids", .list(r.trackIDs.map { .int($0) }), label: "tracks")
                        }
                    }
                }
            }
            if !track.metadataKeys.isEmpty {
                out.array(key: "metadata_keys", label: "metadata keys") { out in
                    for k in track.metadataKeys {
                        out.object(key: nil, label: "key \(k.localID)", oneLine: true) { out in
                            out.field("local_id", .int(k.localID), label: "", text: nil)
                            out.field("namespace", .fourCC(k.namespace), label: "namespace", text: "'\(k.namespace)'")
                            out.field("key", .string(k.key), label: "key")
                            if let t = k.dataType?.wellKnownType { out.field("data_type", .int(t), label: "type") }
                        }
                    }
                }
            }
        }
    }

    /// One line per box: type, offset, size, key fields.
    public static func boxes(_ tree: BoxTree, into out: inout some Inspector) {
        out.array(key: "boxes", label: "") { out in
            for box in tree.boxes { self.box(box, into: &out) }
        }
        out.array(key: "warnings", label: tree.diagnostics.isEmpty ? "" : "warnings") { out in
            for d in tree.diagnostics { out.field("warning", .string(d.error.description), label: "warning", text: d.error.description) }
        }
    }

    static func box(_ box: Box, into out: inout some Inspector) {
        let origin = box.origin == .compressedMovie ? " (in cmov)" : ""
        out.object(key: nil, label: "\(box.type) @\(box.header.offset)\(origin) size=\(box.header.size)", oneLine: true) { out in
            out.field("type", .fourCC(box.type), label: "", text: nil)
            out.field("offset", .int(box.header.offset), label: "", text: nil)
            out.field("size", .int(box.header.size), label: "", text: nil)
            out.field("path", .string(box.path), label: "", text: nil)
            if box.origin == .compressedMovie { out.field("in_compressed_movie", .bool(true), label: "", text: nil) }
            if box.header.sizeEncoding != .compact {
                out.field("size_encoding", .string(box.header.sizeEncoding.rawValue), label: "size_encoding")
            }
            if let user = box.header.userType {
                out.field("user_type", .string(user.map { String($0, radix: 16).leftPadded(to: 2) }.joined()), label: "usertype")
            }
            if !box.isKnown { out.field("known", .bool(false), label: "known") }
            for (key, value) in box.content?.fields ?? [] { out.field(key, value, label: key) }
            if !box.children.isEmpty {
                out.array(key: "children", label: "") { out in
                    for child in box.children { self.box(child, into: &out) }
                }
            }
        }
    }

    /// The sample table of one track.
    public static func samples(_ track: Track, into out: inout some Inspector) {
        out.field("track_id", .int(track.id), label: "track")
        out.field("timescale", .int(track.timescale), label: "timescale")
        out.array(key: "samples", label: "") { out in
            track.samples.forEach { s in
                out.object(key: nil, label: "#\(s.index + 1)", oneLine: true) { out in
                    out.field("index", .int(s.index + 1), label: "", text: nil)
                    out.field("decode_time", .int(s.decodeTime), label: "dts")
                    out.field("composition_time", .int(s.compositionTime), label: "cts")
                    out.field("duration", .int(s.duration), label: "dur")
                    out.field("offset", .int(s.offset), label: "offset")
                    out.field("size", .int(s.size), label: "size")
                    out.field("sync", .bool(s.isSync), label: "sync")
                    if s.descriptionIndex != 1 { out.field("description_index", .int(s.descriptionIndex), label: "stsd") }
                }
            }
        }
    }

    static func seconds(_ s: Double) -> String { fixed(s, 3) + " s" }

    static func fixed(_ v: Double, _ digits: Int) -> String {
        // Out-of-range values (from hostile headers) are printed plainly rather than converted.
        guard v.isFinite, abs(v) < 1e15 else { return String(v) }
        let scale = Double((0..<digits).reduce(1) { acc, _ in acc * 10 })
        let rounded = (v * scale).rounded() / scale
        var text = String(Int64(rounded.rounded(.towardZero)))
        if rounded < 0, rounded > -1 { text = "-" + text }
        let frac = Int64((abs(rounded) * scale).rounded()) % Int64(scale)
        return text + "." + String(frac).leftPadded(to: digits)
    }

    static func humanBytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var v = Double(n)
        var u = 0
        while v >= 1024, u < units.count - 1 { v /= 1024; u += 1 }
        return u == 0 ? "\(n) B" : "\(fixed(v, 1)) \(units[u])"
    }

    static func humanBitrate(_ bps: Double) -> String {
        if bps >= 1_000_000 { return fixed(bps / 1_000_000, 2) + " Mb/s" }
        if bps >= 1000 { return fixed(bps / 1000, 1) + " kb/s" }
        return fixed(bps, 0) + " b/s"
    }
}
