import CLibWebSockets
import Foundation

/// libwebsockets' process-wide log level: silent, since the wrapper reports what matters as typed
/// errors and close codes, unless `REWIND_LWS_LOG` holds an lws level mask (e.g. `7` for errors,
/// warnings and notices) for debugging.
enum LWSLog {
    private static let once: Void = {
        let level = ProcessInfo.processInfo.environment["REWIND_LWS_LOG"].flatMap { Int32($0) } ?? 0
        lws_set_log_level(level, nil)
    }()

    static func configure() {
        once
    }
}
