import RewindJSON
import RewindWire

extension InspectorRequest {
    /// The request with `id` in place of its own.
    func with(id: JSONValue) -> InspectorRequest {
        switch self {
        case .sessions: return .sessions(id: id)
        case .sessionPage(var page):
            page.id = id
            return .sessionPage(page)
        case .subscribe(_, let session): return .subscribe(id: id, session: session)
        case .unsubscribe(_, let session): return .unsubscribe(id: id, session: session)
        case .events(_, let session, let from, let limit, let glob, let text):
            return .events(id: id, session: session, from: from, limit: limit, typeGlob: glob, text: text)
        case .state(_, let session, let seq, let path): return .state(id: id, session: session, seq: seq, path: path)
        case .diff(_, let session, let from, let to): return .diff(id: id, session: session, from: from, to: to)
        case .blame(_, let session, let path): return .blame(id: id, session: session, path: path)
        case .compare(_, let session, let with, let seq): return .compare(id: id, session: session, with: with, seq: seq)
        case .find(var find):
            find.id = id
            return .find(find)
        case .command(let command):
            var copy = command
            copy.id = id
            return .command(copy)
        }
    }
}
