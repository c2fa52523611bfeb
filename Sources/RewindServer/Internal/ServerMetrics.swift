import Foundation
import RewindSupport
import RewindWebSocket

/// `GET /metrics`: what the server counts, in Prometheus' text exposition format (0.0.4), which
/// every monitoring stack reads. Off unless `rewind serve --metrics`; with a metrics token, asked
/// with `Authorization: Bearer TOKEN`.
///
/// Counters and histograms are kept here, under one lock, by the code that sees them happen
/// (ingest, the writer's completions, the hub, the senders of errors); gauges are read when a
/// scrape comes (connections, queues, the team store's feed), on the service thread.
final class ServerMetrics: @unchecked Sendable {
    static let path = "/metrics"

    /// A histogram with fixed bucket bounds (Prometheus' `le`).
    struct Histogram {
        let bounds: [Double]
        var buckets: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0

        init(bounds: [Double]) {
            self.bounds = bounds
            buckets = Array(repeating: 0, count: bounds.count)
        }

        mutating func observe(_ value: Double) {
            for (index, bound) in bounds.enumerated() where value <= bound { buckets[index] &+= 1 }
            sum += value
            count &+= 1
        }
    }

    private struct Counts {
        var eventsReceived: UInt64 = 0
        var eventsStored: UInt64 = 0
        var errorsSent: [String: UInt64] = [:]
        var inspectorsLagged: UInt64 = 0
        var appsConnected = 0
        var inspectorsConnected = 0
        var leaseChanges: UInt64 = 0
        var busMessages: UInt64 = 0
        var commit = Histogram(bounds: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5])
        var window = Histogram(bounds: [1, 2, 4, 8, 16, 32, 64, 128, 256])
    }

    private let counts = Mutex(Counts())
    /// `sqlite` or `postgres`: the `store` label of the event counters.
    let store: String

    /// Gauges read at a scrape: set once the parts they read exist.
    struct Gauges {
        var sessionsLive: () -> Int = { 0 }
        var ingestQueueDepth: () -> Int = { 0 }
        var queriesInFlight: () -> Int = { 0 }
        var traffic: () -> (received: UInt64, sent: UInt64) = { (0, 0) }
        /// On a team store: seconds the feed is behind the database's newest event, if known.
        var feedLag: (() -> Double?)?
    }

    private let gaugeReaders = Mutex(Gauges())

    init(store: String) {
        self.store = store
    }

    func setGauges(_ change: (inout Gauges) -> Void) {
        gaugeReaders.withLock(change)
    }

    // MARK: What happens

    func received(events: Int) { counts.withLock { $0.eventsReceived &+= UInt64(events) } }

    /// A batch of `events` was committed `seconds` after it was handed to the writer.
    func stored(events: Int, after seconds: Double) {
        counts.withLock { counts in
            counts.eventsStored &+= UInt64(events)
            counts.commit.observe(seconds)
            counts.window.observe(Double(events))
        }
    }

    func sentError(code: String) { counts.withLock { $0.errorsSent[code, default: 0] &+= 1 } }
    func lagged() { counts.withLock { $0.inspectorsLagged &+= 1 } }
    func appConnected(_ delta: Int) { counts.withLock { $0.appsConnected += delta } }
    func inspectorConnected(_ delta: Int) { counts.withLock { $0.inspectorsConnected += delta } }
    func leaseChanged() { counts.withLock { $0.leaseChanges &+= 1 } }
    func busMessage() { counts.withLock { $0.busMessages &+= 1 } }

    // MARK: The exposition

    /// The text a scrape gets.
    func render() -> String {
        let counts = self.counts.withLock { $0 }
        let gauges = gaugeReaders.withLock { $0 }
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        func sample(_ name: String, _ value: Double, _ labels: [(String, String)] = []) {
            let labelText = labels.isEmpty ? "" : "{" + labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",") + "}"
            out += name + labelText + " " + Self.number(value) + "\n"
        }
        family("rewind_events_received_total", "counter", "Events apps sent that passed their checks and went to the log.")
        sample("rewind_events_received_total", Double(counts.eventsReceived), [("store", store)])
        family("rewind_events_stored_total", "counter", "Events the log committed.")
        sample("rewind_events_stored_total", Double(counts.eventsStored), [("store", store)])
        family("rewind_sessions_live", "gauge", "Sessions an app streams to this server now.")
        sample("rewind_sessions_live", Double(gauges.sessionsLive()))
        family("rewind_apps_connected", "gauge", "App connections open (/app).")
        sample("rewind_apps_connected", Double(counts.appsConnected))
        family("rewind_inspectors_connected", "gauge", "Inspector connections open (/inspect).")
        sample("rewind_inspectors_connected", Double(counts.inspectorsConnected))
        family("rewind_inspectors_lagged_total", "counter", "Times an inspector fell behind and had live events dropped.")
        sample("rewind_inspectors_lagged_total", Double(counts.inspectorsLagged))
        family("rewind_ingest_queue_depth", "gauge", "App messages waiting for the ingest queue.")
        sample("rewind_ingest_queue_depth", Double(gauges.ingestQueueDepth()))
        family("rewind_query_queue_depth", "gauge", "Inspector requests being answered or waiting.")
        sample("rewind_query_queue_depth", Double(gauges.queriesInFlight()))
        histogram("rewind_commit_seconds", "From a batch handed to the log's writer to its commit.", counts.commit, into: &out)
        histogram("rewind_writer_window_events", "Events in each batch handed to the log's writer.", counts.window, into: &out)
        family("rewind_errors_sent_total", "counter", "Error messages sent to apps and inspectors, by code.")
        for (code, count) in counts.errorsSent.sorted(by: { $0.key < $1.key }) { sample("rewind_errors_sent_total", Double(count), [("code", code)]) }
        let traffic = gauges.traffic()
        family("rewind_received_bytes_total", "counter", "WebSocket bytes received.")
        sample("rewind_received_bytes_total", Double(traffic.received))
        family("rewind_sent_bytes_total", "counter", "WebSocket message bytes sent.")
        sample("rewind_sent_bytes_total", Double(traffic.sent))
        if let feedLag = gauges.feedLag {
            family("rewind_lease_changes_total", "counter", "Sessions this instance took or gave up on the team store.")
            sample("rewind_lease_changes_total", Double(counts.leaseChanges))
            family("rewind_bus_messages_total", "counter", "Messages this instance read from the database's bus (LISTEN/NOTIFY).")
            sample("rewind_bus_messages_total", Double(counts.busMessages))
            family("rewind_feed_lag_seconds", "gauge", "How far the feed of other instances' events is behind the database.")
            sample("rewind_feed_lag_seconds", feedLag() ?? 0)
        }
        return out
    }

    private func histogram(_ name: String, _ help: String, _ histogram: Histogram, into out: inout String) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (bound, count) in zip(histogram.bounds, histogram.buckets) {
            out += "\(name)_bucket{le=\"\(Self.number(bound))\"} \(count)\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(histogram.count)\n"
        out += "\(name)_sum \(Self.number(histogram.sum))\n"
        out += "\(name)_count \(histogram.count)\n"
    }

    /// A sample value as Prometheus writes it.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value: `\`, `"` and newlines escaped.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
