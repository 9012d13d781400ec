import CinepackEDL
import Testing

@Suite struct EDLModelTests {
    @Test func newListIsEmptyAtTheCurrentVersion() {
        let edl = EditDecisionList()
        #expect(edl.version == EditDecisionList.currentVersion)
        #expect(edl.decisions.isEmpty && edl.fNumber == nil && edl.media == nil)
    }
}
