/// A regular-expression matcher that runs in time linear in the input (a Pike VM over Unicode scalars), for the
/// ICU subset schema patterns use: literals, `.`, classes with ranges, negation and `\d \w \s` (and negated),
/// groups (capturing or `(?:`), alternation, `* + ? {n} {n,} {n,m}` (lazy forms accepted: a whole match does not
/// depend on laziness), escapes, the anchors `^` and `$`, and a leading `(?i)`. Backtracking engines
/// take exponential time on patterns such as `^(a+)+$`; a schema from a stranger must not hang validation.
/// Anything else (back-references, look-around, possessive quantifiers, inline flags elsewhere) is not
/// supported: `init` returns nil and the caller decides.
struct LinearRegex: Sendable {
    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        /// The scalar is in `sets[index]`.
        case set(Int)
        case any
        case assertStart
        case assertEnd
        case split(Int, Int)
        case jump(Int)
        case match
    }

    struct ScalarSet: Sendable {
        var ranges: [ClosedRange<UInt32>] = []
        var classes: [Character] = []  // d w s D W S
        var negated = false
        /// Whether each ASCII scalar is in the set (bit n of `ascii.low` for n < 64, of `ascii.high` for 64…127),
        /// filled in by ``sealed()`` when the set is compiled: patterns mostly test ASCII text.
        private var ascii: (low: UInt64, high: UInt64)?

        /// The set with its ASCII members worked out once.
        func sealed() -> ScalarSet {
            var set = self
            var ascii: (low: UInt64, high: UInt64) = (0, 0)
            for value in UInt32(0)..<128 where lookUp(Unicode.Scalar(UInt8(value))) {
                if value < 64 { ascii.low |= 1 << UInt64(value) } else { ascii.high |= 1 << UInt64(value - 64) }
            }
            set.ascii = ascii
            return set
        }

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            if let ascii, scalar.value < 128 {
                let value = UInt64(scalar.value)
                return (value < 64 ? ascii.low >> value : ascii.high >> (value - 64)) & 1 != 0
            }
            return lookUp(scalar)
        }

        private func lookUp(_ scalar: Unicode.Scalar) -> Bool {
            var found = ranges.contains { $0.contains(scalar.value) }
            if !found { found = classes.contains { ScalarSet.inClass($0, scalar) } }
            return found != negated
        }

        static func inClass(_ name: Character, _ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            switch name {
            case "d": return properties.numericType == .decimal
            case "D": return properties.numericType != .decimal
            case "w": return isWord(scalar)
            case "W": return !isWord(scalar)
            case "s": return properties.isWhitespace
            case "S": return !properties.isWhitespace
            default: return false
            }
        }

        static func isWord(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            return properties.isAlphabetic || properties.numericType == .decimal || scalar == "_"
                || properties.generalCategory == .nonspacingMark || properties.generalCategory == .spacingMark
                || properties.generalCategory == .enclosingMark || properties.generalCategory == .connectorPunctuation
                || scalar.value == 0x200C || scalar.value == 0x200D
        }
    }

    let program: [Instruction]
    /// The sets the program's `set` instructions test.
    let sets: [ScalarSet]
    let caseInsensitive: Bool

    /// The most instructions a pattern may compile to (counted repetitions are expanded).
    static let maxProgram = 20_000

    init?(_ source: String) {
        var parser = Parser(Array(source.unicodeScalars))
        if parser.consume("(?i)") { caseInsensitive = true } else { caseInsensitive = false }
        guard let node = parser.alternation(), parser.atEnd else { return nil }
        var program: [Instruction] = []
        var sets: [ScalarSet] = []
        guard Self.emit(node, into: &program, sets: &sets, caseInsensitive: caseInsensitive) else { return nil }
        program.append(.match)
        guard program.count <= Self.maxProgram else { return nil }
        self.program = program
        self.sets = sets
    }

    /// True when the whole of `text` matches.
    func wholeMatch(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        let size = program.count
        // The two thread lists, the marks and the stack in one allocation for the whole match: arrays grown and
        // checked at every scalar, and the sets copied out of the instructions, were most of a match's time.
        let memory = UnsafeMutablePointer<Int>.allocate(capacity: 5 * size + 2)
        defer { memory.deallocate() }
        var (current, next) = (memory, memory + size)
        let marks = memory + 2 * size
        // At most one more entry than the instructions: each unmarked one popped pushes at most two.
        let stack = memory + 3 * size
        marks.initialize(repeating: -1, count: size)
        var (currentCount, nextCount, generation) = (0, 0, 0)
        return program.withUnsafeBufferPointer { program in
            sets.withUnsafeBufferPointer { sets in
                func add(_ start: Int, at position: Int, to list: UnsafeMutablePointer<Int>, _ count: inout Int) {
                    stack[0] = start
                    var depth = 1
                    while depth > 0 {
                        depth -= 1
                        let pc = stack[depth]
                        if marks[pc] == generation { continue }
                        marks[pc] = generation
                        switch program[pc] {
                        case .assertStart:
                            if position == 0 {
                                stack[depth] = pc + 1
                                depth += 1
                            }
                        case .assertEnd:
                            if position == scalars.count {
                                stack[depth] = pc + 1
                                depth += 1
                            }
                        case .jump(let target):
                            stack[depth] = target
                            depth += 1
                        case .split(let first, let second):
                            stack[depth] = second
                            stack[depth + 1] = first
                            depth += 2
                        default:
                            list[count] = pc
                            count += 1
                        }
                    }
                }
                add(0, at: 0, to: current, &currentCount)
                for (position, scalar) in scalars.enumerated() {
                    generation += 1
                    nextCount = 0
                    let folded = caseInsensitive ? Self.fold(scalar) : scalar
                    for index in 0..<currentCount {
                        let pc = current[index]
                        let advances: Bool
                        switch program[pc] {
                        case .scalar(let expected): advances = expected == folded
                        case .set(let set):
                            advances = sets[set].contains(scalar) || (caseInsensitive && sets[set].contains(folded))
                        case .any:
                            advances =
                                scalar != "\n" && scalar != "\r" && scalar.value != 0x2028 && scalar.value != 0x2029
                        default: advances = false
                        }
                        if advances { add(pc + 1, at: position + 1, to: next, &nextCount) }
                    }
                    swap(&current, &next)
                    swap(&currentCount, &nextCount)
                    if currentCount == 0 { return false }
                }
                for index in 0..<currentCount {
                    if case .match = program[current[index]] { return true }
                }
                return false
            }
        }
    }

    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower[lower.startIndex] : scalar
    }

    // MARK: - Syntax tree

    indirect enum Node {
        case empty
        case scalar(Unicode.Scalar)
        case set(ScalarSet)
        case any
        case start
        case end
        case concat([Node])
        case alternation([Node])
        case repeated(Node, min: Int, max: Int?)
    }

    struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var atEnd: Bool { index == scalars.count }
        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func consume(_ text: String) -> Bool {
            let wanted = Array(text.unicodeScalars)
            guard index + wanted.count <= scalars.count, Array(scalars[index..<index + wanted.count]) == wanted
            else { return false }
            index += wanted.count
            return true
        }

        mutating func alternation() -> Node? {
            var branches: [Node] = []
            while true {
                guard let branch = concatenation() else { return nil }
                branches.append(branch)
                if peek == "|" {
                    index += 1
                    continue
                }
                return branches.count == 1 ? branches[0] : .alternation(branches)
            }
        }

        mutating func concatenation() -> Node? {
            var items: [Node] = []
            while let scalar = peek, scalar != "|", scalar != ")" {
                if scalar == "^" || scalar == "$" {
                    index += 1
                    items.append(scalar == "^" ? .start : .end)
                    continue
                }
                guard let atom = atom(), let quantified = quantifier(atom) else { return nil }
                items.append(quantified)
            }
            return items.count == 1 ? items[0] : items.isEmpty ? .empty : .concat(items)
        }

        mutating func atom() -> Node? {
            guard let scalar = peek else { return nil }
            index += 1
            switch scalar {
            case "(":
                if consume("?:") {
                } else if peek == "?" {
                    return nil  // look-around, named groups, inline flags
                }
                guard let inner = alternation(), peek == ")" else { return nil }
                index += 1
                return inner
            case "[": return characterClass()
            case ".": return .any
            case "\\": return escape(inClass: false).map { $0.node }
            case "*", "+", "?", "{", ")": return nil
            default: return .scalar(scalar)
            }
        }

        mutating func quantifier(_ atom: Node) -> Node? {
            guard let scalar = peek else { return atom }
            var node: Node
            switch scalar {
            case "*": node = .repeated(atom, min: 0, max: nil)
            case "+": node = .repeated(atom, min: 1, max: nil)
            case "?": node = .repeated(atom, min: 0, max: 1)
            case "{":
                let start = index
                index += 1
                guard let low = number() else {
                    // A `{` that is not a quantifier is a literal in ICU only when unambiguous; refuse.
                    index = start
                    return nil
                }
                var high: Int? = low
                if peek == "," {
                    index += 1
                    high = peek == "}" ? nil : number()
                    if high == nil && peek != "}" { return nil }
                }
                guard peek == "}", high.map({ $0 >= low }) ?? true, low <= 1000, (high ?? 0) <= 1000 else { return nil }
                node = .repeated(atom, min: low, max: high)
            default: return atom
            }
            index += 1
            if peek == "?" { index += 1 }  // lazy: the same whole matches
            if peek == "+" { return nil }  // possessive
            if let next = peek, "*+?{".unicodeScalars.contains(next) { return nil }
            return node
        }

        mutating func number() -> Int? {
            var value = 0
            var digits = 0
            while let scalar = peek, ("0"..."9").contains(scalar), digits < 5 {
                value = value * 10 + Int(scalar.value - 48)
                digits += 1
                index += 1
            }
            return digits == 0 ? nil : value
        }

        mutating func characterClass() -> Node? {
            var set = ScalarSet()
            if peek == "^" {
                set.negated = true
                index += 1
            }
            var first = true
            while let scalar = peek, scalar != "]" || first {
                first = false
                index += 1
                var low: UInt32
                if scalar == "\\" {
                    guard let escaped = escape(inClass: true) else { return nil }
                    switch escaped.node {
                    case .scalar(let value): low = value.value
                    case .set(let inner) where !inner.negated && inner.ranges.isEmpty:
                        set.classes += inner.classes
                        continue
                    default: return nil
                    }
                } else if scalar == "[" {
                    return nil  // nested classes and set operations
                } else {
                    low = scalar.value
                }
                if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    guard let highScalar = peek else { return nil }
                    index += 1
                    var high = highScalar.value
                    if highScalar == "\\" {
                        guard let escaped = escape(inClass: true), case .scalar(let value) = escaped.node else {
                            return nil
                        }
                        high = value.value
                    }
                    guard high >= low else { return nil }
                    set.ranges.append(low...high)
                } else {
                    set.ranges.append(low...low)
                }
            }
            guard peek == "]" else { return nil }
            index += 1
            return .set(set)
        }

        /// After a backslash: a literal, a control escape, `\uXXXX`, or a class `\d \w \s \D \W \S`.
        mutating func escape(inClass: Bool) -> (node: Node, isClass: Bool)? {
            guard let scalar = peek else { return nil }
            index += 1
            switch scalar {
            case "d", "w", "s", "D", "W", "S":
                var set = ScalarSet()
                set.classes = [Character(scalar)]
                return (.set(set), true)
            case "t": return (.scalar("\t"), false)
            case "n": return (.scalar("\n"), false)
            case "r": return (.scalar("\r"), false)
            case "f": return (.scalar("\u{0C}"), false)
            case "u":
                guard index + 4 <= scalars.count else { return nil }
                let hex = String(String.UnicodeScalarView(scalars[index..<index + 4]))
                guard let value = UInt32(hex, radix: 16), let result = Unicode.Scalar(value) else { return nil }
                index += 4
                return (.scalar(result), false)
            default:
                // Letters and digits after a backslash have meanings this engine does not implement.
                if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) { return nil }
                return (.scalar(scalar), false)
            }
        }
    }

    // MARK: - Compilation

    static func emit(
        _ node: Node, into program: inout [Instruction], sets: inout [ScalarSet], caseInsensitive: Bool
    ) -> Bool {
        guard program.count <= maxProgram else { return false }
        switch node {
        case .empty: return true
        case .scalar(let scalar): program.append(.scalar(caseInsensitive ? fold(scalar) : scalar))
        case .set(let set):
            sets.append(set.sealed())
            program.append(.set(sets.count - 1))
        case .any: program.append(.any)
        case .start: program.append(.assertStart)
        case .end: program.append(.assertEnd)
        case .concat(let items):
            for item in items where !emit(item, into: &program, sets: &sets, caseInsensitive: caseInsensitive) {
                return false
            }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (position, branch) in branches.enumerated() {
                if position < branches.count - 1 {
                    let split = program.count
                    program.append(.split(split + 1, -1))
                    guard emit(branch, into: &program, sets: &sets, caseInsensitive: caseInsensitive) else {
                        return false
                    }
                    jumps.append(program.count)
                    program.append(.jump(-1))
                    program[split] = .split(split + 1, program.count)
                } else {
                    guard emit(branch, into: &program, sets: &sets, caseInsensitive: caseInsensitive) else {
                        return false
                    }
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let inner, let min, let max):
            for _ in 0..<min where !emit(inner, into: &program, sets: &sets, caseInsensitive: caseInsensitive) {
                return false
            }
            if let max {
                // (inner)? repeated max - min times, each optional.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    program.append(.split(program.count + 1, -1))
                    guard emit(inner, into: &program, sets: &sets, caseInsensitive: caseInsensitive) else {
                        return false
                    }
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                let loop = program.count
                program.append(.split(loop + 1, -1))
                guard emit(inner, into: &program, sets: &sets, caseInsensitive: caseInsensitive) else { return false }
                program.append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            }
        }
        return program.count <= maxProgram
    }
}
