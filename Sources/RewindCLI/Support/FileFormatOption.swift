import ArgumentParser
import RewindLog

/// `--format jsonl|redux-devtools` for `import` and `export`.
enum FileFormatOption: String, ExpressibleByArgument, CaseIterable {
    case jsonl
    case reduxDevTools = "redux-devtools"

    /// The log's name for the format.
    var format: ImportFormat {
        switch self {
        case .jsonl: .jsonl
        case .reduxDevTools: .reduxDevTools
        }
    }
}
