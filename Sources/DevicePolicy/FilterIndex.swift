/// The URL patterns of one BuiltIn filter payload, indexed by host so that a query looks up the labels of its
/// host instead of testing every entry (a 1,000-entry deny list costs a few hash lookups). Domain keys are
/// 64-bit hashes of the name read from its end, so every label-boundary suffix of a query host is hashed in
/// one backward pass; a collision only adds a candidate, which the full match then rejects.
final class FilterIndex: Sendable {
    /// A class, so that an evaluation borrows it instead of copying its dictionaries.
    final class Patterns: Sendable {
        let any: [Int]
        let exact: [UInt64: [Int]]
        let domain: [UInt64: [Int]]
        let subdomains: [UInt64: [Int]]
        let address: [URLHost: [Int]]

        init(_ list: ListSetting<URLPattern>?) {
            var any: [Int] = []
            var exact: [UInt64: [Int]] = [:]
            var domain: [UInt64: [Int]] = [:]
            var subdomains: [UInt64: [Int]] = [:]
            var address: [URLHost: [Int]] = [:]
            for (position, entry) in (list?.entries ?? []).enumerated() {
                switch entry.value.host {
                case .any: any.append(position)
                case .exact(let name): exact[FilterIndex.suffixHash(name), default: []].append(position)
                case .domain(let name): domain[FilterIndex.suffixHash(name), default: []].append(position)
                case .subdomains(let name): subdomains[FilterIndex.suffixHash(name), default: []].append(position)
                case .address(let host): address[host, default: []].append(position)
                }
            }
            (self.any, self.exact, self.domain, self.subdomains) = (any, exact, domain, subdomains)
            self.address = address
        }

        /// Positions of the entries whose host form matches `host`, ascending.
        func candidates(for host: URLHost) -> [Int] {
            var found = any
            switch host {
            case .domain(let name):
                guard !exact.isEmpty || !domain.isEmpty || !subdomains.isEmpty else { break }
                var name = name
                name.withUTF8 { bytes in
                    var hash = FilterIndex.hashSeed
                    var index = bytes.count - 1
                    while index >= 0 {
                        hash = FilterIndex.step(hash, bytes[index])
                        if index == 0 {
                            if let hits = exact[hash] { found += hits }
                            if let hits = domain[hash] { found += hits }
                        } else if bytes[index - 1] == UInt8(ascii: ".") {
                            if let hits = domain[hash] { found += hits }
                            if let hits = subdomains[hash] { found += hits }
                        }
                        index -= 1
                    }
                }
            case .ipv4, .ipv6:
                if let hits = address[host] { found += hits }
            }
            if found.count > 1 { found.sort() }
            return found
        }
    }

    static let hashSeed: UInt64 = 0xcbf2_9ce4_8422_2325

    /// One FNV-1a step.
    @inline(__always) static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    /// The hash of a domain name read from its last byte to its first.
    static func suffixHash(_ name: String) -> UInt64 { name.utf8.reversed().reduce(hashSeed, step) }

    let deny: Patterns
    let permitted: Patterns
    let bookmarks: Patterns

    init(_ filter: WebFilter) {
        deny = Patterns(filter.denyList)
        permitted = Patterns(filter.permitted)
        bookmarks = Patterns(filter.bookmarks)
    }
}
