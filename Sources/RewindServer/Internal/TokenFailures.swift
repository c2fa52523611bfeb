import Foundation
import RewindSupport

/// Requests refused for a wrong (or missing) token, by address: each is counted; the first of a
/// burst (after a minute without any) is said, and so is each tenfold count within it; an
/// address that fails 10 times within 10 s is slowed: its next requests are refused unread
/// (`429`) for a second, doubling while it keeps failing, up to a minute.
final class TokenFailures: Sendable {
    /// Failures an address may have within ``window`` before it is slowed.
    static let allowed = 10
    static let window: Int64 = 10_000_000_000
    static let quietBetweenBursts: Int64 = 60_000_000_000
    static let firstPause: Int64 = 1_000_000_000
    static let longestPause: Int64 = 60_000_000_000
    /// The most addresses remembered; past it, those not slowed are forgotten.
    static let maxAddresses = 4_096

    private struct Address {
        var windowStart: Int64
        var failures = 0
        var slowedUntil: Int64 = 0
        var pause: Int64 = 0
    }

    private struct Tally {
        var addresses: [String: Address] = [:]
        var lastFailure: Int64?
        var inBurst = 0
        var total = 0
    }

    private let tally = Mutex(Tally())
    private let notice: @Sendable (String) -> Void

    init(notice: @escaping @Sendable (String) -> Void) {
        self.notice = notice
    }

    /// How many requests were refused for their token since the server started.
    var total: Int { tally.withLock { $0.total } }

    /// When `address` is slowed: the whole seconds it still waits (at least 1); else `nil`.
    func slowed(_ remote: String, now: Int64 = MonotonicClock.nanoseconds()) -> Int? {
        let address = Self.shown(Self.host(of: remote))
        return tally.withLock { tally in
            guard let entry = tally.addresses[address], entry.slowedUntil > now else { return nil }
            return Int((entry.slowedUntil - now + 999_999_999) / 1_000_000_000)
        }
    }

    /// The address of `remote` without its port (`127.0.0.1:5123` → `127.0.0.1`,
    /// `[::1]:5123` → `::1`): an address keeps failing from port after port.
    static func host(of remote: String) -> String {
        if remote.hasPrefix("["), let close = remote.firstIndex(of: "]") {
            return String(remote[remote.index(after: remote.startIndex)..<close])
        }
        let colons = remote.filter { $0 == ":" }.count
        if colons == 1, let colon = remote.lastIndex(of: ":") { return String(remote[..<colon]) }
        return remote
    }

    /// `text` as it may be shown on an operator's terminal: printable ASCII, at most 80 bytes.
    static func shown(_ text: String) -> String {
        let bytes = text.utf8.prefix(80).map { $0 >= 0x20 && $0 < 0x7f ? $0 : UInt8(ascii: "?") }
        return String(decoding: bytes, as: UTF8.self) + (text.utf8.count > 80 ? "…" : "")
    }

    /// Counts a request from `address` to `path` refused for its token.
    func failed(_ remote: String, path rawPath: String, now: Int64 = MonotonicClock.nanoseconds()) {
        let path = Self.shown(rawPath)
        let address = Self.shown(Self.host(of: remote))
        let said = tally.withLock { tally -> String? in
            tally.total += 1
            var sentence: String?
            if let last = tally.lastFailure, now - last < Self.quietBetweenBursts {
                tally.inBurst += 1
                if tally.inBurst >= 100, String(tally.inBurst).dropFirst().allSatisfy({ $0 == "0" }) {
                    sentence = "\(tally.inBurst) requests refused for a wrong or missing token in this burst, from \(tally.addresses.count) addresses; the latest from \(address) to \(path)"
                }
            } else {
                tally.inBurst = 1
                sentence = "refused a request from \(address) to \(path): wrong or missing token (the first of a burst; more are counted, and an address that fails \(Self.allowed) times in \(Self.window / 1_000_000_000) s is slowed)"
            }
            tally.lastFailure = now
            if tally.addresses.count >= Self.maxAddresses, tally.addresses[address] == nil {
                tally.addresses = tally.addresses.filter { $0.value.slowedUntil > now }
            }
            var entry = tally.addresses[address] ?? Address(windowStart: now)
            if now - entry.windowStart > Self.window {
                entry.windowStart = now
                entry.failures = 0
            }
            entry.failures += 1
            if entry.failures >= Self.allowed {
                entry.pause = entry.pause == 0 ? Self.firstPause : min(entry.pause * 2, Self.longestPause)
                entry.slowedUntil = now + entry.pause
                entry.windowStart = now
                entry.failures = 0
            } else if entry.slowedUntil > 0, now - entry.slowedUntil > Self.window {
                // It stopped failing for a while: the next pause starts short again.
                entry.pause = 0
            }
            tally.addresses[address] = entry
            return sentence
        }
        if let said { notice(said) }
    }
}
