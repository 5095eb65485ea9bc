/// The URL patterns of one BuiltIn filter payload, indexed by host so that a query looks up the labels of its
/// host instead of testing every entry (a 1,000-entry deny list costs a few hash lookups).
struct FilterIndex: Sendable {
    struct Patterns: Sendable {
        var any: [Int] = []
        var exact: [Substring: [Int]] = [:]
        var domain: [Substring: [Int]] = [:]
        var subdomains: [Substring: [Int]] = [:]
        var address: [URLHost: [Int]] = [:]
        let count: Int

        init(_ list: ListSetting<URLPattern>?) {
            count = list?.entries.count ?? 0
            for (position, entry) in (list?.entries ?? []).enumerated() {
                switch entry.value.host {
                case .any: any.append(position)
                case .exact(let name): exact[Substring(name), default: []].append(position)
                case .domain(let name): domain[Substring(name), default: []].append(position)
                case .subdomains(let name): subdomains[Substring(name), default: []].append(position)
                case .address(let host): address[host, default: []].append(position)
                }
            }
        }

        /// Positions of the entries whose host form matches `host`, ascending.
        func candidates(for host: URLHost) -> [Int] {
            var found = any
            switch host {
            case .domain(let name):
                let whole = Substring(name)
                if let hits = exact[whole] { found += hits }
                if let hits = domain[whole] { found += hits }
                var index = whole.startIndex
                while let dot = whole[index...].firstIndex(of: ".") {
                    let suffix = whole[whole.index(after: dot)...]
                    if let hits = domain[suffix] { found += hits }
                    if let hits = subdomains[suffix] { found += hits }
                    index = whole.index(after: dot)
                }
            case .ipv4, .ipv6:
                if let hits = address[host] { found += hits }
            }
            if found.count > 1 { found.sort() }
            return found
        }
    }

    let deny: Patterns
    let permitted: Patterns
    let bookmarks: Patterns

    init(_ filter: WebFilter) {
        deny = Patterns(filter.denyList)
        permitted = Patterns(filter.permitted)
        bookmarks = Patterns(filter.bookmarks)
    }
}
