import CinepackContainer

/// The boxes around a track's sample table: `trak`, `tkhd`, `edts`, `mdia`, `minf`, `dinf`.
enum TrackBoxes {
    struct Description {
        var id: UInt32
        var handler: FourCC
        var handlerName: String
        var enabled: Bool
        var mediaTimescale: UInt32
        var mediaDuration: Int64
        var movieTimescale: UInt32
        var width: Double = 0
        var height: Double = 0
        var volume: Double = 0
        var references: [(FourCC, [UInt32])] = []
        /// Edit list in the movie timescale; nil for none.
        var editList: [EditListBox.Entry]?
        var stbl: [UInt8]
    }

    static func trak(_ d: Description) -> [UInt8] {
        let movieDuration = rescale(d.mediaDuration, from: d.mediaTimescale, to: d.movieTimescale)
        let presented = d.editList.map { $0.reduce(UInt64(0)) { $0 + $1.segmentDuration } } ?? UInt64(movieDuration)
        var w = ByteWriter()
        w.box("trak") { w in
            var tkhd = TrackHeaderBox(
                trackID: d.id, duration: presented, width: d.width, height: d.height,
                flags: (d.enabled ? TrackHeaderBox.enabledFlag : 0) | TrackHeaderBox.inMovieFlag)
            tkhd.volume = d.volume
            w.bytes(tkhd.serialized())
            if let edits = d.editList {
                w.box("edts") { $0.bytes(EditListBox(entries: edits).serialized()) }
            }
            if !d.references.isEmpty {
                w.box("tref") { w in
                    for (type, ids) in d.references { TrackReferenceTypeBox(trackIDs: ids).write(type: type, to: &w) }
                }
            }
            w.box("mdia") { w in
                w.bytes(MediaHeaderBox(timescale: d.mediaTimescale, duration: UInt64(max(0, d.mediaDuration))).serialized())
                w.bytes(HandlerBox(handlerType: d.handler, name: d.handlerName, componentType: "mhlr").serialized())
                w.box("minf") { w in
                    switch d.handler {
                    case "vide":
                        w.box("vmhd") {
                            $0.fullBoxHeader(version: 0, flags: 1); $0.zeros(8)
                        }
                    case "soun":
                        w.box("smhd") {
                            $0.fullBoxHeader(version: 0, flags: 0); $0.zeros(4)
                        }
                    default:
                        w.box("nmhd") { $0.fullBoxHeader(version: 0, flags: 0) }
                    }
                    w.box("dinf") { w in
                        w.box("dref") { w in
                            w.fullBoxHeader(version: 0, flags: 0)
                            w.u32(1)
                            w.box("url ") { $0.fullBoxHeader(version: 0, flags: 1) }  // self-contained
                        }
                    }
                    w.bytes(d.stbl)
                }
            }
        }
        return w.bytes
    }

    /// `value` ticks of one timescale in another, rounded to nearest, saturating.
    static func rescale(_ value: Int64, from: UInt32, to: UInt32) -> Int64 {
        guard from > 0 else { return 0 }
        let (product, overflow) = value.multipliedReportingOverflow(by: Int64(to))
        if overflow { return Int64((Double(value) * Double(to) / Double(from)).rounded()) }
        return (product + Int64(from) / 2) / Int64(from)
    }
}
