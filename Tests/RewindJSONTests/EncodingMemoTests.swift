import Foundation
import RewindJSON
import Testing
import RewindTestSupport
import RewindSupport

/// `JSONValueEncoder.Memo`: an encoder called on successive versions of a state reuses the
/// encoding of every part that did not change, and its result is always what a plain encoding
/// gives, member order and non-finite reports included.
@Suite("Encoding memo", .ownThreads)
struct EncodingMemoTests {
    struct Card: Codable, Equatable {
        var id: Int
        var text: String
        var done: Bool
        var score: Double?
    }

    struct Column: Codable, Equatable {
        var name: String
        var cards: [Card]
    }

    enum Mode: Codable, Equatable {
        case idle
        case editing(card: Int, draft: String)
        case filtering([String])
    }

    enum Lane: String, Codable, CaseIterable {
        case todo, doing, done
    }

    /// A single-value wrapper, as identifiers and property wrappers are.
    struct Wrapped: Codable, Equatable {
        var numbers: [Int]

        init(numbers: [Int]) { self.numbers = numbers }
        init(from decoder: any Decoder) throws { numbers = try decoder.singleValueContainer().decode([Int].self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(numbers)
        }
    }

    /// A hand-written `encode(to:)` with nested containers and a super encoder.
    struct Custom: Codable, Equatable {
        var label: String
        var points: [Card]

        enum Keys: String, CodingKey { case meta, points, base }
        enum MetaKeys: String, CodingKey { case label, count }

        init(label: String, points: [Card]) {
            self.label = label
            self.points = points
        }

        init(from decoder: any Decoder) throws { fatalError("not decoded in these tests") }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
            try meta.encode(label, forKey: .label)
            try meta.encode(points.count, forKey: .count)
            var list = container.nestedUnkeyedContainer(forKey: .points)
            for point in points { try list.encode(point) }
            try points.first.encode(to: container.superEncoder(forKey: .base))
        }
    }

    struct Board: Codable, Equatable {
        var title = "board"
        var columns: [Column] = []
        var byKey: [String: Card] = [:]
        var lanes: [Lane: Int] = [:]
        var mode = Mode.idle
        var tags: Set<String> = []
        var wrapped = Wrapped(numbers: [])
        var custom = Custom(label: "c", points: [])
        var ratio = 0.5
        var matrix: [[Card]] = []
    }

    /// One random edit of the kinds an app makes: toggles, appends, removals, renames,
    /// dictionary inserts, enum changes and non-finite numbers. Returns the member it touched.
    static func edit(_ board: inout Board, _ random: inout SplitMix64) -> String {
        func card() -> Card {
            Card(id: random.int(0..<1_000), text: "card \(random.int(0..<100))", done: random.chance(0.5),
                 score: random.chance(0.2) ? random.pick([1.5, .nan, .infinity, -0.0, 3]) : nil)
        }
        switch random.int(0..<14) {
        case 0: board.title = "board \(random.int(0..<50))"
        case 1: board.columns.append(Column(name: "column \(board.columns.count)", cards: (0..<random.int(0..<5)).map { _ in card() }))
        case 2 where !board.columns.isEmpty:
            let c = random.int(0..<board.columns.count)
            board.columns[c].cards.append(card())
        case 3 where !board.columns.isEmpty:
            let c = random.int(0..<board.columns.count)
            if !board.columns[c].cards.isEmpty {
                board.columns[c].cards[random.int(0..<board.columns[c].cards.count)].done.toggle()
            }
        case 4 where !board.columns.isEmpty: board.columns.remove(at: random.int(0..<board.columns.count))
        case 2, 3, 4: break
        case 5: board.byKey["k\(random.int(0..<20))"] = card(); return "byKey"
        case 6: board.byKey["k\(random.int(0..<20))"] = nil; return "byKey"
        case 7: board.lanes[random.pick(Lane.allCases)] = random.int(0..<9); return "lanes"
        case 8: board.mode = random.pick([.idle, .editing(card: random.int(0..<5), draft: "d"), .filtering(["a", "b"])]); return "mode"
        case 9: board.tags.insert("tag \(random.int(0..<10))"); return "tags"
        case 10: board.wrapped.numbers.append(random.int(0..<100)); return "wrapped"
        case 11: board.custom.points.insert(card(), at: 0); return "custom"
        case 12: board.ratio = random.pick([0.25, .nan, 2, -.infinity]); return "ratio"
        default:
            if board.matrix.isEmpty || random.chance(0.3) {
                board.matrix.append([card()])
            } else {
                let row = random.int(0..<board.matrix.count)
                board.matrix[row].append(card())
            }
            return "matrix"
        }
        return "columns"
    }

