/// What a replay did.
public struct ReplayReport: Sendable, Equatable {
    /// The uuid of the session that recorded the replay, when the store was recording.
    public var sessionUUID: String?
    /// How many actions went through the reducer.
    public var actionsApplied: Int

    package init(sessionUUID: String?, actionsApplied: Int) {
        self.sessionUUID = sessionUUID
        self.actionsApplied = actionsApplied
    }
}

/// What a branch did.
public struct BranchReport: Sendable, Equatable {
    /// The uuid of the branch session.
    public var sessionUUID: String
    /// How many actions went through the reducer (the edited ones among them).
    public var actionsApplied: Int
    /// The seqs left out.
    public var skipped: [Int64]
    /// The seqs whose action was replaced.
    public var edited: [Int64]

    package init(sessionUUID: String, actionsApplied: Int, skipped: [Int64], edited: [Int64]) {
        self.sessionUUID = sessionUUID
        self.actionsApplied = actionsApplied
        self.skipped = skipped
        self.edited = edited
    }
}
