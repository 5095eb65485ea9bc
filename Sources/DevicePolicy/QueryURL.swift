import MDMDiagnostics

/// An `http`/`https` URL as the policy engine reads it (*Device policies*): the WHATWG subset written in the
/// project. User-info, query and fragment are dropped; the host is normalised (8.3) and the path has its dot
/// segments resolved and its unsafe bytes percent-encoded.
public struct QueryURL: Hashable, Sendable {
    /// The schemes evaluated.
    public enum Scheme: String, Sendable, Hashable {
        /// `http`, port 80 by default.
        case http
        /// `https`, port 443 by default.
        case https

        var defaultPort: Int { self == .http ? 80 : 443 }
    }

    /// Why a URL cannot be evaluated.
    public enum ParseError: Error, Equatable, Sendable {
        /// MC5102 with the reason.
        case invalid(String)
        /// MC5103 with the scheme found.
        case unsupportedScheme(String)

        /// The error as a finding.
        public var diagnostic: Diagnostic {
            switch self {
            case .invalid(let reason):
                Diagnostic(DevicePolicyCode.invalidQueryURL, severity: .error, message: "invalid URL: \(reason)")
            case .unsupportedScheme(let scheme):
                Diagnostic(
                    DevicePolicyCode.unsupportedURLScheme, severity: .error,
                    message: "unsupported URL scheme '\(scheme)': only http and https are evaluated")
            }
        }
    }

    /// The scheme.
    public let scheme: Scheme
    /// The normalised host.
    public let host: URLHost
    /// The port written in the URL, nil when none (or empty).
    public let port: Int?
    /// The normalised path (`/` at least).
    public let path: String

    /// The port the connection uses: the written one or 80/443.
    public var effectivePort: Int { port ?? scheme.defaultPort }

    /// `scheme://host[:port]path`, the port only when it is not the scheme's default.
    public let normalized: String

    /// Parses and normalises `text`; throws why it cannot be evaluated.
    public init(parsing text: String) throws(ParseError) {
        guard !text.isEmpty else { throw .invalid("empty") }
        let utf8 = Array(text.utf8)
        if let problem = Self.spaceOrControl(utf8, text) { throw .invalid("contains \(problem)") }
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")), colon > 0, Self.isSchemeStart(utf8[0]),
            utf8[1..<colon].allSatisfy(Self.isSchemeByte)
        else { throw .invalid("no scheme") }
        guard let scheme = Self.scheme(utf8[..<colon]) else {
            throw .unsupportedScheme(String(decoding: utf8[..<colon].map { $0 | 0x20 }, as: UTF8.self))
        }
        var index = colon + 1
        while index < utf8.count, utf8[index] == UInt8(ascii: "/") || utf8[index] == UInt8(ascii: "\\") { index += 1 }
        var authorityEnd = index
        while authorityEnd < utf8.count, !Self.endsAuthority(utf8[authorityEnd]) { authorityEnd += 1 }
        var authority = utf8[index..<authorityEnd]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        let (hostBytes, portBytes) = Self.splitPort(authority)
        var port: Int? = nil
        if let portBytes, !portBytes.isEmpty {
            guard portBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), portBytes.count <= 5,
                let value = Int(String(decoding: portBytes, as: UTF8.self)), value <= 65535
            else { throw .invalid("bad port '\(String(decoding: portBytes, as: UTF8.self))'") }
            port = value
        }
        guard !hostBytes.isEmpty else { throw .invalid("empty host") }
        guard let host = URLHost(bytes: hostBytes) else {
            throw .invalid("invalid host '\(String(decoding: hostBytes, as: UTF8.self))'")
        }
        var pathEnd = authorityEnd
        while pathEnd < utf8.count, utf8[pathEnd] != UInt8(ascii: "?"), utf8[pathEnd] != UInt8(ascii: "#") {
            pathEnd += 1
        }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = URLPath.normalize(utf8[authorityEnd..<pathEnd])
        // One buffer: this runs for every query.
        var text = ""
        let portText = port.map { $0 == scheme.defaultPort ? "" : ":\($0)" } ?? ""
        let hostText = host.description
        text.reserveCapacity(
            scheme.rawValue.utf8.count + 3 + hostText.utf8.count + portText.utf8.count + path.utf8.count)
        text += scheme.rawValue
        text += "://"
        text += hostText
        text += portText
        text += path
        normalized = text
    }

    /// Host bytes and the bytes after the last `:` outside `[…]` (nil when there is no such colon).
    static func splitPort(_ authority: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>?) {
        let closing = authority.lastIndex(of: UInt8(ascii: "]"))
        guard let colon = authority.lastIndex(of: UInt8(ascii: ":")), closing.map({ colon > $0 }) ?? true,
            authority.first != UInt8(ascii: "[") || closing != nil
        else { return (authority, nil) }
        return (authority[..<colon], authority[(colon + 1)...])
    }

    /// `http` or `https` in any case.
    static func scheme(_ bytes: ArraySlice<UInt8>) -> Scheme? {
        let http: [UInt8] = [0x68, 0x74, 0x74, 0x70]
        guard bytes.count == 4 || bytes.count == 5, zip(bytes, http).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        if bytes.count == 4 { return .http }
        return bytes.last.map { $0 | 0x20 } == UInt8(ascii: "s") ? .https : nil
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "?")
            || byte == UInt8(ascii: "#")
    }

    /// "white space" or "a control character" when the text has one (ASCII checked by byte, the rest by
    /// Unicode property); nil otherwise.
    static func spaceOrControl(_ utf8: [UInt8], _ text: String) -> String? {
        var ascii = true
        for byte in utf8 {
            if byte >= 0x80 {
                ascii = false
            } else if byte <= 0x20 || byte == 0x7F {
                return byte == 0x20 || (0x09...0x0D).contains(byte) ? "white space" : "a control character"
            }
        }
        if ascii { return nil }
        for scalar in text.unicodeScalars where scalar.value >= 0x80 {
            if scalar.properties.isWhitespace { return "white space" }
            if isControl(scalar) { return "a control character" }
        }
        return nil
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func isSchemeStart(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isSchemeStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E
    }
}

