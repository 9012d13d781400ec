import CinepackFormat

/// libFuzzer entry: any bytes as one focus-metadata sample (spec/format.md §6) under the writer's
/// key table. Anything but a result or a thrown error is a bug; an accepted sample must encode
/// and decode back to the same metadata.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadataDecoder(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let frame = try? FocusMetadataCodec.decode(bytes, keys: FocusMetadataKeyMap.writer, sampleIndex: 0) else { return 0 }
    let again = try? FocusMetadataCodec.decode(FocusMetadataCodec.encode(frame), keys: FocusMetadataKeyMap.writer, sampleIndex: 0)
    precondition(again != nil, "an accepted sample must survive a re-encode")
    return 0
}
