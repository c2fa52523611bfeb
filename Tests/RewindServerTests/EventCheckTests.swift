import Foundation
import RewindJSON
import RewindLog
import RewindServer
import RewindWire
import Testing

/// The event checks as a pure function: every refusal with the sentence the app is told, and
/// the events it accepts.
@Suite("Event checks")
struct EventCheckTests {
    static let version = StateHashVersion.v2
    static let limits = JSONPatchLimits(maxDepth: 8, maxAddedBytes: 200)

    /// Objects nested `levels` deep, a number at the bottom.
    static func nested(_ levels: Int) -> JSONValue {
        (0..<levels).reduce(JSONValue(integerLiteral: 1)) { inner, _ in ["n": inner] }
    }

    /// A session that has stored seq 0 with `state`.
    static func session(after state: JSONValue) -> EventCheck.Session {
        EventCheck.Session(builder: EventBuilder(resuming: 1, nextSeq: 1, state: state, hashVersion: version))
    }

    static func event(_ seq: Int64, patch: JSONValue? = nil, keyframe: JSONValue? = nil, hash: UInt64,
                      coalesced: Bool = false) -> WireEvent {
        WireEvent(seq: seq, at: 1_000, action: ["type": "tap"], patch: patch, keyframe: keyframe, hash: hash, coalesced: coalesced)
    }

