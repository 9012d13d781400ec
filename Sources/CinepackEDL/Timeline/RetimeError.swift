/// Why a retiming edit was refused. The message says what, where (the EDL's parts are counted from 1,
/// as in spec/edl.md §11) and which clause of spec/retime.md.
public struct RetimeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
