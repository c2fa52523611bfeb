import Foundation
import RewindLog
import RewindSupport

/// A server that lacks what another acknowledged, or claims what it cannot hold: the link
/// resumes from a server's `nextSeq`, reads back from the local log what it no longer holds, or
/// passes the server over with one sentence. Everything here runs with the link's lock held,
/// in ``ServerLink/change(_:)``, except the read of the local log (on the global queue).
extension ServerLink {
    /// With the lock held: the server claimed what it cannot hold (`claim`, a sentence's end):
    /// said once as the link's last error, the connection closed, and the next server tried
    /// after the backoff. Nothing it said is kept.
    func distrust(_ claim: String, url: URL, client: any TransportConnection, _ state: inout State) {
        let sentence = "\(url.absoluteString) \(claim); its word is not taken (is it the server this app streams to?), and the events stay on this device"
        state.lastError = sentence
        client.close(goingAway: false)
        scheduleRetry(.nextWelcomed, &state)
        state.notes.append(.report(sentence, url))
    }

    /// With the lock held: the server holds everything before `nextSeq`; the rest goes now.
    func resume(from nextSeq: Int64, on client: any TransportConnection, _ state: inout State) {
        let url = requests[state.server].url
        // Streaming again: a full round. The backoff starts over only once the server
        // acknowledges something (`ack`): a server that welcomes and drops at once, again and
        // again, is retried 0.1 s doubling to 5 s apart, as for one that never answers.
        state.rotation.streaming()
        // The server stores what it holds before `nextSeq`: its state is the one the last
        // sent version of `nextSeq - 1` gave.
        let holdsHash = state.events.indices(from: nextSeq - 1).first.flatMap { index in
            state.events[index].seq == nextSeq - 1 ? state.events[index].sentHash ?? state.events[index].hash : nil
        }
        if nextSeq > 0 {
            state.events.acknowledge(through: nextSeq - 1)
            state.ackedBy = url
        }
        // -1 when the server has nothing yet: those who count hear what the server had.
        state.notes.append(.acknowledged(nextSeq - 1, url))
        state.phase = .streaming
        if let refused = state.refusal {
            state.refusal = nil
            // The event the server stopped at is the one it refused.
            if let index = state.events.indices(from: nextSeq).first, state.events[index].seq == nextSeq {
                state.events.withhold(from: index)
                let sentence = "the server refused event \(nextSeq) of session \(session.uuid) (\(refused)); it is sent again without its state change, and the next state goes whole"
                state.lastError = sentence
                state.notes.append(.report(sentence, url))
            }
        }
        // Everything from `nextSeq` goes now, the gathered events with it.
        state.gatheredFrom = nil
        state.lastSendAt = MonotonicClock.nanoseconds()
        sendEvents(in: state.events.indices(from: nextSeq), on: client, serverHash: holdsHash ?? state.events.ackedHash, &state)
        finishIfDelivered(&state)
    }

    /// The events a server lacks came back from the local log (or could not).
    func didRestore(_ restored: Result<UnackedEvents.Restored?, any Error>, from nextSeq: Int64, attempt: Int) {
        change { state in
            guard attempt == state.attempt, state.phase == .restoring, let client = state.client else { return }
            let firstHeld = state.events.firstHeldSeq
            switch restored {
            case .success(let entries):
                if let entries, state.events.restore(entries) {
                    resume(from: nextSeq, on: client, &state)
                } else {
                    passOver(lacking: nextSeq, before: firstHeld, on: client, why: "and the local log no longer holds them all", &state)
                }
            case .failure(let error):
                passOver(lacking: nextSeq, before: firstHeld, on: client,
                         why: "and the local log could not give them back (\(error))", &state)
            }
        }
    }

    /// With the lock held: the server lacks events `nextSeq..<firstHeld`, which this link can
    /// no longer send; said once per server, and the next server is tried.
    func passOver(lacking nextSeq: Int64, before firstHeld: Int64, on client: any TransportConnection, why: String,
                          _ state: inout State) {
        let url = requests[state.server].url
        let range = nextSeq == firstHeld - 1 ? "event \(nextSeq)" : "events \(nextSeq)…\(firstHeld - 1)"
        let by = state.ackedBy.map { " \($0.absoluteString)" } ?? " a server"
        let next = requests.count > 1 ? "; trying the next server" : "; trying again later"
        let sentence = "\(url.absoluteString) lacks \(range) of session \(session.uuid), which\(by) acknowledged, \(why)\(next)"
        state.lastError = sentence
        if state.reportedGaps.insert(state.server).inserted { state.notes.append(.report(sentence, url)) }
        client.close(goingAway: true)
        scheduleRetry(.nextWelcomed, &state)
    }
}
