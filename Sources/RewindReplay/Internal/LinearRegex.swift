import Foundation

/// A regular expression matched in time linear in the subject: the pattern is compiled to a
/// small program and run as a Thompson NFA (every thread advanced in lockstep), so no pattern
/// backtracks. `(.*a){12}!x` over 50 characters, 26.6 s in a backtracking engine, takes
/// microseconds here.
///
/// The syntax is the common core of ICU's (NSRegularExpression's) and POSIX ERE's: literals and
/// `\` escapes; `.`; classes `[a-z]`, `[^…]` with `\d \w \s` inside; `\d \D \w \W \s \S`;
/// `\p{L}`-style general categories; anchors `^ $ \A \z \Z \b \B`; groups `(…)`, `(?:…)`,
/// `(?<name>…)`; alternation `|`; quantifiers `* + ? {n} {n,} {n,m}`, greedy or lazy (`*?`);
/// flags `(?i)`, `(?s)`, `(?m)` and `(?i:…)`. What needs backtracking (back-references,
/// look-around, possessive and atomic forms) is refused in one sentence. Without `(?m)`, `^`
/// and `$` match at the ends of the text (`$` also before a final line break), and `.` matches
/// no line break without `(?s)`, as NSRegularExpression does.
struct LinearRegex: Sendable {
    /// The most instructions a pattern may compile to, counted repetitions written out.
    static let maxProgram = 4_096
    /// The largest count in `{n,m}`.
    static let maxCount = 1_000

    struct SyntaxError: Error, Sendable, Equatable {
        var message: String
    }

    fileprivate let program: [Instruction]

    init(_ pattern: String) throws(SyntaxError) {
        var parser = Parser(Array(pattern.unicodeScalars))
        let tree = try parser.parse()
        var compiler = Compiler()
        try compiler.emit(tree)
        compiler.append(.match)
        program = compiler.program
    }

    /// Whether the pattern matches somewhere in `subject`; `nil` when `deadline` passed first
    /// (checked before the match and every 1,024 characters).
    func firstMatch(in subject: [Unicode.Scalar], deadline: ContinuousClock.Instant? = nil) -> Bool? {
        if let deadline, ContinuousClock.now >= deadline { return nil }
        var runner = Runner(program: program)
        return runner.search(subject, deadline: deadline)
    }
}

// MARK: - Syntax tree

private indirect enum Node {
    case empty
    case set(CharSet)
    case sequence([Node])
    case alternation([Node])
    case group(Node)
    case repeated(Node, min: Int, max: Int?)
    case assertion(Assertion)
}

fileprivate enum Assertion: Sendable {
    case lineStart(multiline: Bool)
    case lineEnd(multiline: Bool)
    case textStart
    case textEnd
    case textEndBeforeFinalBreak
    case wordBoundary
    case notWordBoundary
}

/// A set of Unicode scalars: ranges, named classes and general categories, maybe negated or
/// case-insensitive.
fileprivate struct CharSet: Sendable {
    enum Item: Sendable {
        case range(UInt32, UInt32)
        case digit(Bool)
        case word(Bool)
        case space(Bool)
        case category(Set<String>, Bool)
        case any(dotAll: Bool)
    }

    var items: [Item] = []
    var negated = false
    var caseInsensitive = false

    static func scalar(_ scalar: Unicode.Scalar, caseInsensitive: Bool) -> CharSet {
        CharSet(items: [.range(scalar.value, scalar.value)], caseInsensitive: caseInsensitive)
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        var found = matchesItems(scalar)
        if !found, caseInsensitive {
            for variant in Self.caseVariants(of: scalar) where variant != scalar {
                if matchesItems(variant) { found = true; break }
            }
        }
        return found != negated
    }

    private func matchesItems(_ scalar: Unicode.Scalar) -> Bool {
        for item in items {
            switch item {
            case .range(let low, let high):
                if scalar.value >= low && scalar.value <= high { return true }
            case .digit(let positive):
                if (scalar.properties.generalCategory == .decimalNumber) == positive { return true }
            case .word(let positive):
                if isWord(scalar) == positive { return true }
            case .space(let positive):
                if scalar.properties.isWhitespace == positive { return true }
            case .category(let names, let positive):
                if names.contains(Self.categoryName(scalar.properties.generalCategory)) == positive { return true }
            case .any(let dotAll):
                if dotAll || !isLineBreak(scalar) { return true }
            }
        }
        return false
    }

    /// The scalar's simple upper- and lower-case forms (single scalars only).
    static func caseVariants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        var variants: [Unicode.Scalar] = []
        for mapped in [scalar.properties.lowercaseMapping, scalar.properties.uppercaseMapping, scalar.properties.titlecaseMapping] {
            let scalars = mapped.unicodeScalars
            if scalars.count == 1, let only = scalars.first { variants.append(only) }
        }
        return variants
    }

    /// The two-letter general category name (`Lu`, `Nd`, …).
    static func categoryName(_ category: Unicode.GeneralCategory) -> String {
        switch category {
        case .uppercaseLetter: "Lu"
        case .lowercaseLetter: "Ll"
        case .titlecaseLetter: "Lt"
        case .modifierLetter: "Lm"
        case .otherLetter: "Lo"
        case .nonspacingMark: "Mn"
        case .spacingMark: "Mc"
        case .enclosingMark: "Me"
        case .decimalNumber: "Nd"
        case .letterNumber: "Nl"
        case .otherNumber: "No"
        case .connectorPunctuation: "Pc"
        case .dashPunctuation: "Pd"
        case .openPunctuation: "Ps"
        case .closePunctuation: "Pe"
        case .initialPunctuation: "Pi"
        case .finalPunctuation: "Pf"
        case .otherPunctuation: "Po"
        case .mathSymbol: "Sm"
        case .currencySymbol: "Sc"
        case .modifierSymbol: "Sk"
        case .otherSymbol: "So"
        case .spaceSeparator: "Zs"
        case .lineSeparator: "Zl"
        case .paragraphSeparator: "Zp"
        case .control: "Cc"
        case .format: "Cf"
        case .surrogate: "Cs"
        case .privateUse: "Co"
        case .unassigned: "Cn"
        @unknown default: "Cn"
        }
    }

    static let categoryNames: Set<String> = [
        "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po",
        "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn",
    ]
}

