import ArgumentParser
import Foundation
import RewindSupport

/// `--ca-file`, shared by the commands that connect to `rewind serve`: a CA certificate to trust
/// for a `wss://`/`https://` server besides the system's (default: `$REWIND_CA_FILE`).
struct CAFileOption: ParsableArguments {
    @Option(name: .customLong("ca-file"),
            help: ArgumentHelp("A CA certificate (PEM or DER) to trust for a wss:// or https:// server with a private certificate (default: $REWIND_CA_FILE).",
                               valueName: "file"))
    var path: String?

    /// The file to trust, checked: one sentence naming it when it cannot be read or is no
    /// certificate; `nil` when neither the option nor the variable names one.
    func resolved() throws -> String? {
        let given = path ?? ProcessInfo.processInfo.environment["REWIND_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let given else { return nil }
        let expanded = (given as NSString).expandingTildeInPath
        if case .failure(let problem) = TrustedCAFile.load(expanded) {
            throw CLIError("\(path == nil ? "REWIND_CA_FILE: " : "--ca-file: ")\(problem.message)", code: 2)
        }
        return expanded
    }
}