    static func sameBits(_ a: JSONValue, _ b: JSONValue) -> Bool {
        withUnsafeBytes(of: a) { x in withUnsafeBytes(of: b) { y in x.elementsEqual(y) } }
    }

    /// The members whose cards (or, for `mode`, the member itself) a memo reuses when an edit
    /// leaves them alone. Collections are walked every time (no copy of one is kept), so their
    /// own JSON arrays and objects are new; the structs and enums inside are what is reused.
    /// `custom` encodes its cards through a nested container, which is not remembered.
    static let reusedMembers = ["columns", "byKey", "mode", "matrix"]

    /// The JSON objects of cards in `value`, in document order.
    static func cards(in value: JSONValue) -> [JSONValue] {
        switch value {
        case .array(let elements): return elements.flatMap { cards(in: $0) }
        case .object(let object):
            if object.keys.starts(with: ["id", "text", "done"]) { return [value] }
            return object.values.flatMap { cards(in: $0) }
        default: return []
        }
    }

    @Test("over 800 random edits the memo's result is the plain encoding, in order and with the same reports, and unchanged members are reused",
          arguments: [1, 2, 3] as [UInt64])
    func matchesThePlainEncoding(seed: UInt64) throws {
        var random = SplitMix64(testCase: seed)
        let encoder = JSONValueEncoder()
        let memo = JSONValueEncoder.Memo()
        var board = Board()
        var previous = try encoder.encodeReportingNonFinite(board, reusing: memo).value
        var reused = 0
        for step in 0..<800 {
            let touched = Self.edit(&board, &random)
            let plain = try encoder.encodeReportingNonFinite(board)
            let remembered = try encoder.encodeReportingNonFinite(board, reusing: memo)
            try #require(remembered.value.serialized() == plain.value.serialized(), "step \(step)")
            #expect(remembered.nonFinitePointers == plain.nonFinitePointers, "step \(step)")
            for member in Self.reusedMembers where member != touched {
                let before = try #require(previous.objectValue?[member])
                let after = try #require(remembered.value.objectValue?[member])
                if member == "mode" {
                    #expect(Self.sameBits(before, after), "step \(step): mode was not touched but was encoded again")
                    reused += 1
                    continue
                }
                let (old, new) = (Self.cards(in: before), Self.cards(in: after))
                try #require(old.count == new.count)
                for (index, card) in new.enumerated() {
                    // A card with a non-finite score is encoded again, for the report.
                    if card.serialized().contains("\"score\":\"") { continue }
                    #expect(Self.sameBits(old[index], card), "step \(step): a card of \(member) was not touched but was encoded again")
                    reused += 1
                }
            }
            previous = remembered.value
        }
        #expect(reused > 800 * 10)
    }

    @Test("an unchanged element keeps the previous encoding's storage; the changed one does not")
    func unchangedPartsShareStorage() throws {
        let encoder = JSONValueEncoder()
        let memo = JSONValueEncoder.Memo()
        var column = Column(name: "all", cards: (0..<100).map { Card(id: $0, text: "card \($0)", done: false) })
        let first = try encoder.encodeReportingNonFinite(column, reusing: memo).value
        column.cards[50].done = true
        let second = try encoder.encodeReportingNonFinite(column, reusing: memo).value
        let before = try #require(first.objectValue?["cards"]?.arrayValue)
        let after = try #require(second.objectValue?["cards"]?.arrayValue)
        #expect(after[50] == ["id": 50, "text": "card 50", "done": true])
        #expect(!Self.sameBits(before[50], after[50]))
        let shared = (0..<100).filter { Self.sameBits(before[$0], after[$0]) }
        #expect(shared == (0..<100).filter { $0 != 50 })

        // Without the memo nothing is shared: the check above can tell.
        let plain = try #require(try encoder.encode(column).objectValue?["cards"]?.arrayValue)
        #expect(!Self.sameBits(plain[0], after[0]))
    }

