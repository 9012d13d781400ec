import Cinepack
import Foundation
import TestSupport
import Testing

/// The lens look as an edit (spec/edl.md §4, spec/render.md §5): stored in `<aperture>`, valid
/// against spec/edl.rng, undoable, and a re-render from the stored EDL reproduces the look.
@Suite struct LensLookDocumentTests {
    static let look = ApertureLook(blades: 6, bladeRotation: 15, bladeCurvature: 0.2, highlightThreshold: 0.9, highlightGain: 4)

    @Test func theLookIsStoredValidatedAndReproducedByARerender() async throws {
        let clip = try CinematicDocumentTests.clip()
        var doc = try CinematicDocument(path: clip.path)
        try doc.setAperture(1.4)
        let round = try await doc.renderFrame(at: try CinematicDocumentTests.t("1s")).image
        #expect(try doc.setLens(Self.look) == Self.look)
        // Values not given are kept; --reset semantics start from the default.
        #expect(try doc.setLens(ApertureLook(anamorphic: 1.5)).blades == 6)
        try doc.undo()
        #expect(doc.edl.look == Self.look && doc.undoSteps.last == "lens look")
        let shaped = try await doc.renderFrame(at: try CinematicDocumentTests.t("1s")).image
        #expect(shaped != round)
        try doc.save()

        let reopened = try CinematicDocument(path: clip.path)
        #expect(reopened.edl.look == Self.look)
        let xml = String(decoding: reopened.edl.xmlData(), as: UTF8.self)
        #expect(
            xml.contains(
                #"<aperture f-number="1.4" blades="6" blade-rotation="15.0" blade-curvature="0.2" highlight-threshold="0.9" highlight-gain="4.0"/>"#
            ), "\(xml)")
        try CinematicDocumentTests.expectValidAgainstSchema(reopened.edl, in: clip.dir, name: "look.xml")
        // The re-render from the stored EDL is the render with the look given as options.
        let again = try await reopened.renderFrame(at: try CinematicDocumentTests.t("1s")).image
        #expect(again == shaped)
        var plain = reopened.edl
        plain.look = ApertureLook()
        let movie = try CinematicMovie.open(path: clip.path)
        let plan = try RenderPlan(movie: movie, edl: plain, options: .init(look: Self.look))
        let n = Int(try movie.frame(at: try CinematicDocumentTests.t("1s")).frame)
        #expect(try plan.render(picture: try movie.picture(n), sourceFrame: n, renderer: BokehRenderer(quality: .export)) == shaped)
    }

    @Test func anOutOfRangeValueIsRefusedAndNothingChanges() throws {
        let clip = try CinematicDocumentTests.clip()
        let before = try Data(contentsOf: URL(fileURLWithPath: clip.path))
        var doc = try CinematicDocument(path: clip.path)
        do {
            try doc.setLens(ApertureLook(blades: 2))
            Issue.record("accepted")
        } catch {
            #expect("\(error)" == "lens look: blades must be 0 (a circle) or 3…16 (got 2)")
        }
        #expect(throws: DocumentError.self) { try doc.setLens(ApertureLook(anamorphic: 9)) }
        #expect(doc.edl.look.isEmpty && doc.undoSteps.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: clip.path)) == before)
        // A kernel path round-trips, escaped.
        var withKernel = EditDecisionList()
        withKernel.look = ApertureLook(anamorphic: 2, kernel: "/lenses/a \"b\" & <c>.png")
        #expect(try EditDecisionList.parse(withKernel.xmlData(), source: "k.xml") == withKernel)
        // An EDL carrying such a value is refused on reading, naming the attribute.
        var edl = EditDecisionList()
        edl.look.highlightGain = 0.5
        #expect(throws: EDLError.self) { try edl.validate() }
        let text = #"<edl xmlns="urn:cinepack:edl:1" version="1"><aperture anamorphic="7"/></edl>"#
        do {
            _ = try EditDecisionList.parse(Array(text.utf8), source: "x.xml")
            Issue.record("accepted")
        } catch { #expect("\(error)".contains("anamorphic must be 0.25…4")) }
    }
}

/// The cat's eye (spec/render.md §5) as a lens-look value: stored as `cat-eye` in `<aperture>`,
/// valid against spec/edl.rng, kept by a round trip, refused out of 0…1.
@Suite struct CatEyeDocumentTests {
    @Test func theCatEyeIsStoredRoundTripsAndIsChecked() throws {
        let clip = try CinematicDocumentTests.clip()
        var doc = try CinematicDocument(path: clip.path)
        #expect(try doc.setLens(ApertureLook(blades: 6)) == ApertureLook(blades: 6))
        #expect(try doc.setLens(ApertureLook(catEye: 0.6)) == ApertureLook(blades: 6, catEye: 0.6))
        try doc.save()
        let reopened = try CinematicDocument(path: clip.path)
        #expect(reopened.edl.look == ApertureLook(blades: 6, catEye: 0.6))
        let xml = String(decoding: reopened.edl.xmlData(), as: UTF8.self)
        #expect(xml.contains(#"<aperture blades="6" cat-eye="0.6"/>"#), "\(xml)")
        try CinematicDocumentTests.expectValidAgainstSchema(reopened.edl, in: clip.dir, name: "cat.xml")
        // Every value of the range round-trips exactly through the XML.
        for amount: Float in [0, 0.05, 1.0 / 3, 1] {
            var edl = EditDecisionList()
            edl.look = ApertureLook(anamorphic: 1.5, catEye: amount)
            #expect(try EditDecisionList.parse(edl.xmlData(), source: "c.xml") == edl)
        }
        // Out of range: refused by the document (nothing changes) and by the reader, naming it.
        let before = reopened.edl
        var again = reopened
        do {
            try again.setLens(ApertureLook(catEye: 1.5))
            Issue.record("accepted")
        } catch { #expect("\(error)" == "lens look: cat-eye must be 0…1 (got 1.5)") }
        #expect(again.edl == before)
        let text = #"<edl xmlns="urn:cinepack:edl:1" version="1"><aperture cat-eye="-0.5"/></edl>"#
        do {
            _ = try EditDecisionList.parse(Array(text.utf8), source: "x.xml")
            Issue.record("accepted")
        } catch { #expect("\(error)".contains("cat-eye must be 0…1")) }
    }
}
