import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var session: URLSession?
    private var task: URLSessionWebSocketTask?
    private var listener: (any TransportListener)?
    private var opened = false
    private var finished = false
    private var closeCode: URLSessionWebSocketTask.CloseCode?
    private var queuedMessages = 0
    private var queuedBytes = 0
    /// Why the server's certificate was refused with the CA file trusted, when it was.
    private var untrusted: String?

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
        let proceed = condition.withLock {
            guard !finished, closeCode == nil else { return false }
            self.listener = listener
            self.session = session
            self.task = task
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
        condition.lock()
        guard !finished, closeCode == nil, let task,
              queuedMessages < request.maxQueuedMessages, queuedBytes + size <= request.maxQueuedBytes
        else {
            condition.unlock()
            return false
        }
        queuedMessages += 1
        queuedBytes += size
        condition.unlock()
        // @Sendable spelt out: the SDK's and FoundationNetworking's handlers are both @Sendable,
        // and the closure must stay so whichever the compiler sees (Docs/Platforms.md).
        task.send(.string(text)) { @Sendable [weak self] _ in
            // A failed send also fails the receive, which ends the connection.
            self?.didSend(size)
        }
        return true
    }

    func close(goingAway: Bool) {
        condition.lock()
        guard !finished, closeCode == nil else {
            condition.unlock()
            return
        }
        closeCode = goingAway ? .goingAway : .normalClosure
        guard self.task != nil else {
            // Closed before it opened: it never will.
            finished = true
            condition.broadcast()
            condition.unlock()
            return
        }
        let task = queuedMessages == 0 || !opened ? self.task : nil
        condition.unlock()
        if let task { cancel(task) }
    }

    var isFinished: Bool {
        condition.withLock { finished }
    }

    func waitUntilFinished(timeout: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        condition.lock()
        defer { condition.unlock() }
        while !finished {
            if !condition.wait(until: deadline) { break }
        }
        return finished
    }

    // MARK: URLSession's side

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        condition.lock()
        guard !finished else {
            condition.unlock()
            return
        }
        opened = true
        let listener = self.listener
        condition.unlock()
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
            condition.withLock { untrusted = reason }
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
                let listener = self.condition.withLock { self.finished ? nil : self.listener }
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
        condition.lock()
        queuedMessages -= 1
        queuedBytes -= size
        let task = queuedMessages == 0 && closeCode != nil && !finished ? self.task : nil
        condition.unlock()
        if let task { cancel(task) }
    }

    /// Sends the close frame once everything queued is written.
    private func cancel(_ task: URLSessionWebSocketTask) {
        let code = condition.withLock { closeCode ?? .normalClosure }
        task.cancel(with: code, reason: nil)
        condition.withLock { session }?.finishTasksAndInvalidate()
    }

    /// The connection is over: the listener hears it once, as a close or as a failure to open.
    private func finish(error: (any Error)?, response: URLResponse?) {
        condition.lock()
        guard !finished else {
            condition.unlock()
            return
        }
        finished = true
        let wasOpened = opened
        let untrusted = self.untrusted
        let listener = self.listener
        let session = self.session
        self.listener = nil
        self.session = nil
        condition.broadcast()
        condition.unlock()
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
