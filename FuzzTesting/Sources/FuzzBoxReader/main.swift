import CinepackContainer

/// libFuzzer entry: any bytes through the box reader, the movie model, the sample index and the
/// inspector. Anything but a result or a `ContainerError` (a trap, a sanitizer report, a hang)
/// is a bug; save the input under corpus/fuzz-crashers/ so the tests replay it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBoxReader(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let movie = try? Movie.read(source: MemoryByteSource(bytes)) else { return 0 }
    for track in movie.tracks {
        track.samples.forEach { _ in }
        _ = track.samples.sample(at: track.samples.count / 2)
        _ = track.samples.sampleIndex(atDecodeTime: track.samples.totalDuration / 2)
    }
    var text = TextInspector()
    MovieInspection.summary(movie, fileName: "fuzz", into: &text)
    var json = JSONInspector()
    MovieInspection.boxes(movie.tree, into: &json)
    return 0
}
