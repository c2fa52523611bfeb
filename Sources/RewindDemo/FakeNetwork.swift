/// A pretend back end: each request waits a while and then succeeds or fails, both decided by
/// the seed and the request's number, so a run is reproducible and a test can say which
/// requests fail.
///
/// ```swift
/// let network = FakeNetwork(seed: 7, failures: .requests([1]))   // the first request fails
/// switch await network.request("breweries?by_city=austin", number: 1) { … }
/// ```
public struct FakeNetwork: Sendable {
    /// Which requests fail.
    public enum Failures: Sendable, Equatable {
        /// None.
        case none
        /// Each with this probability (from the seed).
        case random(rate: Double)
        /// Those with these request numbers.
        case requests(Set<Int>)
    }

    /// What a request returned.
    public enum Outcome: Sendable, Equatable {
        /// It succeeded; the generator makes its response's contents.
        case success(DemoRandom)
        /// It failed with this message.
        case failure(String)
    }

    /// Decides latencies, failures and responses.
    public var seed: UInt64
    /// How long a request takes, in milliseconds (a fresh draw per request).
    public var latencyMs: ClosedRange<Int>
    /// Which requests fail.
    public var failures: Failures

    /// A back end; `latencyMs: 0...0` answers at once (tests).
    public init(seed: UInt64, latencyMs: ClosedRange<Int> = 120...900, failures: Failures = .random(rate: 0.15)) {
        self.seed = seed
        self.latencyMs = latencyMs
        self.failures = failures
    }

    static let errors = [
        "The request timed out.",
        "The network connection was lost.",
        "HTTP 503: service unavailable, try again later.",
        "HTTP 500: internal server error.",
        "A server with the specified hostname could not be found.",
    ]

    /// Performs request `number` to `endpoint`: waits its latency, then answers.
    public func request(_ endpoint: String, number: Int) async -> Outcome {
        var random = DemoRandom(seed: seed, salt: endpoint, number)
        let delay = random.int(in: latencyMs)
        if delay > 0 {
            try? await Task.sleep(for: .milliseconds(delay))
        }
        let fails: Bool
        switch failures {
        case .none: fails = false
        case .random(let rate): fails = random.chance(rate)
        case .requests(let numbers): fails = numbers.contains(number)
        }
        return fails ? .failure(random.pick(Self.errors)) : .success(random)
    }
}
