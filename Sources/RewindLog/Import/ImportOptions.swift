import Foundation

/// How an import runs.
public struct ImportOptions {
    /// The time given to records that have none before the first that has one.
    public var importedAt: Date
    /// The name of the file being imported, remembered in the session's meta.
    public var file: String?
    /// Called now and then with the number of records read so far.
    public var progress: ((Int) -> Void)?

    /// Options for an import running now.
    public init(importedAt: Date = Date(), file: String? = nil, progress: ((Int) -> Void)? = nil) {
        self.importedAt = importedAt
        self.file = file
        self.progress = progress
    }

    /// Reports progress every 1,024 records, which keeps the callback off the hot path.
    func report(_ count: Int) {
        if count & 1023 == 0 { progress?(count) }
    }
}
