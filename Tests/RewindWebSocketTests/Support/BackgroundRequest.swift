import Foundation

/// An ``HTTPExchange`` on a thread of its own, so the test can act while the answer is pending.
final class BackgroundRequest: Sendable {
    struct State: Sendable {
        var response: HTTPExchange?
        var failure: String?
        var isDone: Bool { response != nil || failure != nil }
    }

    let state = Recorder(State())

    init(_ target: String, method: String = "GET", port: Int) {
        let thread = Thread { [state] in
            do {
                let response = try HTTPExchange.request(target, method: method, port: port)
                state.update { $0.response = response }
            } catch {
                state.update { $0.failure = "\(error)" }
            }
        }
        thread.name = "test-http-request"
        thread.start()
    }
}
