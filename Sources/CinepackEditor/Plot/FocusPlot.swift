import CinepackEDL
import CinepackFormat
import CinepackTime

/// The focus script as an SVG chart: time across, disparity up (near at the top). Each subject's
/// disparity is a thin line, the focus disparity a thick one, racks are shaded, decisions are
/// marked (filled = strong, hollow = weak; squares = user, circles = captured).
package enum FocusPlot {
    package static func svg(script: FocusScript, capture: CaptureTimeline, title: String, width: Int = 1200, height: Int = 480) -> String {
        let left = 60.0, right = 170.0, top = 40.0, bottom = 50.0
        let w = Double(width) - left - right, h = Double(height) - top - bottom
        let frames = script.frames
        let duration = max(capture.seconds(ofFrame: max(0, capture.frameCount - 1)), 1e-9)
        var values: [Float] = frames.map(\.focusDisparity).filter(\.isFinite)
        var subjects: [UInt32: [(Double, Float)]] = [:]
        for (n, meta) in capture.frames.enumerated() {
            for d in meta.detections where d.disparity.isFinite {
                subjects[d.id, default: []].append((capture.seconds(ofFrame: n), d.disparity))
                values.append(d.disparity)
            }
        }
        let maxD = Double(max(values.max() ?? 1, 0.1)) * 1.05
        func x(_ t: Double) -> Double { left + t / duration * w }
        func y(_ d: Float) -> Double { top + h - Double(d) / maxD * h }
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="24" font-size="15">\(escape(title))</text>

            """
        // Racks, shaded.
        for d in script.decisions where d.isEffective {
            guard let t = d.transition, t.duration > 0 else { continue }
            out +=
                ##"<rect x="\##(f(x(t.start)))" y="\##(f(top))" width="\##(f(max(0.5, x(t.start + t.duration) - x(t.start))))" height="\##(f(h))" fill="#f3d9a4" opacity="0.6"/>"##
                + "\n"
        }
        // Axes and grid.
        out += ##"<line x1="\##(f(left))" y1="\##(f(top + h))" x2="\##(f(left + w))" y2="\##(f(top + h))" stroke="black"/>"## + "\n"
        out += ##"<line x1="\##(f(left))" y1="\##(f(top))" x2="\##(f(left))" y2="\##(f(top + h))" stroke="black"/>"## + "\n"
        let step = niceStep(duration / 8)
        var tick = 0.0
        while tick <= duration + 1e-9 {
            out +=
                ##"<line x1="\##(f(x(tick)))" y1="\##(f(top))" x2="\##(f(x(tick)))" y2="\##(f(top + h))" stroke="#eee"/><text x="\##(f(x(tick)))" y="\##(f(top + h + 16))" text-anchor="middle">\##(fmt(tick)) s</text>"##
                + "\n"
            tick += step
        }
        let dStep = niceStep(maxD / 5)
        var dTick = 0.0
        while dTick <= maxD + 1e-9 {
            out +=
                ##"<line x1="\##(f(left))" y1="\##(f(y(Float(dTick))))" x2="\##(f(left + w))" y2="\##(f(y(Float(dTick))))" stroke="#eee"/><text x="\##(f(left - 6))" y="\##(f(y(Float(dTick)) + 4))" text-anchor="end">\##(fmt(dTick))</text>"##
                + "\n"
            dTick += dStep
        }
        out +=
            ##"<text x="16" y="\##(f(top + h / 2))" transform="rotate(-90 16 \##(f(top + h / 2)))" text-anchor="middle">disparity (D, near ↑)</text>"##
            + "\n"
        // Subjects.
        let palette = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#ff7f0e"]
        for (i, id) in subjects.keys.sorted().enumerated() {
            let colour = palette[i % palette.count]
            out += polyline(
                subjects[id]!.map { (x($0.0), y($0.1)) }, colour: colour, width: 1, gap: 1.5 * w / Double(max(1, capture.frameCount - 1)))
            let legendY = top + 14 * Double(i)
            out +=
                ##"<line x1="\##(f(left + w + 12))" y1="\##(f(legendY))" x2="\##(f(left + w + 32))" y2="\##(f(legendY))" stroke="\##(colour)"/><text x="\##(f(left + w + 36))" y="\##(f(legendY + 4))">id \##(id)</text>"##
                + "\n"
        }
        // Focus.
        out += polyline(
            frames.filter { $0.focusDisparity.isFinite }.map { (x($0.time.seconds), y($0.focusDisparity)) }, colour: "#d62728", width: 3,
            gap: .infinity)
        let legendY = top + 14 * Double(subjects.count) + 10
        out +=
            ##"<line x1="\##(f(left + w + 12))" y1="\##(f(legendY))" x2="\##(f(left + w + 32))" y2="\##(f(legendY))" stroke="#d62728" stroke-width="3"/><text x="\##(f(left + w + 36))" y="\##(f(legendY + 4))">focus</text>"##
            + "\n"
        // Decisions.
        for d in script.decisions where d.isEffective {
            guard d.frame >= 0, d.frame < frames.count else { continue }
            let cx = x(d.time.seconds), cy = y(frames[d.frame].focusDisparity.isFinite ? frames[d.frame].focusDisparity : 0)
            let fill = d.strength == .strong ? "#000" : "white"
            if d.source == .user {
                out +=
                    ##"<rect x="\##(f(cx - 5))" y="\##(f(cy - 5))" width="10" height="10" fill="\##(fill)" stroke="black" stroke-width="1.5"><title>user: \##(escape(d.target.description)), \##(d.strength.rawValue)</title></rect>"##
                    + "\n"
            } else {
                out +=
                    ##"<circle cx="\##(f(cx))" cy="\##(f(cy))" r="5" fill="\##(fill)" stroke="black" stroke-width="1.5"><title>\##(d.source.rawValue): \##(escape(d.target.description)), \##(d.strength.rawValue)</title></circle>"##
                    + "\n"
            }
        }
        let notes = ["■ user decision", "● captured decision", "filled = strong", "shaded = rack"]
        for (i, note) in notes.enumerated() {
            out += ##"<text x="\##(f(left + w + 12))" y="\##(f(legendY + 24 + 14 * Double(i)))">\##(note)</text>"## + "\n"
        }
        return out + "</svg>\n"
    }

    /// A polyline broken where consecutive points are further apart than `gap` pixels across
    /// (a subject out of sight is not drawn across its absence).
    static func polyline(_ points: [(Double, Double)], colour: String, width: Double, gap: Double) -> String {
        var out = ""
        var run: [(Double, Double)] = []
        func flush() {
            if run.count > 1 {
                out +=
                    ##"<polyline fill="none" stroke="\##(colour)" stroke-width="\##(fmt(width))" points="\##(run.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " "))"/>"##
                    + "\n"
            }
            run = []
        }
        for p in points {
            if let last = run.last, p.0 - last.0 > gap { flush() }
            run.append(p)
        }
        flush()
        return out
    }

    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        for m in [1.0, 2, 5, 10] where magnitude * m >= raw { return magnitude * m }
        return magnitude * 10
    }

    /// `v` to `places` decimals. Any finite disparity is accepted (1e19 D, Float.greatestFiniteMagnitude):
    /// beyond what `Int` holds the number is written in exponent form, which SVG reads too.
    static func rounded(_ v: Double, places: Double) -> String {
        guard v.isFinite else { return "0" }
        let scaled = (v * places).rounded()
        guard abs(scaled) < 1e15 else { return String(v) }
        return String(Double(Int(scaled)) / places)
    }
    static func f(_ v: Double) -> String { rounded(v, places: 10) }
    static func fmt(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : rounded(v, places: 100)
    }
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;")
    }
}
