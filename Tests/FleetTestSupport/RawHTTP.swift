import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc

    private let systemSend = Glibc.send
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    import Darwin

    private let systemSend = Darwin.send
    private let systemRead = Darwin.read
#endif

/// A plain HTTP/1.1 client over a POSIX socket: it sends exactly the bytes it is given (malformed, slow or
/// oversized requests included) and parses one response. Blocking calls run off the cooperative pool.
public struct RawHTTP: Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public init(status: Int, headers: [(String, String)], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public enum Failure: Error {
        case connect, closedBeforeResponse
        /// Nothing came for `RawHTTP.readTimeout` seconds: the server neither answered nor closed.
        case timedOut
    }

    /// How long a read waits for the server's next bytes. Generous: a whole test suite on two cores can leave a
    /// server's answer unsent for many seconds, and a wait that ran out had read as a closed connection.
    static let readTimeout = 60

    public let port: Int

    public init(port: Int) { self.port = port }

    /// Sends `parts` with `pause` seconds between them, then reads one response (nil when the server closed
    /// the connection without answering).
    public func send(_ parts: [String], pause: Double = 0) async throws -> Response? {
        let port = port
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try Self.exchange(port: port, parts: parts.map { Array($0.utf8) }, pause: pause) })
            }
        }
    }

    /// Sends `text` in one write and returns every byte the server sends until it closes the connection
    /// (pipelined requests, the last one with `Connection: close`).
    public func sendReadingToClose(_ text: String) async throws -> String {
        let port = port
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try Self.exchange(port: port, parts: [Array(text.utf8)], pause: 0, toClose: true) }
                        .map { String(decoding: $0?.body ?? [], as: UTF8.self) })
            }
        }
    }

    /// A request with the usual headers.
    public func request(
        _ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        guard let response = try await send([head + "\r\n" + (body ?? "")]) else { throw Failure.closedBeforeResponse }
        return response
    }

    private static func exchange(port: Int, parts: [[UInt8]], pause: Double, toClose: Bool = false) throws
        -> Response?
    {
        let fd = try connected(port)
        defer { close(fd) }
        for (index, part) in parts.enumerated() {
            if index > 0 && pause > 0 { usleep(useconds_t(pause * 1_000_000)) }
            if !write(fd, part) { return try read(fd) }
        }
        return toClose ? try readToClose(fd) : try read(fd)
    }

    /// A socket connected to `port` on loopback, reads timing out after `readTimeout` seconds.
    fileprivate static func connected(_ port: Int) throws -> Int32 {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure.connect }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure.connect
        }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends all of `bytes`; false when the peer has closed.
    fileprivate static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes {
                systemSend(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if result < 0, errno == EINTR { continue }
            if result <= 0 { return false }
            sent += result
        }
        return true
    }

    /// True while something listens on `port`: a connection is accepted.
    public func isListening() -> Bool {
        guard let fd = try? Self.connected(port) else { return false }
        close(fd)
        return true
    }

    /// Everything until the peer closes, as the body of a pseudo-response.
    private static func readToClose(_ fd: Int32) throws -> Response {
        Response(status: 0, headers: [], body: try receive(fd) { _ in false })
    }

    fileprivate static func read(_ fd: Int32) throws -> Response? {
        let data = try receive(fd) { parse($0)?.complete == true }
        return parse(data)?.response
    }

    /// Bytes until the peer closes or `done` says the bytes so far are enough; `Failure.timedOut` when nothing comes
    /// for `readTimeout` seconds (a wait that ran out is not a close).
    private static func receive(_ fd: Int32, until done: ([UInt8]) -> Bool) throws -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timedOut }
            if count <= 0 { return data }
            data += buffer[0..<count]
            if done(data) { return data }
        }
    }

    private static func parse(_ data: [UInt8]) -> (response: Response, complete: Bool)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<$0 + 4]) == separator }) else {
            return nil
        }
        let lines = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces()))
        }
        let body = Array(data[(end + 4)...])
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) }
        let response = Response(status: status, headers: headers, body: length.map { Array(body.prefix($0)) } ?? body)
        return (response, length.map { body.count >= $0 } ?? false)
    }
}

extension RawHTTP {
    /// One connection driven step by step, so a test can act between the bytes it sends (trigger a shutdown, keep
    /// a request from ever finishing) and ask what the server did, instead of sleeping and hoping.
    public final class Connection: @unchecked Sendable {
        public enum Outcome: Sendable {
            /// Nothing yet: the server neither answered nor closed.
            case open
            /// The server closed the connection (or reset it) without an answer.
            case closed
            case answered(Response)
        }

        private let fd: Int32
        private let serverPort: Int
        private let localPort: Int

        public init(port: Int) throws {
            let socket = try RawHTTP.connected(port)
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
            }
            fd = socket
            serverPort = port
            localPort = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }

        /// Sends `text`; false when the server has closed the connection.
        public func write(_ text: String) async -> Bool {
            let fd = fd
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: RawHTTP.write(fd, Array(text.utf8))) }
            }
        }

        /// Reads one response; nil when the server closed the connection first.
        public func response() async throws -> Response? {
            let fd = fd
            return try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(with: Result { try RawHTTP.read(fd) }) }
            }
        }

        /// What the server has done within `seconds`: answered, closed, or neither.
        public func outcome(within seconds: Double) async -> Outcome {
            let fd = fd
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, Int32(seconds * 1_000)) > 0 else {
                        continuation.resume(returning: .open)
                        return
                    }
                    let answer = try? RawHTTP.read(fd)
                    continuation.resume(returning: answer.map { .answered($0) } ?? .closed)
                }
            }
        }

        /// True once the server has taken every byte sent so far off its socket: the receive queue of the
        /// server's end of this connection in `/proc/net/tcp` (Linux) is empty.
        public func serverHasReadEverything() -> Bool {
            // Read to the end by hand: the file reports a size of 0 and is made a page at a time.
            let file = open("/proc/net/tcp", O_RDONLY)
            guard file >= 0 else { return false }
            defer { close(file) }
            var table: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { systemRead(file, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                table += buffer[0..<count]
            }
            let local = ":" + Self.hex(serverPort)
            let remote = ":" + Self.hex(localPort)
            for line in String(decoding: table, as: UTF8.self).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 4, fields[1].hasSuffix(local), fields[2].hasSuffix(remote) else { continue }
                return fields[4].split(separator: ":").last.flatMap { Int($0, radix: 16) } == 0
            }
            return false
        }

        /// A port as `/proc/net/tcp` writes it: four upper-case hex digits.
        static func hex(_ port: Int) -> String {
            let digits = String(port, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " || $0 == "\r" }.reversed())
    }
}

extension String {
    fileprivate func components(separatedBy separator: String) -> [String] {
        var result: [String] = []
        var rest = self[...]
        while let range = rest.firstRange(of: separator) {
            result.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        result.append(String(rest))
        return result
    }
}
