import RewindJSON

/// Several events of one session in one `/app` frame, in seq order:
///
/// ```json
/// {"type":"events","events":[{"seq":4,"at":…,"action":…,"patch":[…],"hash":"…","durationNs":900},{"seq":5,…}]}
/// ```
///
/// Each element is exactly an `event` message without its `type` (a `type` member is ignored).
/// The server takes them one by one as if each came in a frame of its own: the same checks, the
/// same cumulative acks. An element it refuses (or cannot read) stops the batch there with that
/// element's error; the ones before it stand, the ones after it are not looked at.
///
/// A sender keeps a batch within ``maxEvents`` events and ``maxBytes`` bytes (and within the
/// server's largest message, `welcome`'s `maxMessage`); one event larger than that goes alone as
/// `event`. The server itself bounds a batch only by its largest message.
public struct WireEventBatch: Sendable, Equatable {
    /// The events read, in order.
    public var events: [WireEvent]
    /// Why the element after ``events`` could not be read, if one could not (those after it
    /// were not read).
    public var broken: WireError?

    /// The most events a sender puts in one batch.
    public static let maxEvents = 256
    /// The most bytes a sender puts in one batch frame (unless the server's largest message is
    /// smaller).
    public static let maxBytes = 1 << 20

    public init(events: [WireEvent], broken: WireError? = nil) {
        self.events = events
        self.broken = broken
    }

    init(fields f: WireFields) throws(WireError) {
        guard case .array(let items)? = f.object["events"], !items.isEmpty else {
            throw f.fail("events", "a non-empty array of events")
        }
        events = []
        events.reserveCapacity(items.count)
        broken = nil
        for (index, item) in items.enumerated() {
            let name = "events[\(index)]"
            guard case .object(let members) = item else {
                broken = WireError(.badMessage, "\(name) must be an event object", id: f.id)
                return
            }
            do throws(WireError) {
                events.append(try WireEvent(fields: WireFields(object: members, type: name)))
            } catch {
                // The element's own message names it; the batch's id (if any) is echoed.
                let message = error.message.hasPrefix(name) ? error.message : "\(name): \(error.message)"
                broken = WireError(error.code, message, id: f.id)
                return
            }
        }
    }

    /// The batch as a wire message (``broken`` is not written).
    public var json: JSONValue {
        ["type": "events", "events": .array(events.map { $0.json(withType: false) })]
    }

    // MARK: Frames from serialized events

    private static let batchHead = Array(#"{"type":"events","events":["#.utf8)
    private static let batchTail = Array("]}".utf8)
    private static let eventHead = Array(#"{"type":"event","#.utf8)

    /// The size of a batch frame holding events whose members (``WireEvent/json(withType:)``
    /// without `type`, compact) take `memberBytes` bytes in all, `count` of them.
    public static func frameSize(memberBytes: Int, count: Int) -> Int {
        batchHead.count + memberBytes + max(count - 1, 0) + batchTail.count
    }

    /// The `events` frame for events serialized without their `type`.
    public static func frame(members: [[UInt8]]) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(frameSize(memberBytes: members.reduce(0) { $0 + $1.count }, count: members.count))
        frame += batchHead
        for (index, event) in members.enumerated() {
            if index > 0 { frame.append(UInt8(ascii: ",")) }
            frame += event
        }
        frame += batchTail
        return frame
    }

    /// The size of the `event` frame for one event serialized without its `type`.
    public static func singleFrameSize(memberBytes: Int) -> Int {
        eventHead.count + memberBytes - 1
    }

    /// The `event` frame for one event serialized without its `type` (an object that is not
    /// empty): `"type": "event"` goes first, as ``WireEvent/json`` writes it.
    public static func singleFrame(members: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(singleFrameSize(memberBytes: members.count))
        frame += eventHead
        frame += members.dropFirst()
        return frame
    }
}
