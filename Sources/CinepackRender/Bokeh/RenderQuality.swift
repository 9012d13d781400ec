/// How hard the renderer works: `preview` for interactive scrubbing, `export` for the final bake.
/// Export renders from the full-resolution picture; preview runs the same algorithm on a
/// quarter-size picture and upsamples (`PreviewRenderer`): several times faster, small blur
/// circles softer.
public enum RenderQuality: String, Sendable, CaseIterable {
    case preview, export
}
