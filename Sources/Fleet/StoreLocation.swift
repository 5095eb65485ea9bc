/// The `--store` argument (*Fleet state*): `sqlite:PATH`, `postgres://…` or `postgresql://…`, or `none`.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file (`sqlite:PATH`).
    case sqlite(path: String)
    /// A PostgreSQL database (`postgres://…`).
    case postgres(PostgresLocation)
    /// No store (`--store none`): fleet features off.
    case none

    /// Reads a `--store` value, or says why it is not one.
    public static func parse(_ text: String) -> Result<StoreLocation, FleetStoreError> {
        if text == "none" { return .success(.none) }
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else {
                return .failure(FleetStoreError(.unusable, "--store sqlite: needs a path, e.g. sqlite:fleet.sqlite"))
            }
            return .success(.sqlite(path: path))
        }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            return PostgresLocation.parse(text).map(StoreLocation.postgres)
        }
        return .failure(
            FleetStoreError(
                .unusable, "--store must be sqlite:PATH, postgres://user@host:port/db or none, not '\(text)'"))
    }

    /// The location without a password, for logs and start-up lines.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let location): location.description
        case .none: "none"
        }
    }
}

/// `postgres://user[:password]@host[:port]/database[?host=/socket/dir]`, percent-decoded.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// The role to connect as.
    public var user: String
    /// Its password, when the URL has one.
    public var password: String?
    /// The host name or address.
    public var host: String
    /// The port (default 5432).
    public var port: Int
    /// The database.
    public var database: String
    /// A Unix socket folder (`?host=/var/run/postgresql`), used instead of host and port.
    public var socketDirectory: String?

    /// A location as given.
    public init(
        user: String, password: String?, host: String, port: Int, database: String, socketDirectory: String? = nil
    ) {
        (self.user, self.password, self.host, self.port, self.database) = (user, password, host, port, database)
        self.socketDirectory = socketDirectory
    }

    /// The socket file, when connecting through a Unix socket.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// The URL without its password, for logs.
    public var description: String {
        let place = socketDirectory.map { "?host=\($0)" } ?? ""
        return "postgres://\(user)@\(host):\(port)/\(database)\(place)"
    }

    static func parse(_ text: String) -> Result<PostgresLocation, FleetStoreError> {
        func bad(_ why: String) -> Result<PostgresLocation, FleetStoreError> {
            .failure(FleetStoreError(.unusable, "--store \(redacted(text)): \(why)"))
        }
        guard let schemeEnd = text.firstRange(of: "://") else { return bad("not a URL") }
        var rest = Substring(text[schemeEnd.upperBound...])
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { return bad("no database name (postgres://user@host/db)") }
        let authority = rest[..<slash]
        guard let database = decode(rest[rest.index(after: slash)...]), !database.isEmpty else {
            return bad("no database name (postgres://user@host/db)")
        }
        var userInfo: Substring = ""
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
        }
        var user = userInfo
        var password: String?
        if let colon = userInfo.firstIndex(of: ":") {
            user = userInfo[..<colon]
            password = decode(userInfo[userInfo.index(after: colon)...])
        }
        var host = hostPort
        var port = 5432
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasPrefix("[") || hostPort[..<colon].hasSuffix("]") {
            host = hostPort[..<colon]
            guard let number = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(number) else {
                return bad("the port is not a number from 1 to 65535")
            }
            port = number
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        var socket: String?
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return bad("'\(pair)' is not name=value") }
            switch parts[0] {
            case "host" where parts[1].hasPrefix("/") || parts[1].hasPrefix("%2F"): socket = decode(parts[1])
            case "host": host = parts[1]
            case "port":
                guard let number = Int(parts[1]), (1...65535).contains(number) else {
                    return bad("the port is not a number from 1 to 65535")
                }
                port = number
            case "sslmode" where parts[1] == "disable": break
            default: return bad("unsupported parameter '\(parts[0])' (host, port, sslmode=disable)")
            }
        }
        guard let userName = decode(user), !userName.isEmpty else {
            return bad("no user name (postgres://user@host/db)")
        }
        if host.isEmpty && socket == nil { host = "localhost" }
        guard let hostName = decode(host) else { return bad("the host is not valid") }
        return .success(
            PostgresLocation(
                user: userName, password: password, host: hostName, port: port, database: database,
                socketDirectory: socket))
    }

    /// `postgres://user:secret@…` with the password replaced, for error messages.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.firstRange(of: "://"), let at = text[schemeEnd.upperBound...].lastIndex(of: "@"),
            let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<colon]) + ":<redacted>" + String(text[at...])
    }

    /// Percent-decoding; nil for a malformed escape or bytes that are not UTF-8.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first < utf8.endIndex, utf8.index(after: first) < utf8.endIndex,
                    let high = hex(utf8[first]), let low = hex(utf8[utf8.index(after: first)])
                else { return nil }
                bytes.append(high << 4 | low)
                index = utf8.index(index, offsetBy: 3)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
