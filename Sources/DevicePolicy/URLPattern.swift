/// A URL pattern of `DenyListURLs`, `PermittedURLs` and bookmark URLs (*Device policies*):
/// `[scheme://]host[:port][path]`, hosts matched at label boundaries, paths as byte prefixes.
public struct URLPattern: Hashable, Sendable {
    /// Which hosts a pattern matches.
    public enum HostForm: Hashable, Sendable {
        /// `*`: any host.
        case any
        /// `.example.com`: exactly this host.
        case exact(String)
        /// `*.example.com`: strict subdomains only.
        case subdomains(String)
        /// `example.com`: this host and all its subdomains.
        case domain(String)
        /// An IPv4 or IPv6 address: exactly it.
        case address(URLHost)
    }

    /// The scheme matched, nil for any.
    public let scheme: QueryURL.Scheme?
    /// The hosts matched.
    public let host: HostForm
    /// The port matched, nil for any.
    public let port: Int?
    /// The normalised path, nil when the pattern has none.
    public let path: String?

    /// Parses a pattern as a payload writes it; throws why it is invalid.
    public init(parsing text: String) throws(URLPatternError) {
        guard !text.isEmpty else { throw .init("is empty") }
        // Byte-level throughout: admins' deny lists run to thousands of entries.
        let bytes = Array(text.utf8)
        if let problem = QueryURL.spaceOrControl(bytes, text) { throw .init("contains \(problem)") }
        if let bad = bytes.first(where: { $0 == 0x3F || $0 == 0x23 || $0 == 0x40 || $0 == 0x5C }) {
            throw .init("contains '\(Character(Unicode.Scalar(bad)))'")
        }
        var rest = bytes[...]
        if let colon = rest.firstIndex(of: UInt8(ascii: ":")), rest[colon...].starts(with: "://".utf8) {
            guard let scheme = QueryURL.scheme(rest[..<colon]) else {
                throw .init(
                    "has scheme '\(String(decoding: rest[..<colon], as: UTF8.self))': only http and https are allowed")
            }
            self.scheme = scheme
            rest = rest[(colon + 3)...]
        } else {
            self.scheme = nil
        }
        let slash = rest.firstIndex(of: UInt8(ascii: "/"))
        path = slash.map { URLPath.normalize(rest[$0...]) }
        let (hostBytes, portBytes) = QueryURL.splitPort(rest[..<(slash ?? rest.endIndex)])
        if let portBytes {
            guard !portBytes.isEmpty, portBytes.count <= 5, portBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                case let value = portBytes.reduce(0, { $0 * 10 + Int($1 - 0x30) }), (1...65535).contains(value)
            else { throw .init("has a port that is not 1–65535") }
            port = value
        } else {
            port = nil
        }
        guard !hostBytes.isEmpty else { throw .init("has an empty host") }
        if hostBytes.elementsEqual([UInt8(ascii: "*")]) {
            host = .any
            return
        }
        var form = 0  // 0 domain, 1 exact, 2 subdomains
        var name = hostBytes
        if name.starts(with: "*.".utf8) {
            form = 2
            name = name.dropFirst(2)
        } else if name.first == UInt8(ascii: ".") {
            form = 1
            name = name.dropFirst()
        }
        let shown = { String(decoding: hostBytes, as: UTF8.self) }
        if name.contains(UInt8(ascii: "*")) { throw .init("has '*' outside the '*' and '*.domain' host forms") }
        guard !name.isEmpty, name.first != UInt8(ascii: "."), let parsed = URLHost(bytes: name) else {
            throw .init("has an invalid host '\(shown())'")
        }
        switch parsed {
        case .domain(let domain): host = form == 0 ? .domain(domain) : form == 1 ? .exact(domain) : .subdomains(domain)
        case .ipv4, .ipv6:
            guard form == 0 else { throw .init("has '.' or '*.' before an IP address") }
            host = .address(parsed)
        }
    }

    /// True when `url` matches: scheme (if given), host by form, port (if given), path prefix (if given).
    public func matches(_ url: QueryURL) -> Bool {
        if let scheme, scheme != url.scheme { return false }
        if let port, port != url.effectivePort { return false }
        guard hostMatches(url.host) else { return false }
        if let path, !url.path.utf8.starts(with: path.utf8) { return false }
        return true
    }

    func hostMatches(_ candidate: URLHost) -> Bool {
        switch host {
        case .any: return true
        case .address(let address): return address == candidate
        case .exact(let domain):
            guard case .domain(let name) = candidate else { return false }
            return name == domain
        case .domain(let domain):
            guard case .domain(let name) = candidate else { return false }
            return name == domain || Self.isStrictSubdomain(name, of: domain)
        case .subdomains(let domain):
            guard case .domain(let name) = candidate else { return false }
            return Self.isStrictSubdomain(name, of: domain)
        }
    }

    static func isStrictSubdomain(_ name: String, of domain: String) -> Bool {
        let nameBytes = name.utf8
        let domainBytes = domain.utf8
        guard nameBytes.count > domainBytes.count + 1, nameBytes.reversed().starts(with: domainBytes.reversed())
        else { return false }
        return nameBytes[nameBytes.index(nameBytes.endIndex, offsetBy: -domainBytes.count - 1)] == UInt8(ascii: ".")
    }

    /// Forms Apple does not document (`L_APPLE_DIVERGENCE`): `.host`, `*.host`, `*`, a port, an IP.
    var divergesFromApple: Bool {
        if port != nil { return true }
        switch host {
        case .domain: return false
        default: return true
        }
    }
}

/// Why a URL pattern is invalid (MC5007).
public struct URLPatternError: Error, Equatable, Sendable {
    /// What is wrong with the pattern.
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}
