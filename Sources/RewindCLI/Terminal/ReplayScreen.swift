import Foundation
import RewindJSON
import RewindLog
import RewindReplay

/// Draws the interactive `rewind replay`: a title row, the action list on the left, the selected
/// action's diff (or the state) on the right, a message/prompt row and a row of keys.
struct ReplayScreen {
    let timeline: Timeline
    /// The right pane's lines, kept for the last (seq, pane, pointer) drawn: stepping back and
    /// forth over the same event does not rebuild it.
    private var cache: (key: String, lines: [String])?

    init(timeline: Timeline) {
        self.timeline = timeline
    }

    static let keysHelp = "↑↓/jk step  PgUp/PgDn  g/G first/last  : jump  space play  +/- speed  / search  n next  f filter  p pointer  tab diff/state  q quit"

    /// The whole frame for a `rows`×`columns` terminal; throws what reading the log throws.
    mutating func frame(_ browser: ReplayBrowser, rows: Int, columns: Int) throws -> String {
        let rows = max(rows, 5)
        let columns = max(columns, 20)
        let bodyHeight = rows - 3
        let listWidth = min(max(24, columns * 2 / 5), 48)
        let detailWidth = columns - listWidth - 1
        var lines: [String] = []

        var title = " " + TerminalText.escaped(browser.sessionTitle)
        if let event = browser.current {
            title += "  seq \(event.seq)  (\(browser.visible.firstIndex { browser.events[$0].seq == event.seq }.map { $0 + 1 } ?? 0)/\(browser.visible.count))"
        }
        if let filter = browser.filter { title += "  filter " + TerminalText.escaped(filter) }
        title += browser.playing ? "  ▶ playing \(Self.speedText(browser.speed))/s" : "  ❚❚ \(Self.speedText(browser.speed))/s"
        lines.append(ANSI.reverse + Self.fit(title, columns, pad: true) + ANSI.reset)

        let list = listLines(browser, height: bodyHeight, width: listWidth)
        let detail = try detailLines(browser, height: bodyHeight, width: detailWidth)
        for row in 0..<bodyHeight {
            lines.append(list[row] + ANSI.dim + "│" + ANSI.reset + detail[row])
        }

        if let prompt = browser.prompt {
            lines.append(Self.fit(prompt.rawValue + TerminalText.escaped(browser.typed), columns) + "\u{1B}[?25h")
        } else if let message = browser.message {
            lines.append(ANSI.yellow + Self.fit(TerminalText.escaped(message), columns) + ANSI.reset)
        } else {
            lines.append("")
        }
        lines.append(ANSI.dim + Self.fit(Self.keysHelp, columns) + ANSI.reset)
        // Home, then every row cleared to its end; the cursor is hidden unless a prompt shows it.
        let cursor = browser.prompt == nil ? "\u{1B}[?25l" : ""
        return cursor + "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n")
    }

    private func listLines(_ browser: ReplayBrowser, height: Int, width: Int) -> [String] {
        let visible = browser.visible
        let selected = browser.visible.firstIndex { browser.events[$0].seq == browser.current?.seq } ?? 0
        let top = max(0, min(selected - height / 2, visible.count - height))
        var lines: [String] = []
        for row in 0..<height {
            let position = top + row
            guard position < visible.count else {
                lines.append(String(repeating: " ", count: width))
                continue
            }
            let event = browser.events[visible[position]]
            let seq = String(event.seq)
            let mark = event.coalesced ? " c" : "  "
            var text = String(repeating: " ", count: max(0, 7 - seq.count)) + seq + " " + TerminalText.escaped(event.actionType)
            text = Self.fit(text, width - mark.count, pad: true) + mark
            lines.append(position == selected ? ANSI.reverse + text + ANSI.reset : text)
        }
        return lines
    }

    private mutating func detailLines(_ browser: ReplayBrowser, height: Int, width: Int) throws -> [String] {
        var content: [String]
        if let event = browser.current {
            let key = "\(event.seq) \(browser.pane) \(browser.pointer)"
            if let cache, cache.key == key {
                content = cache.lines
            } else {
                content = try Self.content(event, browser: browser, timeline: timeline)
                cache = (key, content)
            }
        } else {
            content = ["", " no action matches the filter"]
        }
        var lines: [String] = []
        for row in 0..<height {
            guard row < content.count else {
                lines.append("")
                continue
            }
            var text = content[row]
            if row == height - 1 && content.count > height { text = " … \(content.count - height + 1) more lines" }
            let cut = Self.fit(text, width)
            if row == 0 {
                lines.append(ANSI.bold + cut + ANSI.reset)
            } else if let color = Self.color(of: text) {
                lines.append(color + cut + ANSI.reset)
            } else {
                lines.append(cut)
            }
        }
        return lines
    }

    /// The right pane's lines for `event`: a heading, then the diff or the state.
    static func content(_ event: LogEvent, browser: ReplayBrowser, timeline: Timeline) throws -> [String] {
        switch browser.pane {
        case .diff:
            var lines = [" " + TerminalText.escaped(event.actionType) + "  " + TerminalText.escaped(LogCommand.summary(of: event.action))]
            guard event.seq > 0 else { return lines + ["", " the initial state (tab shows it)"] }
            if let site = event.site { lines.append(" sent at " + TerminalText.escaped(site.description)) }
            lines.append(" diff \(event.seq - 1) → \(event.seq)" + (event.coalesced ? "  (coalesced)" : ""))
            let changes = try ReplayAccess.cli { () throws(ReplayError) in try timeline.diff(from: event.seq - 1, to: event.seq) }.changes
            if changes.isEmpty { return lines + [" (no change)"] }
            return lines + changes.map { " " + ChangeRenderer().line($0) }
        case .state:
            let pointer = TerminalText.escaped(browser.pointer.description)
            let heading = " state after \(event.seq)" + (browser.pointer.isRoot ? "" : " at \(pointer)")
            let state = try ReplayAccess.cli { () throws(ReplayError) in try timeline.state(at: event.seq) }
            guard let value = browser.pointer.resolve(in: state) else {
                return [heading, "", " nothing at \(pointer) in this state"]
            }
            // As `rewind state` prints it: terminal-safe JSON, then escaped as every line is.
            let text = String(decoding: value.serializedBytes(.terminalPretty), as: UTF8.self)
            return [heading] + text.split(separator: "\n", omittingEmptySubsequences: false).map { " " + TerminalText.escaped(String($0)) }
        }
    }

    /// Diff lines are coloured by their sign.
    private static func color(of line: String) -> String? {
        if line.hasPrefix(" + ") { return ANSI.green }
        if line.hasPrefix(" - ") { return ANSI.red }
        if line.hasPrefix(" ~ ") { return ANSI.yellow }
        return nil
    }

    /// `text` cut to `width` columns with `…`, padded with spaces to it when `pad`.
    static func fit(_ text: String, _ width: Int, pad: Bool = false) -> String {
        TerminalText.fit(text, width, pad: pad)
    }

    static func speedText(_ speed: Double) -> String {
        speed == speed.rounded() ? String(Int(speed)) : String(speed)
    }
}