    /// The refusal `check` throws, or nil when it accepts.
    static func refusal(_ event: WireEvent, _ session: EventCheck.Session, limits: JSONPatchLimits = limits) -> EventRefusal? {
        do {
            _ = try EventCheck.check(event, session: session, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    struct NotAccepted: Error {}

    static func accepted(_ event: WireEvent, _ session: EventCheck.Session) throws -> (LogEvent, EventCheck.Session) {
        guard case .accepted(let logEvent, let after) = try EventCheck.check(event, session: session, limits: limits) else {
            throw NotAccepted()
        }
        return (logEvent, after)
    }

    @Test("seq 0 as a keyframe is accepted: the state, its size and the next seq")
    func acceptsTheInitialKeyframe() throws {
        let state: JSONValue = ["count": 0, "name": "cart"]
        let start = EventCheck.Session(builder: EventBuilder(sessionID: 1, hashVersion: Self.version))
        var event = Self.event(0, keyframe: state, hash: state.hash(Self.version))
        event.nonFinite = ["/state/x"]
        event.site = WireEvent.Site(file: "Cart.swift", line: 4, function: "body")
        let (logEvent, after) = try Self.accepted(event, start)
        #expect(logEvent.seq == 0)
        #expect(logEvent.hash == state.hash(Self.version))
        #expect(logEvent.nonFinite == ["/state/x"])
        #expect(logEvent.site == SendSite(file: "Cart.swift", line: 4, function: "body"))
        #expect(after.builder.nextSeq == 1)
        #expect(after.builder.state == state)
        #expect(after.stateBytes == state.serializedBytes(.compact).count)
    }

    @Test("a patch is applied in place: its forward patch as sent, its inverse, the state after")
    func acceptsAPatch() throws {
        let before: JSONValue = ["count": 0]
        let after: JSONValue = ["count": 1]
        let patch: JSONValue = [["op": "replace", "path": "/count", "value": 1]]
        let (logEvent, session) = try Self.accepted(Self.event(1, patch: patch, hash: after.hash(Self.version)), Self.session(after: before))
        #expect(logEvent.seq == 1)
        #expect(logEvent.patch == patch)
        #expect(logEvent.inverse == [["op": "replace", "path": "/count", "value": 0]])
        #expect(session.builder.state == after)
        #expect(session.builder.nextSeq == 2)
        #expect(session.stateBytes == after.serializedBytes(.compact).count)
    }

    @Test("an inverse larger than the state before is one replace of the whole state")
    func capsTheInverse() throws {
        let before: JSONValue = ["a": 1]
        let big = JSONValue.string(String(repeating: "x", count: 150))
        let patch: JSONValue = [["op": "replace", "path": "/a", "value": big], ["op": "replace", "path": "/a", "value": 2]]
        let after: JSONValue = ["a": 2]
        let (logEvent, _) = try Self.accepted(Self.event(1, patch: patch, hash: after.hash(Self.version)), Self.session(after: before))
        #expect(logEvent.inverse == [["op": "replace", "path": "", "value": before]])
    }

    @Test("a coalesced event with an empty patch is stored as a skipped action, the state unchanged")
    func acceptsASkippedAction() throws {
        let state: JSONValue = ["count": 3]
        let (logEvent, session) = try Self.accepted(Self.event(1, patch: [], hash: state.hash(Self.version), coalesced: true),
                                                    Self.session(after: state))
        #expect(logEvent.patch == [])
        #expect(logEvent.hash == state.hash(Self.version))
        #expect(session.builder.nextSeq == 2)
        #expect(session.builder.state == state)
    }

    @Test("a seq the session already has is already stored, not refused")
    func resentEventIsAlreadyStored() throws {
        let state: JSONValue = ["count": 0]
        let verdict = try EventCheck.check(Self.event(0, keyframe: state, hash: 1), session: Self.session(after: state), limits: Self.limits)
        guard case .alreadyStored = verdict else {
            Issue.record("expected alreadyStored, got \(verdict)")
            return
        }
    }

    @Test("a broken session refuses everything until hello")
    func brokenSession() {
        var session = Self.session(after: ["count": 0])
        session.broken = true
        let refusal = Self.refusal(Self.event(1, patch: [], hash: 0), session)
        #expect(refusal == .sessionBroken)
        #expect(refusal?.wireError == WireError(.storage, "the log refused an earlier event of this session; say hello again to resume"))
    }

    @Test("a seq past the next one is a gap")
    func seqGap() {
        let refusal = Self.refusal(Self.event(5, patch: [], hash: 0), Self.session(after: ["count": 0]))
        #expect(refusal == .seqGap(seq: 5, expected: 1))
        #expect(refusal?.wireError == WireError(.seqGap, "event 5 arrived but the server expects 1 next; resend from 1"))
    }

    @Test("a patch that is not a patch, or does not apply, is patch-failed")
    func patchFailed() {
        let session = Self.session(after: ["count": 0])
        for patch: JSONValue in ["not a patch", [["op": "remove", "path": "/nowhere"]]] {
            let refusal = Self.refusal(Self.event(1, patch: patch, hash: 0), session)
            guard case .patchFailed(1, let reason) = refusal else {
                Issue.record("expected patchFailed, got \(String(describing: refusal))")
                continue
            }
            #expect(refusal?.wireError == WireError(.patchFailed, "event 1: the patch does not apply to the session's state: \(reason)"))
        }
    }

    @Test("a patch that would nest too deep is refused by operation")
    func patchTooDeep() {
        let deep = Self.nested(12)
        let refusal = Self.refusal(Self.event(1, patch: [["op": "add", "path": "/deep", "value": deep]], hash: 0),
                                   Self.session(after: ["count": 0]))
        #expect(refusal == .patchTooDeep(seq: 1, operation: "operation 0 (add /deep)", maxDepth: 8))
        #expect(refusal?.wireError == WireError(.stateTooDeep, "event 1: operation 0 (add /deep) would nest the state deeper than 8 levels, which the log could not read back; nothing was stored"))
    }

    @Test("a patch that would add more than --max-state is refused by operation")
    func patchTooLarge() {
        let big = JSONValue.string(String(repeating: "x", count: 300))
        let refusal = Self.refusal(Self.event(1, patch: [["op": "add", "path": "/big", "value": big]], hash: 0),
                                   Self.session(after: ["count": 0]))
        #expect(refusal == .patchTooLarge(seq: 1, operation: "operation 0 (add /big)", maxAddedBytes: 200))
        #expect(refusal?.wireError == WireError(.stateTooLarge, "event 1: operation 0 (add /big) would add more than the server's --max-state of 200 bytes to the state; nothing was stored"))
    }

    @Test("a whole state that nests too deep is refused")
    func keyframeTooDeep() {
        let deep = Self.nested(12)
        let refusal = Self.refusal(Self.event(1, keyframe: deep, hash: deep.hash(Self.version)), Self.session(after: ["count": 0]))
        #expect(refusal == .stateTooDeep(seq: 1, maxDepth: 8))
        #expect(refusal?.wireError == WireError(.stateTooDeep, "event 1: the state nests deeper than 8 levels, which the log could not read back; nothing was stored"))
    }

    @Test("a state over --max-state is refused, sent whole or reached by a small patch")
    func stateTooLarge() {
        let whole: JSONValue = ["s": .string(String(repeating: "x", count: 250))]
        let sentWhole = Self.refusal(Self.event(1, keyframe: whole, hash: whole.hash(Self.version)), Self.session(after: ["count": 0]))
        #expect(sentWhole == .stateTooLarge(seq: 1, maxBytes: 200))
        #expect(sentWhole?.wireError == WireError(.stateTooLarge, "event 1: the state after it is more than 200 bytes, over the server's --max-state; nothing was stored"))
        // Each patch adds little, but the state grows past the bound.
        let before: JSONValue = ["s": .string(String(repeating: "x", count: 180))]
        let patch: JSONValue = [["op": "add", "path": "/t", "value": "yyyyyyyyyyyyyyyyyyyy"]]
        let after: JSONValue = ["s": .string(String(repeating: "x", count: 180)), "t": "yyyyyyyyyyyyyyyyyyyy"]
        let grown = Self.refusal(Self.event(1, patch: patch, hash: after.hash(Self.version)), Self.session(after: before))
        #expect(grown == .stateTooLarge(seq: 1, maxBytes: 200))
    }

    @Test("a hash that is not the state's is refused, for a patch and for a whole state")
    func hashMismatch() {
        let before: JSONValue = ["count": 0]
        let after: JSONValue = ["count": 1]
        let patched = Self.refusal(Self.event(1, patch: [["op": "replace", "path": "/count", "value": 1]], hash: 12_345),
                                   Self.session(after: before))
        #expect(patched == .hashMismatch(seq: 1, computed: after.hash(Self.version), claimed: 12_345))
        #expect(patched?.wireError == WireError(.hashMismatch, "event 1: the state after it hashes to \(wireHash(after.hash(Self.version))), the event says \(wireHash(12_345))"))
        let whole = Self.refusal(Self.event(1, keyframe: after, hash: 7), Self.session(after: before))
        #expect(whole == .hashMismatch(seq: 1, computed: after.hash(Self.version), claimed: 7))
    }
}
