import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RewindSupport
#if canImport(Security)
import Security
#endif

/// The Apple-platform transport: `URLSessionWebSocketTask`.
///
/// It compiles on Linux too (FoundationNetworking has the same API), where it fails at once:
/// Debian's libcurl has no WebSocket support, and URLSession reports `unsupportedURL`, which this
/// connection turns into a permanent failure with one sentence. `make apple-check` also compiles
/// it against a stand-in with the Apple SDK's declarations (Tests/AppleStandIns): the delegate is
/// `Sendable` and both completion handlers are `@Sendable` there, as in FoundationNetworking.
final class URLSessionTransportConnection: NSObject, TransportConnection, URLSessionWebSocketDelegate, @unchecked Sendable {
    /// The largest message the server sends the app: a `jump` command carries a whole state.
    static let maxReceivedMessage = 128 << 20

    private let request: TransportRequest
    private struct Shared {
        var session: URLSession?
        var task: URLSessionWebSocketTask?
        var listener: (any TransportListener)?
        var opened = false
        var finished = false
        var closeCode: URLSessionWebSocketTask.CloseCode?
        var queuedMessages = 0
        var queuedBytes = 0
        /// Why the server's certificate was refused with the CA file trusted, when it was.
        var untrusted: String?
    }

    /// ``waitUntilFinished(timeout:)`` waits here for `finished`, which wakes it.
    private let shared = Condition(Shared())

    init(request: TransportRequest) {
        self.request = request
    }

    func open(listener: any TransportListener) {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.setValue(request.subprotocol, forHTTPHeaderField: "Sec-WebSocket-Protocol")
        if let token = request.token { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        urlRequest.timeoutInterval = 10
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: queue)
        let task = session.webSocketTask(with: urlRequest)
        task.maximumMessageSize = Self.maxReceivedMessage
        let proceed = shared.withLock { shared in
            guard !shared.finished, shared.closeCode == nil else { return false }
            shared.listener = listener
            shared.session = session
            shared.task = task
            return true
        }
        guard proceed else {
            session.invalidateAndCancel()
            return
        }
        task.resume()
        receiveNext(on: task)
    }

    func send(text: String) -> Bool {
        let size = text.utf8.count
        let limits = (messages: request.maxQueuedMessages, bytes: request.maxQueuedBytes)
        let queued = shared.withLock { shared -> URLSessionWebSocketTask? in
            guard !shared.finished, shared.closeCode == nil, let task = shared.task,
                  shared.queuedMessages < limits.messages, shared.queuedBytes + size <= limits.bytes
            else { return nil }
            shared.queuedMessages += 1
            shared.queuedBytes += size
            return task
        }
        guard let task = queued else { return false }
        // @Sendable spelt out: the SDK's and FoundationNetworking's handlers are both @Sendable,
        // and the closure must stay so whichever the compiler sees (Docs/Platforms.md).
        task.send(.string(text)) { @Sendable [weak self] _ in
            // A failed send also fails the receive, which ends the connection.
            self?.didSend(size)
        }
        return true
    }

    func close(goingAway: Bool) {
        let task = shared.update { shared, waking -> URLSessionWebSocketTask? in
            guard !shared.finished, shared.closeCode == nil else { return nil }
            shared.closeCode = goingAway ? .goingAway : .normalClosure
            guard shared.task != nil else {
                // Closed before it opened: it never will.
                shared.finished = true
                waking = .all
                return nil
            }
            return shared.queuedMessages == 0 || !shared.opened ? shared.task : nil
        }
        if let task { cancel(task) }
    }

    var isFinished: Bool {
        shared.withLock { $0.finished }
    }

    func waitUntilFinished(timeout: Duration) -> Bool {
        shared.wait(for: { $0.finished }, deadline: MonotonicClock.deadline(after: timeout))
    }

    // MARK: URLSession's side

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        let listener = shared.withLock { shared -> (any TransportListener)? in
            guard !shared.finished else { return nil }
            shared.opened = true
            return shared.listener
        }
        listener?.transportDidConnect()
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                    didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        finish(error: nil, response: nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish(error: error, response: task.response)
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        finish(error: error, response: nil)
    }