/// Path normalisation shared by query URLs and patterns (8.2 step 5).
enum URLPath {
    /// Splits on `/` and `\`, resolves `.`/`..` segments (also percent-encoded), percent-encodes unsafe
    /// bytes, keeps existing `%XX`; empty = `/`.
    static func normalize(_ path: ArraySlice<UInt8>) -> String {
        guard !path.isEmpty else { return "/" }
        // Fast path: a path without dots, percent signs, backslashes or bytes to encode is already normal.
        if path.first == UInt8(ascii: "/"),
            !path.contains(where: { $0 == 0x2E || $0 == 0x25 || $0 == 0x5C || needsEncoding($0) })
        {
            return String(decoding: path, as: UTF8.self)
        }
        var rest = path
        if rest.first == UInt8(ascii: "/") || rest.first == UInt8(ascii: "\\") { rest = rest.dropFirst() }
        let segments = rest.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "/") || $0 == 0x5C }
        var output: [ArraySlice<UInt8>] = []
        for (position, segment) in segments.enumerated() {
            let isLast = position == segments.count - 1
            switch dotKind(segment) {
            case 2:
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append([]) }
            case 1:
                if isLast { output.append([]) }
            default:
                output.append(segment)
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.count + 8)
        for segment in output {
            bytes.append(UInt8(ascii: "/"))
            for byte in segment {
                if needsEncoding(byte) {
                    bytes.append(UInt8(ascii: "%"))
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0xF)])
                } else {
                    bytes.append(byte)
                }
            }
        }
        if bytes.isEmpty { bytes.append(UInt8(ascii: "/")) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func needsEncoding(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x23 || byte == 0x3C || byte == 0x3E || byte == 0x3F
            || byte == 0x60 || byte == 0x7B || byte == 0x7D
    }

    /// 1 for `.`/`%2e`, 2 for `..`, `.%2e`, `%2e.`, `%2e%2e` (any case), else 0.
    private static func dotKind(_ segment: ArraySlice<UInt8>) -> Int {
        var dots = 0
        var index = segment.startIndex
        while index < segment.endIndex {
            if segment[index] == UInt8(ascii: ".") {
                index += 1
            } else if segment[index] == UInt8(ascii: "%"), index + 2 < segment.endIndex,
                segment[index + 1] == UInt8(ascii: "2"), segment[index + 2] | 0x20 == UInt8(ascii: "e")
            {
                index += 3
            } else {
                return 0
            }
            dots += 1
            if dots > 2 { return 0 }
        }
        return dots
    }
}
