import Foundation

/// `rewind serve`'s `/app` address, from what a developer writes in `.server(url)` or
/// `ServerSink(url:)`.
enum ServerAddress {
    /// `ws://host:port/app` for `url` (`wss://` for `wss` and `https`: TLS). `ws://host:port`
    /// gets `/app`; the address the server prints for the browser, `http://host:port/` (with
    /// `?token=` when it has one), means the same server, and its token is taken. Anything else
    /// is one sentence saying what to write.
    static func resolve(_ url: URL) -> Result<(url: URL, token: String?), Problem> {
        let text = url.absoluteString
        func problem(_ why: String) -> Result<(url: URL, token: String?), Problem> {
            .failure(Problem(message: "\(text) \(why); write ws://HOST:PORT/app, the address `rewind serve` prints for apps"))
        }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased() else { return problem("is not a URL with a scheme") }
        let secure: Bool
        switch scheme {
        case "ws", "http": secure = false
        case "wss", "https": secure = true
        default: return problem("has the scheme \(scheme), not ws or wss")
        }
        guard let host = components.host, !host.isEmpty else { return problem("names no host") }
        let token = components.queryItems?.first { $0.name == "token" }?.value.flatMap { $0.isEmpty ? nil : $0 }
        switch components.path {
        case "", "/", "/app": components.path = "/app"
        default:
            return problem("names the path \(components.path); apps connect to /app")
        }
        components.scheme = secure ? "wss" : "ws"
        components.query = nil
        components.fragment = nil
        guard let resolved = components.url else { return problem("is not a URL") }
        return .success((resolved, token))
    }

    /// The `/app` addresses of a list of equivalent servers (instances on one database), tried
    /// in order: each entry resolved as ``resolve(_:)`` does, none named twice. One entry's
    /// problem is the sentence ``resolve(_:)`` gives; with several, it names the entry's position.
    static func resolve(list urls: [URL]) -> Result<[(url: URL, token: String?)], Problem> {
        guard !urls.isEmpty else {
            return .failure(Problem(message: "the list of servers is empty; name at least one, ws://HOST:PORT/app as `rewind serve` prints it"))
        }
        var resolved: [(url: URL, token: String?)] = []
        for (index, url) in urls.enumerated() {
            switch resolve(url) {
            case .failure(let problem):
                guard urls.count > 1 else { return .failure(problem) }
                return .failure(Problem(message: "server \(index + 1) of \(urls.count): \(problem.message)"))
            case .success(let address):
                if let earlier = resolved.firstIndex(where: { sameServer($0.url, address.url) }) {
                    return .failure(Problem(message: "server \(index + 1) of \(urls.count), \(url.absoluteString), is server \(earlier + 1) again; name each server once"))
                }
                resolved.append(address)
            }
        }
        return .success(resolved)
    }

    /// Whether two resolved addresses name one server: the same host (in any case) and port
    /// (80 when none is written, 443 for `wss`).
    static func sameServer(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int { url.port ?? (url.scheme?.lowercased() == "wss" ? 443 : 80) }
        return a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }

    /// Why an address cannot be used, in one sentence naming it and what to write instead.
    struct Problem: Error, Equatable {
        var message: String
    }
}
