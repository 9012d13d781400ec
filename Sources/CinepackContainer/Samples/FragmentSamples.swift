/// Samples of fragmented files (ISO/IEC 14496-12 §8.8): the `trun` boxes of every `moof`, with
/// defaults from `tfhd` and `trex`, in file order.
extension SampleIndex {
    package static func build(
        fragments moofs: [Box], trackID: UInt32, defaults trex: TrackExtendsBox?, fileSize: Int64,
        startingAfter initial: SampleIndex, warn: (ContainerError) -> Void
    ) throws(ContainerError)
        -> SampleIndex
    {
        var samples: [SampleInfo] = []
        initial.forEach { samples.append($0) }
        var nextDecodeTime = initial.totalDuration
        var totalBytes = initial.totalBytes
        for moof in moofs {
            for traf in moof.children("traf") {
                guard let tfhd = traf.child("tfhd")?.content(as: TrackFragmentHeaderBox.self), tfhd.trackID == trackID else { continue }
                if let tfdt = traf.child("tfdt")?.content(as: TrackFragmentDecodeTimeBox.self) {
                    guard tfdt.baseMediaDecodeTime <= UInt64(Int64.max / 2) else {
                        throw ContainerError.malformed(
                            "tfdt base time \(tfdt.baseMediaDecodeTime) is out of range", path: traf.path,
                            clause: "ISO/IEC 14496-12 §8.8.12")
                    }
                    nextDecodeTime = Int64(tfdt.baseMediaDecodeTime)
                }
                // §8.8.7: the base is the explicit offset, else the moof (default-base-is-moof, or the
                // first traf), else the end of the previous fragment's data.
                let base = tfhd.baseDataOffset ?? UInt64(moof.header.offset)
                guard base <= UInt64(Int64.max / 4) else {
                    throw ContainerError.malformed(
                        "tfhd base_data_offset \(base) is beyond any file", path: traf.path,
                        clause: Clause.trackFragment)
                }
                var dataCursor = Int64(base)
                for trun in traf.children("trun") {
                    guard let run = trun.content(as: TrackRunBox.self) else { continue }
                    if let d = run.dataOffset {
                        dataCursor = Int64(base) + Int64(d)
                    }
                    for (i, s) in run.samples.enumerated() {
                        let duration = Int64(s.duration ?? tfhd.defaultSampleDuration ?? trex?.defaultSampleDuration ?? 0)
                        let size = s.size ?? tfhd.defaultSampleSize ?? trex?.defaultSampleSize ?? 0
                        let flags =
                            i == 0
                            ? (run.firstSampleFlags ?? s.flags ?? tfhd.defaultSampleFlags ?? trex?.defaultSampleFlags ?? 0)
                            : (s.flags ?? tfhd.defaultSampleFlags ?? trex?.defaultSampleFlags ?? 0)
                        // sample_is_non_sync_sample is bit 16 of the sample flags.
                        let sync = flags & 0x1_0000 == 0
                        let (end, overflow) = nextDecodeTime.addingReportingOverflow(duration)
                        guard !overflow else {
                            throw ContainerError.malformed("fragment durations overflow", path: trun.path, clause: Clause.trackRun)
                        }
                        samples.append(
                            SampleInfo(
                                index: samples.count, decodeTime: nextDecodeTime,
                                compositionTime: nextDecodeTime &+ (s.compositionOffset ?? 0), duration: duration,
                                size: size, offset: dataCursor, isSync: sync,
                                descriptionIndex: tfhd.sampleDescriptionIndex ?? trex?.defaultSampleDescriptionIndex ?? 1))
                        if dataCursor < 0 || dataCursor > fileSize - Int64(size) {
                            warn(
                                .malformed(
                                    "fragment sample \(samples.count) at byte \(dataCursor) runs past the end of the file",
                                    path: trun.path, clause: Clause.trackRun))
                        }
                        nextDecodeTime = end
                        dataCursor &+= Int64(size)
                        totalBytes += Int64(size)
                    }
                }
            }
        }
        var index = SampleIndex()
        index.explicit = samples
        index.count = samples.count
        index.totalDuration = nextDecodeTime
        index.totalBytes = totalBytes
        return index
    }
}
