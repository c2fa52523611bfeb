import Foundation
import RewindJSON
import RewindLog

/// What the interactive `rewind replay` shows and how keys change it; drawing is
/// ``ReplayScreen``'s, the terminal ``ReplayInteractive``'s.
struct ReplayBrowser {
    enum Pane { case diff, state }

    /// A line being typed at the bottom of the screen.
    enum Prompt: String {
        case jump = ":"
        case search = "/"
        case filter = "filter (type glob, empty for all): "
        case pointer = "pointer (JSON Pointer, empty for the whole state): "
    }

    let events: [LogEvent]
    let sessionTitle: String
    /// Indices into `events` that the filter keeps.
    private(set) var visible: [Int]
    /// Position in `visible` of the selected event.
    private(set) var selected = 0
    var pane = Pane.diff
    var pointer = JSONPointer.root
    var filter: String?
    var search: String?
    var playing = false
    /// Events per second while playing.
    private(set) var speed = 2.0
    var prompt: Prompt?
    var typed = ""
    /// A one-line note for the user (an error, "not found"…), cleared by the next key.
    var message: String?
    var quit = false
    /// The number of list rows on screen, for PgUp/PgDn.
    var pageSize = 20

    static let speeds: [Double] = [0.5, 1, 2, 5, 10, 20, 50, 100]

    init(events: [LogEvent], sessionTitle: String) {
        self.events = events
        self.sessionTitle = sessionTitle
        visible = Array(events.indices)
    }

    /// The selected event, `nil` when the filter keeps none.
    var current: LogEvent? {
        visible.indices.contains(selected) ? events[visible[selected]] : nil
    }

    /// Applies one key.
    mutating func press(_ key: ReplayKey) {
        message = nil
        if prompt != nil {
            typing(key)
            return
        }
        switch key {
        case .up, .character("k"): move(by: -1)
        case .down, .character("j"): move(by: 1)
        case .pageUp: move(by: -pageSize)
        case .pageDown: move(by: pageSize)
        case .home, .character("g"): select(0)
        case .end, .character("G"): select(visible.count - 1)
        case .character(" "):
            playing.toggle()
            if playing && selected >= visible.count - 1 { select(0) }
        case .character("+"): speed = Self.speeds.first { $0 > speed } ?? speed
        case .character("-"): speed = Self.speeds.last { $0 < speed } ?? speed
        case .tab: pane = pane == .diff ? .state : .diff
        case .character("n"):
            if let search { find(search) } else { message = "no search yet: press / to search" }
        case .character(":"): begin(.jump)
        case .character("/"): begin(.search)
        case .character("f"): begin(.filter, filter ?? "")
        case .character("p"): begin(.pointer, pointer.description)
        case .character("q"), .interrupt: quit = true
        default: break
        }
    }

    /// One step of playing: the next event, stopping at the last.
    mutating func tick() {
        guard playing else { return }
        if selected >= visible.count - 1 {
            playing = false
            message = "end of the recording"
        } else {
            move(by: 1)
        }
    }

    private mutating func move(by delta: Int) {
        select(selected + delta)
    }

    private mutating func select(_ position: Int) {
        selected = max(0, min(position, visible.count - 1))
    }

    private mutating func begin(_ kind: Prompt, _ initial: String = "") {
        playing = false
        prompt = kind
        typed = initial
    }

    private mutating func typing(_ key: ReplayKey) {
        switch key {
        case .escape, .interrupt:
            prompt = nil
        case .backspace:
            if !typed.isEmpty { typed.removeLast() }
        case .character(let character):
            typed.append(character)
        case .enter:
            let kind = prompt
            prompt = nil
            if let kind { submit(kind, typed.trimmingCharacters(in: .whitespaces)) }
        default:
            break
        }
    }

    private mutating func submit(_ kind: Prompt, _ text: String) {
        switch kind {
        case .jump:
            guard let seq = Int64(text) else {
                message = "'\(text)' is not a seq number"
                return
            }
            if let position = visible.firstIndex(where: { events[$0].seq == seq }) {
                select(position)
            } else {
                message = "seq \(seq) is not in the list (outside --from/--to, or hidden by the filter)"
            }
        case .search:
            guard !text.isEmpty else { return }
            search = text
            find(text)
        case .filter:
            applyFilter(text.isEmpty ? nil : text)
        case .pointer:
            do {
                pointer = try JSONPointer(text)
                pane = .state
            } catch {
                message = "'\(text)' is not a JSON Pointer: \(error.message)"
            }
        }
    }

    /// Selects the next event after the selected one (wrapping) whose type or action contains
    /// `text`, ignoring case.
    private mutating func find(_ text: String) {
        let needle = text.lowercased()
        guard !visible.isEmpty else { return }
        for step in 1...visible.count {
            let position = (selected + step) % visible.count
            let event = events[visible[position]]
            if event.actionType.lowercased().contains(needle) || event.action.serialized().lowercased().contains(needle) {
                select(position)
                return
            }
        }
        message = "'\(text)' is in no action"
    }

    /// Keeps the events whose type matches `glob`; the selection stays on the same event, or
    /// moves to the next one kept.
    private mutating func applyFilter(_ glob: String?) {
        let seq = current?.seq ?? 0
        let kept = events.indices.filter { index in glob.map { globMatches($0, events[index].actionType) } ?? true }
        guard !kept.isEmpty else {
            message = "no action type matches '\(glob ?? "")'; the filter is unchanged"
            return
        }
        filter = glob
        visible = kept
        select(visible.firstIndex { events[$0].seq >= seq } ?? visible.count - 1)
    }
}
