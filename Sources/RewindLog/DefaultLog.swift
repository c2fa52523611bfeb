import Foundation

/// Where a log goes when no one names it: the same file for the recorder in an app and for the
/// `rewind` command on the same machine.
public enum DefaultLog {
    /// The platforms whose conventions differ.
    public enum Platform: Sendable, Equatable, CaseIterable {
        /// `$XDG_DATA_HOME/rewind/rewind.db`, else `~/.local/share/rewind/rewind.db`.
        case linux
        /// `~/Library/Application Support/Rewind/rewind.db`.
        case macOS
        /// The app container's `Library/Application Support/Rewind/rewind.db` (iOS, tvOS,
        /// watchOS, visionOS), excluded from backup.
        case appContainer

        /// The platform this code runs on.
        public static var current: Platform {
            #if os(macOS)
            return .macOS
            #elseif canImport(Darwin)
            return .appContainer
            #else
            return .linux
            #endif
        }
    }

    /// The default log's path: `$REWIND_DB` when set, else the platform's place under `HOME`
    /// (an app's container on iOS, where `NSHomeDirectory()` is the container).
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment,
                            platform: Platform = .current) -> String {
        if let path = environment["REWIND_DB"], !path.isEmpty { return path }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        switch platform {
        case .linux:
            let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
            return dataHome + "/rewind/rewind.db"
        case .macOS, .appContainer:
            return home + "/Library/Application Support/Rewind/rewind.db"
        }
    }

    /// Creates the log's folder when missing; in an app container it is excluded from backup
    /// (a debugging log has no place in the user's iCloud backup).
    public static func prepareFolder(for path: String, platform: Platform = .current) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // No `#if`: swift-corelibs-foundation declares the same API (and ignores the flag), so
        // this path is compiled and run on Linux too; only a device shows the flag kept.
        if platform == .appContainer {
            var values = URLResourceValues()
            values.isExcludedFromBackup = true
            var excluded = folder
            try excluded.setResourceValues(values)
        }
    }
}