    @Test("the memo keeps no copy of a collection, so the app's next change to it is made in place")
    func collectionsStayUnique() throws {
        let encoder = JSONValueEncoder()
        let memo = JSONValueEncoder.Memo()
        var board = Board()
        board.columns = [Column(name: "a", cards: (0..<20).map { Card(id: $0, text: "card \($0)", done: false) })]
        board.matrix = [[Card(id: 1, text: "m", done: true)]]
        for _ in 0..<3 {
            _ = try encoder.encodeReportingNonFinite(board, reusing: memo)
            let columns = board.columns.withUnsafeBufferPointer { $0.baseAddress }
            let cards = board.columns[0].cards.withUnsafeBufferPointer { $0.baseAddress }
            board.columns[0].cards[3].done.toggle()
            #expect(board.columns.withUnsafeBufferPointer { $0.baseAddress } == columns)
            #expect(board.columns[0].cards.withUnsafeBufferPointer { $0.baseAddress } == cards)
        }
    }

    final class Counter: Codable, @unchecked Sendable {
        var count: Int
        init(count: Int) { self.count = count }
    }

    struct Holder: Codable {
        var name = "holder"
        var counter = Counter(count: 0)
        var counters = [Counter(count: 10), Counter(count: 20)]
        var cards = (0..<10).map { Card(id: $0, text: "t", done: false) }
        var nested = Nested()
    }

    struct Nested: Codable {
        var inner = Counter(count: 100)
        var label = "nested"
        var reader = Reader()
    }

    /// Reads through a class instance without handing it to the encoder.
    struct Reader: Codable {
        var box = Counter(count: 7)
        enum Keys: CodingKey { case count }
        init() {}
        init(from decoder: any Decoder) throws { fatalError("not decoded in these tests") }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(box.count, forKey: .count)
        }
    }

    @Test("a class instance changed behind the same reference is encoded again")
    func classesAreNotReused() throws {
        let encoder = JSONValueEncoder()
        let memo = JSONValueEncoder.Memo()
        let holder = Holder()
        let first = try encoder.encodeReportingNonFinite(holder, reusing: memo).value
        holder.counter.count = 1
        holder.counters[1].count = 21
        holder.nested.inner.count = 101
        holder.nested.reader.box.count = 8
        let second = try encoder.encodeReportingNonFinite(holder, reusing: memo).value
        #expect(second.serialized() == (try encoder.encode(holder)).serialized())
        #expect(second.objectValue?["counter"] == ["count": 1])
        #expect(second.objectValue?["counters"] == [["count": 10], ["count": 21]])
        #expect(second.objectValue?["nested"]?.objectValue?["inner"] == ["count": 101])
        #expect(second.objectValue?["nested"]?.objectValue?["reader"] == ["count": 8])
        // The value-typed parts beside them are still reused.
        let cardsBefore = try #require(first.objectValue?["cards"]?.arrayValue)
        let cardsAfter = try #require(second.objectValue?["cards"]?.arrayValue)
        #expect(zip(cardsBefore, cardsAfter).allSatisfy { Self.sameBits($0, $1) })
    }

    @Test("a non-finite number in an unchanged part is reported every time")
    func nonFiniteReportsRepeat() throws {
        let encoder = JSONValueEncoder()
        let memo = JSONValueEncoder.Memo()
        var column = Column(name: "c", cards: [Card(id: 1, text: "a", done: false, score: .nan), Card(id: 2, text: "b", done: false)])
        let first = try encoder.encodeReportingNonFinite(column, reusing: memo)
        column.cards[1].done = true
        let second = try encoder.encodeReportingNonFinite(column, reusing: memo)
        #expect(first.nonFinitePointers == ["/cards/0/score"])
        #expect(second.nonFinitePointers == ["/cards/0/score"])
    }

    struct Fragile: Codable {
        var fails = false
        var cards = (0..<5).map { Card(id: $0, text: "x", done: false) }

        enum Keys: CodingKey { case cards }
        init() {}
        init(from decoder: any Decoder) throws { fatalError("not decoded in these tests") }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(cards, forKey: .cards)
            if fails { throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "fails")) }
        }
    }

    @Test("an encoding that throws leaves the memo as the last successful one left it")
    func failureKeepsTheMemo() throws {
        let encoder = JSONValueEncoder()
        let memo = JSONValueEncoder.Memo()
        var value = [Fragile()]
        _ = try encoder.encodeReportingNonFinite(value, reusing: memo)
        value[0].cards[2].done = true
        value[0].fails = true
        #expect(throws: EncodingError.self) { try encoder.encodeReportingNonFinite(value, reusing: memo) }
        value[0].fails = false
        value[0].cards[3].text = "changed"
        let after = try encoder.encodeReportingNonFinite(value, reusing: memo).value
        #expect(after.serialized() == (try encoder.encode(value)).serialized())
    }
}
