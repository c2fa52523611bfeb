import Foundation
import RewindJSON
import RewindLog
import RewindSupport
import RewindWire

/// What a server sink says about failed connects and withheld or refused events: one sentence
/// per server, again only when its kind of failure changes, in the order decided.
extension ServerSink {
    /// Reports a failed connect to `server`: the first one, then again only when that server's
    /// kind of failure changes. With `onlyIfFirst`, nothing happens once any failure was
    /// reported (decided under the same lock as the report, so a failure the link reports
    /// meanwhile is never followed by it).
    func didFail(_ failure: TransportFailure, server: URL, kind: ConnectFailure.Kind? = nil, sentence: String? = nil,
                 onlyIfFirst: Bool = false) {
        if failure.aboutEvents {
            // Not a connect failure: an event over the server's limits was kept from it, or a
            // server lacks events the link no longer holds (the link says so once;
            // `lastServerError` has the sentence).
            reportOrder.withLock { report?(failure.reason) }
            return
        }
        let connectFailure = ConnectFailure(reason: failure.reason, kind: kind)
        let text = sentence ?? connectFailure.sentence(url: server)
        reportOrder.withLock {
            let changed = shared.withLock { shared in
                if onlyIfFirst && !shared.reportedKinds.isEmpty { return false }
                shared.latestFailure = failure.reason
                if failure.isPermanent { shared.gaveUp = true }
                defer { shared.reportedKinds[server] = connectFailure.kind }
                guard shared.reportedKinds[server] != connectFailure.kind else { return false }
                shared.latestReport = text
                return true
            }
            guard changed, let report else { return }
            report(text)
        }
    }

    /// Writes a sentence to standard error, prefixed `rewind:`, as a console line.
    public static let reportToStandardError: @Sendable (String) -> Void = { sentence in
        FileHandle.standardError.write(Data("rewind: \(sentence)\n".utf8))
    }
}
