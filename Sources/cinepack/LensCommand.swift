import ArgumentParser
import Cinepack
import Foundation

/// The lens-look options shared by `lens` (stored in the EDL) and `render` (overrides for one
/// render). Ranges are checked by the library (spec/edl.md §4).
struct LensLookOptions: ParsableArguments {
    @Option(help: "Aperture blades: 0 = a circle, 3…16 a polygon (spec/render.md §5).") var blades: Int?
    @Option(name: .customLong("blade-rotation"), help: "Rotation of the blade polygon, degrees clockwise (0: a corner up).")
    var bladeRotation: Float?
    @Option(name: .customLong("blade-curvature"), help: "0 = straight blades … 1 = round.") var bladeCurvature: Float?
    @Option(help: "Height : width of the bokeh, 0.25…4, its area kept (2 = a vertical oval twice as tall as wide).")
    var anamorphic: Float?
    @Option(
        name: .customLong("cat-eye"),
        help: "Optical vignetting 0…1: blur spots clipped into cat's eyes toward the frame's corners (0 = none).")
    var catEye: Float?
    @Option(
        name: .customLong("highlight-threshold"),
        help: "Linear-light level (0…1] from which clipped highlights are rebuilt before the blur.")
    var highlightThreshold: Float?
    @Option(name: .customLong("highlight-gain"), help: "Factor a highlight at full white is multiplied by, 1…100.")
    var highlightGain: Float?
    @Option(help: "A PNG whose bright part is the aperture's shape (e.g. a photographed out-of-focus point); replaces --blades.")
    var kernel: String?

    /// The look given; a kernel path made absolute, so the EDL names the image wherever it is rendered from.
    var look: ApertureLook {
        ApertureLook(
            blades: blades, bladeRotation: bladeRotation, bladeCurvature: bladeCurvature, anamorphic: anamorphic,
            highlightThreshold: highlightThreshold, highlightGain: highlightGain,
            kernel: kernel.map { URL(fileURLWithPath: $0).standardizedFileURL.path }, catEye: catEye)
    }

    func validate() throws {
        if let (attribute, message) = look.problem { throw ValidationError("--\(attribute) \(message)") }
        if let path = look.kernel {
            do { _ = try ApertureKernel.load(path: path) } catch { throw ValidationError("--kernel: \(error)") }
        }
    }
}

/// `cinepack lens FILE --blades 6 --blade-rotation 15`
struct LensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lens",
        abstract:
            "Set the lens look renders use: aperture blades, anamorphic bokeh, cat's-eye vignetting, highlight rebuild (stored in the EDL).",
        discussion: """
            Values given replace the stored ones; the others are kept (--reset starts from the round default). \
            `render` takes the same options to override them for one render. How each value shapes the blur: \
            spec/render.md §5. Undo with `cinepack undo`.
            Examples:
              cinepack lens clip.mov --blades 6 --blade-rotation 15 --blade-curvature 0.2
              cinepack lens clip.mov --anamorphic 2 --highlight-threshold 0.9 --highlight-gain 4
              cinepack lens clip.mov --cat-eye 0.6
              cinepack lens clip.mov --reset
            """)

    @OptionGroup var document: DocumentOptions
    @OptionGroup var lens: LensLookOptions
    @Flag(help: "Start from the default look (round, no highlight rebuild) instead of the stored one.") var reset = false
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func validate() throws {
        guard reset || !lens.look.isEmpty else { throw ValidationError("give at least one lens-look option, or --reset") }
    }

    func run() throws {
        let file = document.file
        var doc = try document.open()
        let look = try CLIErrors.reporting(file: file) { () throws(DocumentError) in try doc.setLens(lens.look, replacing: reset) }
        try dryRun.finish(&doc, file: file)
        func number(_ v: Float?) -> String { v.map { "\($0)" } ?? "null" }
        if output.json {
            print(
                #"{"file":\#(JSONText.quote(file)),"blades":\#(look.blades.map { "\($0)" } ?? "null"),"blade_rotation":\#(number(look.bladeRotation)),"blade_curvature":\#(number(look.bladeCurvature)),"anamorphic":\#(number(look.anamorphic)),"highlight_threshold":\#(number(look.highlightThreshold)),"highlight_gain":\#(number(look.highlightGain)),"cat_eye":\#(number(look.catEye)),"kernel":\#(look.kernel.map(JSONText.quote) ?? "null"),"dry_run":\#(dryRun.dryRun)}"#
            )
        } else {
            var parts: [String] = []
            if let b = look.blades { parts.append(b == 0 ? "round aperture" : "\(b) blades") }
            if let r = look.bladeRotation { parts.append("rotated \(r)°") }
            if let c = look.bladeCurvature { parts.append("curvature \(c)") }
            if let a = look.anamorphic { parts.append("anamorphic \(a):1") }
            if let t = look.highlightThreshold { parts.append("highlights from \(t)") }
            if let g = look.highlightGain { parts.append("highlight gain \(g)") }
            if let c = look.catEye { parts.append("cat's eye \(c)") }
            if let k = look.kernel { parts.append("kernel \(k)") }
            print("\(dryRun.dryRun ? "would set" : "set") lens look: \(parts.isEmpty ? "default (round)" : parts.joined(separator: ", "))")
        }
    }
}
