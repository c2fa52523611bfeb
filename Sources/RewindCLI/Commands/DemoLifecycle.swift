import Dispatch
import Foundation
import RewindDemo

/// Runs a ``DemoRunner`` for `rewind demo`: prints the sessions, stops on --duration, SIGINT or
/// SIGTERM (flushing and ending the recordings), prints what each app recorded and exits 0.
@MainActor
enum DemoLifecycle {
    private static var runner: DemoRunner?
    private static var signalSources: [DispatchSourceSignal] = []

    static func start(_ runner: DemoRunner, label: String, rate: Double, seed: UInt64, duration: Double?) {
        self.runner = runner
        Interrupts.holdUntilCaught()
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { finish() } }
            source.resume()
            signalSources.append(source)
        }
        let started = runner.start()
        let rateText = rate == rate.rounded() ? String(Int(rate)) : String(rate)
        var lines = "rewind demo: \(started.count) app\(started.count == 1 ? "" : "s"), \(rateText) actions/s each, seed \(seed); "
        lines += duration.map { "stopping after \($0)s\n" } ?? "Ctrl-C stops\n"
        let width = started.map(\.app.rawValue.count).max() ?? 0
        for app in started {
            lines += "\(app.app.rawValue.padding(toLength: width, withPad: " ", startingAt: 0))  session \(app.session)  → \(label)\n"
        }
        write(lines, to: .standardOutput)
        if let duration {
            Task { @MainActor in
                try? await Task.sleep(for: .milliseconds(Int64(duration * 1000)))
                finish()
            }
        }
        if runner.connectedToServer != nil {
            // Give the connections a moment; then say once if the server is not there.
            Task { @MainActor in
                try? await Task.sleep(for: .seconds(2))
                if let runner = self.runner, runner.connectedToServer == false {
                    let why = runner.serverConnectFailure.map { failure in
                        // libwebsockets' words for a refused upgrade; a token is the usual cause.
                        failure.contains("not 101")
                            ? " (it refused the connection: a missing or wrong --token / REWIND_TOKEN?)"
                            : " (\(failure))"
                    } ?? ""
                    write("rewind demo: cannot reach the server at \(label)\(why); the apps keep recording and reconnect when it is up\n",
                          to: .standardError)
                }
            }
        }
    }

    /// Stops everything once, prints the summary and exits 0.
    static func finish() {
        guard let runner else { return }
        self.runner = nil
        let summaries = runner.stop()
        var lines = "rewind demo: stopped\n"
        let width = summaries.map(\.app.rawValue.count).max() ?? 0
        for summary in summaries {
            lines += "\(summary.app.rawValue.padding(toLength: width, withPad: " ", startingAt: 0))  \(summary.events) events recorded"
            if summary.undelivered > 0 { lines += ", \(summary.undelivered) not delivered (the server is away)" }
            lines += "  (session \(summary.session))\n"
        }
        write(lines, to: .standardOutput)
        exit(0)
    }

    /// Writes `text` escaped but for its line breaks: a failure's reason comes from the network.
    private static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(TerminalText.escapedLines(text).utf8))
    }
}