    #if canImport(Security)
    /// With a CA file, the server's chain is evaluated with its certificates as anchors besides
    /// the system's; without one, URLSession decides as it always does.
    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard let caFile = request.caFile,
              challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        switch ServerTrust.evaluate(trust, caFile: caFile) {
        case .trusted:
            completionHandler(.useCredential, URLCredential(trust: trust))
        case .refused(let reason):
            shared.withLock { $0.untrusted = reason }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
    #endif

    // MARK: Inside

    private func receiveNext(on task: URLSessionWebSocketTask) {
        task.receive { @Sendable [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let message):
                let listener = self.shared.withLock { $0.finished ? nil : $0.listener }
                switch message {
                case .string(let text): listener?.transportDidReceive(Array(text.utf8))
                case .data(let data): listener?.transportDidReceive([UInt8](data))
                @unknown default: break
                }
                self.receiveNext(on: task)
            case .failure(let error):
                self.finish(error: error, response: task.response)
            }
        }
    }

    private func didSend(_ size: Int) {
        let task = shared.withLock { shared in
            shared.queuedMessages -= 1
            shared.queuedBytes -= size
            return shared.queuedMessages == 0 && shared.closeCode != nil && !shared.finished ? shared.task : nil
        }
        if let task { cancel(task) }
    }

    /// Sends the close frame once everything queued is written.
    private func cancel(_ task: URLSessionWebSocketTask) {
        let code = shared.withLock { $0.closeCode ?? .normalClosure }
        task.cancel(with: code, reason: nil)
        shared.withLock { $0.session }?.finishTasksAndInvalidate()
    }

    /// The connection is over: the listener hears it once, as a close or as a failure to open.
    private func finish(error: (any Error)?, response: URLResponse?) {
        typealias Ending = (wasOpened: Bool, untrusted: String?, listener: (any TransportListener)?, session: URLSession?)
        let ending = shared.update { shared, waking -> Ending? in
            guard !shared.finished else { return nil }
            shared.finished = true
            waking = .all
            defer {
                shared.listener = nil
                shared.session = nil
            }
            return (shared.opened, shared.untrusted, shared.listener, shared.session)
        }
        guard let (wasOpened, untrusted, listener, session) = ending else { return }
        session?.invalidateAndCancel()
        if wasOpened {
            listener?.transportDidClose()
        } else if let untrusted {
            listener?.transportDidFail(TransportFailure(reason: Self.untrustedSentence(untrusted)))
        } else {
            listener?.transportDidFail(Self.failure(error, response: response))
        }
    }

    /// The words both transports use for a certificate that is not trusted (ConnectFailure sorts
    /// by them).
    static func untrustedSentence(_ why: String) -> String {
        "the server's certificate is not trusted (\(why)); trust the CA that signed it with a CA file (REWIND_CA_FILE or caFile:)"
    }

    /// One sentence for a connection that could not be opened.
    static func failure(_ error: (any Error)?, response: URLResponse?) -> TransportFailure {
        if let http = response as? HTTPURLResponse, http.statusCode == 401 || http.statusCode == 403 {
            return TransportFailure(reason: "HTTP \(http.statusCode): the server refused the token")
        }
        guard let error else { return TransportFailure(reason: "the connection closed before it opened") }
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return TransportFailure(reason: "\(error.localizedDescription)") }
        switch nsError.code {
        case NSURLErrorUnsupportedURL:
            let detail = nsError.userInfo[NSLocalizedDescriptionKey] as? String ?? "unsupported URL"
            return TransportFailure(
                reason: "URLSession cannot open WebSockets here (\(detail)); on Linux use ServerTransport.automatic or .libwebsockets",
                isPermanent: true)
        case NSURLErrorCannotConnectToHost: return TransportFailure(reason: "connection refused")
        case NSURLErrorTimedOut: return TransportFailure(reason: "timed out")
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed, NSURLErrorNotConnectedToInternet,
             NSURLErrorNetworkConnectionLost, NSURLErrorInternationalRoamingOff, NSURLErrorDataNotAllowed:
            return TransportFailure(reason: "host unreachable")
        case NSURLErrorBadServerResponse: return TransportFailure(reason: "the server did not accept the WebSocket upgrade")
        case NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasUnknownRoot, NSURLErrorServerCertificateHasBadDate,
             NSURLErrorServerCertificateNotYetValid, NSURLErrorSecureConnectionFailed:
            return TransportFailure(reason: untrustedSentence(nsError.localizedDescription))
        default: return TransportFailure(reason: nsError.localizedDescription)
        }
    }
}
