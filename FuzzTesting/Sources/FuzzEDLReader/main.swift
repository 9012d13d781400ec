import CinepackEDL

/// libFuzzer entry: any bytes through the hardened XML reader, the RELAX NG validation and the
/// EDL rules. Anything but a result or an `EDLError` is a bug; an accepted EDL must write back
/// to XML that reads again to an equal list.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEDLReader(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let edl = try? EditDecisionList.parse(bytes, source: "fuzz") else { return 0 }
    let again = try? EditDecisionList.parse(edl.xmlData(), source: "fuzz rewrite")
    precondition(again == edl, "an accepted EDL must round-trip")
    return 0
}