/// ICU's `\w`: letters, marks, decimal digits, connector punctuation, ZWNJ and ZWJ.
private func isWord(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.value == 0x200C || scalar.value == 0x200D { return true }
    let properties = scalar.properties
    if properties.isAlphabetic { return true }
    switch properties.generalCategory {
    case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
    default: return false
    }
}

/// The line terminators `.` does not match and `$` stops before.
private func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: true
    default: false
    }
}

// MARK: - Parser

private struct Flags {
    var caseInsensitive = false
    var dotAll = false
    var multiline = false
}

private struct Parser {
    let scalars: [Unicode.Scalar]
    var position = 0
    var flags = Flags()
    var depth = 0

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    mutating func parse() throws(LinearRegex.SyntaxError) -> Node {
        let node = try alternation()
        if position < scalars.count {
            // Only an unbalanced `)` stops the top level early.
            throw fail("an unmatched ')'")
        }
        return node
    }

    private func fail(_ what: String) -> LinearRegex.SyntaxError {
        LinearRegex.SyntaxError(message: "\(what) at character \(position + 1)")
    }

    private var peek: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard peek == scalar else { return false }
        position += 1
        return true
    }

    private mutating func alternation() throws(LinearRegex.SyntaxError) -> Node {
        var branches = [try sequence()]
        while take("|") { branches.append(try sequence()) }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence() throws(LinearRegex.SyntaxError) -> Node {
        var items: [Node] = []
        while let next = peek, next != "|", next != ")" {
            var atom = try self.atom()
            atom = try quantified(atom)
            items.append(atom)
        }
        return items.isEmpty ? .empty : items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func quantified(_ atom: Node) throws(LinearRegex.SyntaxError) -> Node {
        var node = atom
        while let next = peek {
            let bounds: (Int, Int?)
            switch next {
            case "*": position += 1; bounds = (0, nil)
            case "+": position += 1; bounds = (1, nil)
            case "?": position += 1; bounds = (0, 1)
            case "{":
                guard let counted = try counted() else { return node }
                bounds = counted
            default: return node
            }
            if case .assertion = node { throw fail("a quantifier after an anchor") }
            if case .empty = node { throw fail("a quantifier with nothing before it") }
            if take("+") { throw fail("a possessive quantifier (it needs backtracking, which find does not do)") }
            _ = take("?")  // lazy: the same answer to "does it match somewhere"
            node = .repeated(node, min: bounds.0, max: bounds.1)
        }
        return node
    }

    /// `{n}`, `{n,}` or `{n,m}`. A brace that starts no count is an error, as in ICU.
    private mutating func counted() throws(LinearRegex.SyntaxError) -> (Int, Int?)? {
        position += 1
        func number(_ parser: inout Parser) -> Int? {
            var value: Int?
            while let digit = parser.peek, ("0"..."9").contains(digit) {
                value = min((value ?? 0) * 10 + Int(digit.value - 48), 1_000_000)
                parser.position += 1
            }
            return value
        }
        guard let low = number(&self) else { throw fail("a '{' that starts no count (write \\{ for the character)") }
        var high: Int? = low
        if take(",") { high = number(&self) }
        guard take("}") else { throw fail("a count without its '}'") }
        guard low <= LinearRegex.maxCount, (high ?? 0) <= LinearRegex.maxCount else {
            throw fail("a count over \(LinearRegex.maxCount)")
        }
        if let high, high < low { throw fail("a count {\(low),\(high)} whose maximum is below its minimum") }
        return (low, high)
    }

    private mutating func atom() throws(LinearRegex.SyntaxError) -> Node {
        guard let scalar = peek else { throw fail("a missing atom") }
        position += 1
        switch scalar {
        case "(":
            return try group()
        case "[":
            return .set(try characterClass())
        case ".":
            return .set(CharSet(items: [.any(dotAll: flags.dotAll)]))
        case "^":
            return .assertion(.lineStart(multiline: flags.multiline))
        case "$":
            return .assertion(.lineEnd(multiline: flags.multiline))
        case "\\":
            return try escape()
        case "*", "+", "?", "{":
            position -= 1
            throw fail("a quantifier with nothing before it")
        case "}":
            position -= 1
            throw fail("a '}' that closes no count (write \\} for the character)")
        default:
            return .set(.scalar(scalar, caseInsensitive: flags.caseInsensitive))
        }
    }

    private mutating func group() throws(LinearRegex.SyntaxError) -> Node {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 100 else { throw fail("groups nested more than 100 deep") }
        let saved = flags
        if take("?") {
            if take(":") {
                // non-capturing
            } else if take("=") || take("!") {
                throw fail("a look-ahead (it needs backtracking, which find does not do)")
            } else if take(">") {
                throw fail("an atomic group (it needs backtracking, which find does not do)")
            } else if take("<") {
                if take("=") || take("!") { throw fail("a look-behind (it needs backtracking, which find does not do)") }
                while let next = peek, next != ">" {
                    guard next.properties.isAlphabetic || next.properties.numericType != nil else { throw fail("a group name that is not a word") }
                    position += 1
                }
                guard take(">") else { throw fail("an unterminated group name") }
            } else {
                // Flags: (?ism-ism) for the rest of the enclosing group, or (?ism-ism:…) for this one.
                var on = true
                var changed = flags
                while let next = peek, next != ")", next != ":" {
                    position += 1
                    switch next {
                    case "i": changed.caseInsensitive = on
                    case "s": changed.dotAll = on
                    case "m": changed.multiline = on
                    case "-": on = false
                    default: throw fail("the flag '\(next)' (find knows i, s and m)")
                    }
                }
                if take(")") {
                    flags = changed
                    return .empty
                }
                guard take(":") else { throw fail("an unterminated group") }
                flags = changed
            }
        }
        let inner = try alternation()
        guard take(")") else { throw fail("a missing ')'") }
        flags = saved
        return .group(inner)
    }

    private mutating func escape() throws(LinearRegex.SyntaxError) -> Node {
        guard let scalar = peek else { throw fail("a '\\' at the end") }
        position += 1
        switch scalar {
        case "A": return .assertion(.textStart)
        case "z": return .assertion(.textEnd)
        case "Z": return .assertion(.textEndBeforeFinalBreak)
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "1"..."9", "k":
            throw fail("a back-reference (it needs backtracking, which find does not do)")
        default:
            position -= 1
            let items = try classEscape()
            return .set(CharSet(items: items, caseInsensitive: flags.caseInsensitive))
        }
    }

    /// An escape that stands for characters (inside or outside a class); `position` is just past
    /// the backslash.
    private mutating func classEscape() throws(LinearRegex.SyntaxError) -> [CharSet.Item] {
        guard let scalar = peek else { throw fail("a '\\' at the end") }
        position += 1
        func single(_ value: UInt32) -> [CharSet.Item] { [.range(value, value)] }
        switch scalar {
        case "d": return [.digit(true)]
        case "D": return [.digit(false)]
        case "w": return [.word(true)]
        case "W": return [.word(false)]
        case "s": return [.space(true)]
        case "S": return [.space(false)]
        case "t": return single(0x09)
        case "n": return single(0x0A)
        case "r": return single(0x0D)
        case "f": return single(0x0C)
        case "v": return single(0x0B)
        case "a": return single(0x07)
        case "e": return single(0x1B)
        case "0": return single(0)
        case "x":
            if take("{") {
                let value = try hex(maxDigits: 6, until: "}")
                return single(value)
            }
            return single(try hex(exactly: 2))
        case "u": return single(try hex(exactly: 4))
        case "p", "P":
            guard take("{") else { throw fail("\\\(scalar) without {…}") }
            var name = ""
            while let next = peek, next != "}" {
                name.unicodeScalars.append(next)
                position += 1
                guard name.count <= 16 else { throw fail("an unknown property") }
            }
            guard take("}") else { throw fail("an unterminated \\\(scalar){") }
            let names: Set<String>
            if name.count == 1 {
                names = CharSet.categoryNames.filter { $0.hasPrefix(name) }
            } else if CharSet.categoryNames.contains(name) {
                names = [name]
            } else {
                names = []
            }
            guard !names.isEmpty else { throw fail("the property \\p{\(name)} (find knows general categories such as L, Lu or Nd)") }
            return [.category(names, scalar == "p")]
        default:
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                throw fail("the escape \\\(scalar), which find does not know")
            }
            return single(scalar.value)
        }
    }

    private mutating func hex(exactly count: Int) throws(LinearRegex.SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let next = peek, next.isASCII, let digit = UInt32(String(next), radix: 16) else { throw fail("a bad hex escape") }
            value = value * 16 + digit
            position += 1
        }
        return try valid(value)
    }

    private mutating func hex(maxDigits: Int, until end: Unicode.Scalar) throws(LinearRegex.SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        var digits = 0
        while let next = peek, next != end {
            guard digits < maxDigits, next.isASCII, let digit = UInt32(String(next), radix: 16) else { throw fail("a bad hex escape") }
            value = value * 16 + digit
            digits += 1
            position += 1
        }
        guard digits > 0, take(end) else { throw fail("a bad hex escape") }
        return try valid(value)
    }

    private func valid(_ value: UInt32) throws(LinearRegex.SyntaxError) -> UInt32 {
        guard Unicode.Scalar(value) != nil else { throw fail("a hex escape that is not a Unicode scalar") }
        return value
    }

    private mutating func characterClass() throws(LinearRegex.SyntaxError) -> CharSet {
        var set = CharSet(caseInsensitive: flags.caseInsensitive)
        set.negated = take("^")
        var first = true
        while true {
            guard let scalar = peek else { throw fail("a missing ']'") }
            if scalar == "]" && !first { position += 1; break }
            first = false
            if scalar == "[" {
                throw fail("a nested class or [:name:] (find knows \\d, \\w, \\s and \\p{…} inside classes)")
            }
            position += 1
            let low: UInt32
            if scalar == "\\" {
                let items = try classEscape()
                guard items.count == 1, case .range(let a, let b) = items[0], a == b else {
                    set.items.append(contentsOf: items)
                    continue
                }
                low = a
            } else {
                low = scalar.value
            }
            // A range a-z (a '-' before ']' is a literal).
            if peek == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                position += 1
                guard let end = peek else { throw fail("a missing ']'") }
                position += 1
                var high = end.value
                if end == "\\" {
                    let items = try classEscape()
                    guard items.count == 1, case .range(let a, let b) = items[0], a == b else {
                        throw fail("a range that ends in a class")
                    }
                    high = a
                }
                guard low <= high else { throw fail("a range whose end comes before its start") }
                set.items.append(.range(low, high))
            } else {
                set.items.append(.range(low, low))
            }
        }
        return set
    }
}

