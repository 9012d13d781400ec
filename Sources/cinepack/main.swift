import ArgumentParser
import Cinepack

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `cinepack`: every subcommand is a few calls into the libraries.
struct CinepackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cinepack",
        abstract: "Open toolkit for cinematic video: inspect, pack, refocus and render video with depth.",
        discussion: """
            Files are QuickTime/ISO-BMFF movies (.mov, .mp4). Times accept 12.3s, 1:02.5, 00:00:12:09 (timecode) \
            and 369f (frame number); a time is snapped to the nearest frame and the snapped time is reported.
            """,
        version: CinepackVersion.string,
        subcommands: [
            InspectCommand.self, PackCommand.self, DemoCommand.self, ExtractCommand.self, EDLCommand.self, ExportTimelineCommand.self,
            ApertureCommand.self, LensCommand.self, UndoCommand.self, DecisionsCommand.self, FocusCommand.self, UnfocusCommand.self,
            PlotCommand.self,
            RefocusCommand.self, RetimeCommand.self, TrimCommand.self, SpeedCommand.self, RenderCommand.self, RedoCommand.self,
            ConcatCommand.self,
            BenchCommand.self,
        ]
    )
}

// A dead ffmpeg must surface as EPIPE on the frame pipe (and a clear message), not kill us silently.
signal(SIGPIPE, SIG_IGN)

// An option the command does not have is named (with the nearest one it has) before parsing, for
// every subcommand alike.
if let message = UnknownOption.message(for: Array(CommandLine.arguments.dropFirst()), root: CinepackCommand.self) {
    CLIErrors.note("Error: \(message)")
    CinepackCommand.exit(withError: ExitCode.validationFailure)
}

do {
    var command = try CinepackCommand.parseAsRoot()
    try command.run()
} catch let error as EDLCommandError where error.isChangedByAnotherWriter || error.isBusy {
    // Distinct exit codes, so scripts know running again is the remedy (README, exit codes).
    CLIErrors.note("Error: \(error)")
    CinepackCommand.exit(withError: ExitCode(error.isBusy ? ExitCodes.busy : ExitCodes.changedByAnotherWriter))
} catch {
    CinepackCommand.exit(withError: CLIWording.worded(error))
}
