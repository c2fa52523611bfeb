import Foundation

extension SessionInfo {
    /// The session's last sign of life: the latest of its start, its end and its last event.
    /// ``LogWriter/prune(olderThanDays:now:)`` removes the sessions whose last activity is older
    /// than its cutoff.
    public var lastActivity: Date {
        var latest = startedAt
        if let endedAt, endedAt > latest { latest = endedAt }
        if let lastEventAt, lastEventAt > latest { latest = lastEventAt }
        return latest
    }
}
