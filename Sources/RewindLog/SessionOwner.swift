import RewindSupport

/// Who may write a session: the app that started it, which alone holds the session's secret (a
/// random value made with the session, kept in the device's own log and never shown to an
/// inspector). A log keeps the secret's SHA-256 digest, set when the session is first opened
/// with one; opening it again needs the same secret.
public struct SessionOwner: Sendable, Equatable {
    /// The secret itself: kept only in a log on the app's device (its local log, its outbox), so
    /// that a relaunch or `rewind push` can prove the session again.
    public var secret: String?
    /// The secret's SHA-256 digest, 64 lowercase hexadecimal digits: what a server keeps.
    public var digest: String

    /// An owner by its digest (and its secret, when known).
    package init(secret: String?, digest: String) {
        self.secret = secret
        self.digest = digest
    }

    /// An owner whose secret this log keeps (the app's device).
    public static func keeping(_ secret: String) -> SessionOwner {
        SessionOwner(secret: secret, digest: SHA256.hex(secret))
    }

    /// An owner this log knows by the digest alone (a server, given the secret in a `hello`).
    public static func proving(_ secret: String) -> SessionOwner {
        SessionOwner(secret: nil, digest: SHA256.hex(secret))
    }

    /// A new secret: 32 random bytes as 64 hexadecimal digits.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = generator.next() as UInt64
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// Whether `stored` (a digest a log holds) is this owner's, compared over every byte.
    package func matches(_ stored: String) -> Bool {
        let a = Array(stored.utf8), b = Array(digest.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
