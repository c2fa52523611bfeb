import Foundation
import RewindJSON

/// Writes one session as a file in an ``ImportFormat``, streaming: it walks the session once,
/// from the keyframe at seq 0 through every forward patch applied in place, and hands the
/// output on in chunks, so a session of any length needs the memory of one state.
///
/// A session that was imported is written the way its ``ImportMeta`` says, so exporting an
/// import in its own format gives the file back (see ``JSONLImport`` and
/// ``ReduxDevToolsImport`` for what that covers).
///
/// ```swift
/// let exporter = SessionExporter(reader: reader, session: try reader.session(named: "latest"))
/// try exporter.write(.jsonl) { chunk in handle.write(Data(chunk)) }
/// ```
public struct SessionExporter {
    /// The log being read.
    public let reader: LogReader
    /// The session being written; its last seq at the time it was read bounds the export.
    public let session: SessionInfo
    /// How many events are read per query.
    public var pageSize = 1_000
    /// Called now and then with the steps done and the steps in all (one per event, two for
    /// Redux DevTools, which lists the actions and the states apart).
    public var progress: ((_ done: Int, _ total: Int) -> Void)?

    /// An exporter of `session`.
    public init(reader: LogReader, session: SessionInfo) {
        self.reader = reader
        self.session = session
    }

    /// Writes the session in `format`, handing the bytes to `output` in order.
    ///
    /// Throws ``LogError`` when the log cannot be read, ``ExportError`` when a stored patch does
    /// not rebuild its state, and whatever `output` throws.
    public func write(_ format: ImportFormat, to output: @escaping ([UInt8]) throws -> Void) throws {
        try check(format)
        var buffer = ExportBuffer(output: output)
        switch format {
        case .jsonl: try writeJSONL(into: &buffer)
        case .reduxDevTools: try writeReduxDevTools(into: &buffer)
        }
        try buffer.flush()
    }

    /// Throws the ``ExportError`` that `write` would throw before writing anything, when the
    /// session cannot be written in `format` at all: a Redux DevTools export needs at least the
    /// init action. (Damage found on the way, a patch that does not apply, shows only then.)
    public func check(_ format: ImportFormat) throws(ExportError) {
        if format == .reduxDevTools && session.lastSeq == nil {
            throw ExportError(session: session.id, seq: 0, message: "the session has no events, and a Redux DevTools export needs the init action")
        }
    }

    /// What the session remembers of its import, when it was imported from `format`.
    func importMeta(for format: ImportFormat) -> ImportMeta? {
        ImportMeta(sessionMeta: session.meta).flatMap { $0.format == format ? $0 : nil }
    }

    /// Calls `body` with each event of the session and the state after it, in seq order. The
    /// state is rebuilt in place from the keyframe at seq 0.
    func forEachEvent(_ body: (LogEvent, JSONValue) throws -> Void) throws {
        guard let last = session.lastSeq else { return }
        var state = try initialState()
        var next: Int64 = 0
        while next <= last {
            let page = try reader.events(session: session.id, from: next, to: min(last, next + Int64(pageSize) - 1))
            guard !page.isEmpty else { throw ExportError(session: session.id, seq: next, message: "the event is missing") }
            for event in page {
                if event.seq > 0 { try apply(event.patch, seq: event.seq, to: &state) }
                try body(event, state)
            }
            next = page[page.count - 1].seq + 1
        }
    }

    /// Calls `body` with each state of the session, in seq order, reading only the patches.
    ///
    /// The patches are read a page at a time, and no read transaction is open while `body` runs:
    /// an output that blocks (a download nobody reads) then never keeps the log's WAL from
    /// restarting.
    func forEachState(_ body: (Int64, JSONValue) throws -> Void) throws {
        guard let last = session.lastSeq else { return }
        var state = try initialState()
        try body(0, state)
        var expected: Int64 = 1
        while expected <= last {
            let page = try reader.patches(session: session.id, from: expected, to: min(last, expected + Int64(pageSize) - 1)).all()
            guard !page.isEmpty else { break }
            for step in page {
                guard step.seq == expected else { throw ExportError(session: session.id, seq: expected, message: "the event is missing") }
                try apply(step.patch, seq: step.seq, to: &state)
                try body(step.seq, state)
                expected += 1
            }
        }
        guard expected == last + 1 else { throw ExportError(session: session.id, seq: expected, message: "the event is missing") }
    }

    private func initialState() throws -> JSONValue {
        guard let keyframe = try reader.keyframe(atOrBefore: 0, session: session.id), keyframe.seq == 0 else {
            throw ExportError(session: session.id, seq: 0, message: "the log holds no keyframe for the initial state")
        }
        return keyframe.state
    }

    private func apply(_ patch: JSONValue, seq: Int64, to state: inout JSONValue) throws {
        do {
            try state.apply(try JSONPatch(json: patch))
        } catch {
            throw ExportError(session: session.id, seq: seq, message: "its patch does not apply to the state before it (\(error))")
        }
    }

    /// Reports progress every 1,024 steps and at the end.
    func report(_ done: Int, of total: Int) {
        if done & 1023 == 0 || done == total { progress?(done, total) }
    }
}
