import Rewind

extension ImagesModel {
    /// The image screen's reducer: `appear` loads a picture from `network`; a tap routes to the
    /// description screen, or to an alert when there is no picture (as in the MVI+R article).
    static func reducer(network: FakeNetwork) -> Reducer<ImagesModel, ImagesAction> {
        { model, action in
            switch action {
            case .appear:
                model.appearances += 1
                model.requests += 1
                model.phase = .loading
                model.isLoading = true
                model.error = nil
                model.image = nil
                let request = model.requests
                // A new load supersedes the one in flight; leaving the screen cancels it.
                return .run { send in
                    switch await network.request("images/random", number: request) {
                    case .success(var random): await send(.loadSucceeded(request: request, image: .make(&random)))
                    case .failure(let message): await send(.loadFailed(request: request, message: message))
                    }
                }
                .cancellable(id: LoadID.image, cancelInFlight: true)
            case .disappear:
                if model.phase == .loading {
                    model.phase = .idle
                    model.isLoading = false
                }
                return .cancel(id: LoadID.image)
            case .loadSucceeded(let request, let image):
                guard request == model.requests else { return .none }   // a stale answer
                model.image = image
                model.phase = .showing
                model.isLoading = false
                model.history.insert(image, at: 0)
                if model.history.count > 40 { model.history.removeLast() }
            case .loadFailed(let request, let message):
                guard request == model.requests else { return .none }
                model.error = message
                model.phase = .failed
                model.isLoading = false
            case .tapImage:
                if let image = model.image {
                    model.route = ImagesRoute(screen: .description, title: image.title,
                                              message: "\(image.photographer.name), \(image.exif.camera)", imageID: image.id)
                } else {
                    model.route = ImagesRoute(screen: .alert, title: "Error", message: "Failed to open the screen", imageID: nil)
                }
            case .like:
                guard var image = model.image else { return .none }
                image.likes += 1
                model.image = image
                if let index = model.history.firstIndex(where: { $0.id == image.id }) { model.history[index] = image }
            case .routeDismissed:
                model.route = nil
            }
            return .none
        }
    }
}

/// The cancellation id of the image screen's loading.
enum LoadID: Hashable, Sendable { case image }

/// The image screen's intent (MVI): the view calls its methods, the model is read-only.
@MainActor
public final class ImagesIntent: ModelIntent<ImagesModel, ImagesAction>, DemoApp {
    /// This app is `images`.
    public static let kind = DemoAppKind.images
    private var user: DemoRandom
    private var patience = Patience()

    /// An intent whose loader is `network` and whose scripted user draws from `user`.
    public init(network: FakeNetwork, user: DemoRandom) {
        self.user = user
        super.init(model: ImagesModel(), reducer: ImagesModel.reducer(network: network))
    }

    /// The screen appeared: load a picture.
    public func onAppear() { send(.appear) }
    /// The picture was tapped: open its description, or an alert when there is none.
    public func onTapImage() { send(.tapImage) }
    /// The heart was tapped.
    public func onLike() { send(.like) }
    /// The alert or description screen was closed.
    public func onDismissRoute() { send(.routeDismissed) }
    /// The screen went away (the user navigated back): loading stops.
    public func onDisappear() { send(.disappear) }

    /// The scripted user's next move (see ``DemoApp/userStep()``).
    public func userStep() {
        let model = self.model
        if model.phase == .loading {
            // Tired of the spinner, the user leaves the screen; the next step comes back to it.
            if patience.runsOut() { onDisappear() }
            return
        }
        patience.reset()
        if model.route != nil {
            onDismissRoute()
            return
        }
        switch model.phase {
        case .idle:
            onAppear()
        case .loading:
            break   // handled above
        case .failed:
            // Tapping the failed screen shows the router's alert; or the user tries again.
            if user.chance(0.4) { onTapImage() } else { onAppear() }
        case .showing:
            let roll = user.int(in: 0...99)
            if roll < 35 { onTapImage() } else if roll < 65 { onLike() } else { onAppear() }
        }
    }
}
