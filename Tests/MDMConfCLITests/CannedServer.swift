import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A misbehaving HTTP server on loopback, for what a real `mdmconf serve` never does: it reads a request and
/// answers every connection with the same raw bytes, or never answers at all.
final class CannedServer: @unchecked Sendable {
    enum Behaviour {
        /// Writes these bytes after reading the request head, then closes.
        case answer(String)
        /// Reads the request and holds the connection open without a byte until stopped.
        case silent
    }

    let port: Int
    private let listener: Int32
    private let behaviour: Behaviour
    private let lock = NSLock()
    private var held: [Int32] = []
    private var stopped = false

    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw ServerProcessError(message: "canned server: bind failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in serve() }
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            Thread.detachNewThread { [self] in handle(connection) }
        }
    }

    private func handle(_ connection: Int32) {
        // Read until the end of the head (the client's small bodies come with it or right after).
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !received.contains(subsequence: Array("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        switch behaviour {
        case .answer(let text):
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, bytes.count) }
            close(connection)
        case .silent:
            lock.withLock {
                if stopped { close(connection) } else { held.append(connection) }
            }
        }
    }

    func stop() {
        let first = lock.withLock {
            guard !stopped else { return false }
            stopped = true
            for connection in held { close(connection) }
            held = []
            return true
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard count >= subsequence.count else { return false }
        for start in 0...(count - subsequence.count)
        where self[start..<start + subsequence.count].elementsEqual(subsequence) {
            return true
        }
        return false
    }
}
