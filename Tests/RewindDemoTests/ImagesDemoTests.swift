import Rewind
import Testing
@testable import RewindDemo
import RewindTestSupport

@MainActor
@Suite(.ownThreads) struct ImagesDemoTests {
    func makeIntent(failures: FakeNetwork.Failures) -> ImagesIntent {
        ImagesIntent(network: FakeNetwork(seed: 11, latencyMs: 0...0, failures: failures), user: DemoRandom(seed: 11))
    }

    @Test("appear loads then shows an image") func appearLoadsThenShowsAnImage() async throws {
        let intent = makeIntent(failures: .none)
        intent.onAppear()
        // The reducer has run, the request has not answered yet.
        #expect(intent.model.phase == .loading)
        #expect(intent.model.isLoading)
        #expect(intent.model.image == nil)
        await intent.store.settle()
        #expect(intent.model.phase == .showing)
        #expect(!intent.model.isLoading)
        let image = try #require(intent.model.image)
        #expect(image.url.hasSuffix(image.id + ".jpg"))
        #expect(!image.tags.isEmpty)
        #expect(intent.model.history.map(\.id) == [image.id])
    }

    @Test("leaving the screen cancels the load") func leavingTheScreenCancelsTheLoad() async throws {
        let intent = ImagesIntent(network: FakeNetwork(seed: 11, latencyMs: 50...50, failures: .none), user: DemoRandom(seed: 11))
        let load = intent.send(.appear)
        #expect(intent.model.phase == .loading)
        intent.onDisappear()
        #expect(load.isCancelled)
        #expect(intent.model.phase == .idle)
        await intent.store.settle()
        // The answer never lands: the screen stays idle, with no picture.
        #expect(intent.model.phase == .idle)
        #expect(intent.model.image == nil)
        // Coming back loads again.
        await intent.send(.appear).finish()
        #expect(intent.model.phase == .showing)
    }

    @Test("a failed load shows the error and a tap shows the alert") func aFailedLoadShowsTheErrorAndATapShowsTheAlert() async {
        let intent = makeIntent(failures: .requests([1]))
        intent.onAppear()
        await intent.store.settle()
        #expect(intent.model.phase == .failed)
        #expect(intent.model.image == nil)
        #expect(FakeNetwork.errors.contains(intent.model.error ?? ""))
        intent.onTapImage()
        #expect(intent.model.route == ImagesRoute(screen: .alert, title: "Error", message: "Failed to open the screen", imageID: nil))
        intent.onDismissRoute()
        // The second request succeeds: the retry shows a picture and clears the error.
        intent.onAppear()
        await intent.store.settle()
        #expect(intent.model.phase == .showing)
        #expect(intent.model.error == nil)
        intent.onTapImage()
        #expect(intent.model.route?.screen == .description)
        #expect(intent.model.route?.imageID == intent.model.image?.id)
    }

    @Test("an answer to an older request is ignored") func anAnswerToAnOlderRequestIsIgnored() async {
        let intent = makeIntent(failures: .none)
        intent.onAppear()
        var random = DemoRandom(seed: 9)
        let stale = ImageInfo.make(&random)
        // Request 1 is the one in flight; an answer to request 0 must not replace the spinner.
        intent.store.send(.loadSucceeded(request: 0, image: stale))
        #expect(intent.model.image == nil)
        #expect(intent.model.phase == .loading)
        await intent.store.settle()
        #expect(intent.model.image != nil)
        #expect(intent.model.image != stale)
    }
}