// MARK: - Program

fileprivate enum Instruction: Sendable {
    case set(CharSet)
    case split(Int, Int)
    case jump(Int)
    case assert(Assertion)
    case match
}

private struct Compiler {
    var program: [Instruction] = []

    mutating func append(_ instruction: Instruction) {
        program.append(instruction)
    }

    private mutating func reserve() throws(LinearRegex.SyntaxError) -> Int {
        try checkSize(1)
        program.append(.match)
        return program.count - 1
    }

    private func checkSize(_ more: Int) throws(LinearRegex.SyntaxError) {
        guard program.count + more <= LinearRegex.maxProgram else {
            throw LinearRegex.SyntaxError(message: "a pattern that expands to more than \(LinearRegex.maxProgram) steps (large counted repetitions multiply)")
        }
    }

    mutating func emit(_ node: Node) throws(LinearRegex.SyntaxError) {
        switch node {
        case .empty:
            break
        case .set(let set):
            try checkSize(1)
            program.append(.set(set))
        case .assertion(let assertion):
            try checkSize(1)
            program.append(.assert(assertion))
        case .group(let inner):
            try emit(inner)
        case .sequence(let items):
            for item in items { try emit(item) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = try reserve()
                    try emit(branch)
                    jumps.append(try reserve())
                    program[split] = .split(split + 1, program.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let inner, let min, let max):
            for _ in 0..<min { try emit(inner) }
            if let max {
                // (inner(inner(…)?)?)? for the optional copies.
                var splits: [Int] = []
                for _ in min..<max {
                    let split = try reserve()
                    splits.append(split)
                    try emit(inner)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                // L: split(body, out); body; jump L
                let split = try reserve()
                try emit(inner)
                try checkSize(1)
                program.append(.jump(split))
                program[split] = .split(split + 1, program.count)
            }
        }
    }
}

// MARK: - Matching

private struct Runner {
    let program: [Instruction]
    var onList: [UInt32]
    var generation: UInt32 = 0
    var stack: [Int] = []

    init(program: [Instruction]) {
        self.program = program
        onList = Array(repeating: 0, count: program.count)
    }

    /// Adds `pc` and everything reachable from it without reading a character; `true` when that
    /// reaches `match`.
    private mutating func add(_ pc: Int, to list: inout [Int], previous: Unicode.Scalar?, here: Unicode.Scalar?,
                              subject: [Unicode.Scalar], index: Int) -> Bool {
        stack.append(pc)
        while let pc = stack.popLast() {
            guard onList[pc] != generation else { continue }
            onList[pc] = generation
            switch program[pc] {
            case .match:
                stack.removeAll(keepingCapacity: true)
                return true
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if holds(assertion, previous: previous, here: here, subject: subject, index: index) { stack.append(pc + 1) }
            case .set:
                list.append(pc)
            }
        }
        return false
    }

    private func holds(_ assertion: Assertion, previous: Unicode.Scalar?, here: Unicode.Scalar?,
                       subject: [Unicode.Scalar], index: Int) -> Bool {
        switch assertion {
        case .textStart:
            return previous == nil
        case .textEnd:
            return here == nil
        case .lineStart(let multiline):
            return previous == nil || (multiline && isLineBreak(previous!))
        case .lineEnd(let multiline):
            guard let here else { return true }
            if multiline { return isLineBreak(here) }
            return endsText(from: index, subject: subject)
        case .textEndBeforeFinalBreak:
            guard here != nil else { return true }
            return endsText(from: index, subject: subject)
        case .wordBoundary:
            return (previous.map(isWord) ?? false) != (here.map(isWord) ?? false)
        case .notWordBoundary:
            return (previous.map(isWord) ?? false) == (here.map(isWord) ?? false)
        }
    }

    /// Whether only a final line break (CR LF counted as one) is left from `index`.
    private func endsText(from index: Int, subject: [Unicode.Scalar]) -> Bool {
        let rest = subject.count - index
        guard rest >= 1, isLineBreak(subject[index]) else { return false }
        if rest == 1 { return true }
        return rest == 2 && subject[index].value == 0x0D && subject[index + 1].value == 0x0A
    }

    mutating func search(_ subject: [Unicode.Scalar], deadline: ContinuousClock.Instant?) -> Bool? {
        let clock = ContinuousClock()
        // The threads (program counters of `set` instructions) at this position and the next.
        var current: [Int] = []
        var next: [Int] = []
        var index = 0
        while true {
            let previous: Unicode.Scalar? = index > 0 ? subject[index - 1] : nil
            let here: Unicode.Scalar? = index < subject.count ? subject[index] : nil
            if index & 1023 == 1023, let deadline, clock.now >= deadline { return nil }
            // A new thread starts at every position (the search is unanchored); the threads
            // already running are on `current`, added at the previous step.
            generation &+= 1
            if generation == 0 {
                for i in onList.indices { onList[i] = 0 }
                generation = 1
            }
            // Re-mark the threads carried over, so the new start does not duplicate them.
            for pc in current { onList[pc] = generation }
            var list = current
            if add(0, to: &list, previous: previous, here: here, subject: subject, index: index) { return true }
            guard let here else { return false }
            // Step every thread over `here`.
            generation &+= 1
            if generation == 0 {
                for i in onList.indices { onList[i] = 0 }
                generation = 1
            }
            next.removeAll(keepingCapacity: true)
            let afterPrevious: Unicode.Scalar? = here
            let afterHere: Unicode.Scalar? = index + 1 < subject.count ? subject[index + 1] : nil
            for pc in list {
                guard case .set(let set) = program[pc], set.contains(here) else { continue }
                if add(pc + 1, to: &next, previous: afterPrevious, here: afterHere, subject: subject, index: index + 1) {
                    return true
                }
            }
            swap(&current, &next)
            index += 1
        }
    }
}
