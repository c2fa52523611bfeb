import RewindJSON

/// The tags a session carries: the strings of its meta's `tags` array ("bug report", "beta",
/// "ci"), which the log indexes (`session_tags`, schema 6) so that a list can be filtered by one.
public enum SessionTags {
    /// The most tags a session carries; elements of `meta.tags` past this many are not tags.
    public static let maxCount = 16
    /// The longest tag, in bytes of UTF-8.
    public static let maxBytes = 64

    /// The tags in `meta`, as the log indexes them: the first ``maxCount`` elements of
    /// `meta.tags` that are strings of 1 to ``maxBytes`` bytes, each once, in their order.
    /// Anything else (no `tags`, a `tags` that is not an array, a number in it) gives none.
    public static func from(meta: JSONValue) -> [String] {
        guard let items = meta["tags"]?.arrayValue else { return [] }
        var tags: [String] = []
        for item in items.prefix(maxCount) {
            guard let tag = item.stringValue, problem(with: tag) == nil, !tags.contains(tag) else { continue }
            tags.append(tag)
        }
        return tags
    }

    /// Why `tag` cannot be a tag (empty, or longer than ``maxBytes``), or `nil` when it can.
    public static func problem(with tag: String) -> String? {
        if tag.isEmpty { return "a tag must not be empty" }
        let bytes = tag.utf8.count
        if bytes > maxBytes { return "a tag has at most \(maxBytes) bytes of UTF-8; this one has \(bytes)" }
        return nil
    }
}

extension SessionInfo {
    /// The app's version (`meta.version`, a string), what `--app-version` filters on.
    public var appVersion: String? { meta["version"]?.stringValue }
    /// The device model the recorder found (`meta.device`: `iPhone15,2`, `MacBookPro18,3`,
    /// `x86_64`), what `--device` filters on.
    public var device: String? { meta["device"]?.stringValue }
    /// The operating system the recorder found (`meta.os`: `iOS 17.4.1`, `Debian GNU/Linux 12 (bookworm)`).
    public var os: String? { meta["os"]?.stringValue }
    /// The session's tags (``SessionTags/from(meta:)``), what `--tag` filters on.
    public var tags: [String] { SessionTags.from(meta: meta) }
}
