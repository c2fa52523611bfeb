import RewindJSON

extension InspectorPush {
    /// The members an app's `event` may have for its frame to be forwarded as it came.
    private static let forwardableMembers: Set<String> = [
        "type", "seq", "at", "action", "patch", "keyframe", "hash", "durationNs", "cause", "coalesced", "nonFinite", "site",
    ]

    /// `true` when the app's event frame, parsed as `object` and accepted as an event, says
    /// nothing the push built from its ``WireEvent`` would not say: no `id` (a push has none, and
    /// inspectors tell replies by it), no unknown member, no `null` standing for an absent
    /// `patch` or `site`, `durationNs` given (the built push always has it), and the hash spelled
    /// as the built push spells it. Such a frame is forwarded with ``eventBytes(forwarding:session:sessionID:actionType:)``
    /// instead of being built again.
    package static func canForward(event object: JSONObject) -> Bool {
        for key in object.keys where !forwardableMembers.contains(key) { return false }
        if let patch = object["patch"], object["keyframe"] != nil || patch == .null { return false }
        if object["site"] == .null || object["durationNs"] == nil { return false }
        // The built push spells the hash as `wireHash` does; the app may have sent fewer or
        // upper-case digits, which inspectors comparing hashes as text would take for another.
        guard case .string(let hash)? = object["hash"], parseWireHash(hash).map(wireHash) == hash else { return false }
        return true
    }

    /// The `event` push for an app's event frame that ``canForward(event:)`` accepted: the frame's
    /// own bytes with `session`, `sessionId` and `actionType` added before its closing brace, so
    /// the action and patch are not written out again. It reads as the push built from the event
    /// does (numbers and strings keep the app's spelling). `nil` if the frame does not end its
    /// object with `}` (only whitespace may follow).
    package static func eventBytes(forwarding frame: [UInt8], session: String, sessionID: Int64, actionType: String) -> [UInt8]? {
        var end = frame.count - 1
        while end >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(frame[end]) { end -= 1 }
        guard end > 0, frame[end] == UInt8(ascii: "}") else { return nil }
        var tail = Array(#","session":"#.utf8)
        tail += JSONValue.string(session).serializedBytes(.compact)
        tail += Array(#","sessionId":"#.utf8)
        tail += Array(String(sessionID).utf8)
        tail += Array(#","actionType":"#.utf8)
        tail += JSONValue.string(actionType).serializedBytes(.compact)
        tail.append(UInt8(ascii: "}"))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(end + tail.count)
        bytes += frame[..<end]
        bytes += tail
        return bytes
    }
}
