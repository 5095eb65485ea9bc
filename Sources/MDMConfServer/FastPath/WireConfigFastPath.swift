import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Answers `GET /v1/apps/{bundleId}/config` straight from the connection's bytes, in front of the HTTP/1.1
/// decoder: the request head is read in place, `ConfigLookup` decides as it does for the route, and the whole
/// response is written as one buffer. This is the request every app makes at every launch, and parsing it into
/// HTTP parts, converting those to `HTTPRequest` and encoding the answer back took most of its time.
///
/// Only the plainest requests are answered here: `GET` of a `/v1/apps/…` target without `%`, `HTTP/1.1`, a
/// complete head with CRLF line ends, header values of visible ASCII, no body, no `Upgrade` or `Expect`, at most one
/// `Authorization`, `Accept` and `If-None-Match`, and `Connection` absent, `keep-alive` or `close`. On the first
/// request that is anything else (or whose answer is a refusal), the connection hands that request and every byte
/// after it to the decoder and stays with it: the responses keep their order, and everything unusual is judged by
/// the one HTTP parser. Over TLS the handler waits for the handshake and steps aside when ALPN chose HTTP/2.
final class WireConfigFastPath: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Mode {
        /// TLS: nothing is read until the handshake says which protocol the connection speaks.
        case awaitingHandshake
        case answering
        /// Every byte goes on to the decoder, for the rest of the connection.
        case passingThrough
    }

    private let store: CatalogStore
    private var mode: Mode
    private var dates = HTTPDate()
    /// The connection's deadline handler, told of every answered request as it would be by the decoder's parts.
    private var deadline: RequestDeadlineHandler?
    private var lookedUpDeadline = false
    private var wroteSinceFlush = false

    /// - Parameter tls: true when the handler sits behind a TLS handler and must wait for ALPN.
    init(store: CatalogStore, tls: Bool) {
        self.store = store
        self.mode = tls ? .awaitingHandshake : .answering
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .awaitingHandshake = mode, let event = event as? TLSUserEvent,
            case .handshakeCompleted(let negotiated) = event
        {
            mode = negotiated == nil || negotiated == "http/1.1" ? .answering : .passingThrough
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .answering = mode else {
            context.fireChannelRead(data)
            return
        }
        var buffer = unwrapInboundIn(data)
        while buffer.readableBytes > 0 {
            let head = buffer.withUnsafeReadableBytes { WireRequestHead.parse($0) }
            guard let head, let served = answer(head) else {
                mode = .passingThrough
                if wroteSinceFlush {
                    wroteSinceFlush = false
                    context.flush()
                }
                context.fireChannelRead(wrapInboundOut(buffer))
                return
            }
            buffer.moveReaderIndex(forwardBy: head.length)
            let started = MonotonicClock.nanoseconds
            write(context, served, close: head.close)
            ConfigMetrics.record(status: served.status, nanoseconds: MonotonicClock.nanoseconds &- started)
            if head.close {
                let channel = context.channel
                wroteSinceFlush = false
                mode = .passingThrough
                context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in channel.close(promise: nil) }
                return
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if wroteSinceFlush {
            wroteSinceFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    private func answer(_ head: WireRequestHead) -> ConfigLookup.Served? {
        ConfigLookup.served(
            target: head.target, authorization: head.authorization, accept: head.accept,
            ifNoneMatch: head.ifNoneMatch, state: store.current)
    }

    private func write(_ context: ChannelHandlerContext, _ served: ConfigLookup.Served, close: Bool) {
        let body = served.notModified ? [] : served.representation.bytes
        var buffer = context.channel.allocator.buffer(capacity: 400 + body.count)
        buffer.writeStaticString(served.notModified ? "HTTP/1.1 304 Not Modified\r\n" : "HTTP/1.1 200 OK\r\n")
        served.eachHeader { name, value in
            buffer.writeString(name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(value)
            buffer.writeStaticString("\r\n")
        }
        if !served.notModified {
            buffer.writeStaticString("Content-Length: ")
            buffer.writeString(String(body.count))
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Date: ")
        buffer.writeString(dates.now())
        buffer.writeStaticString("\r\nServer: mdmconf\r\n")
        if close { buffer.writeStaticString("Connection: close\r\n") }
        buffer.writeStaticString("\r\n")
        buffer.writeBytes(body)
        context.write(wrapOutboundOut(buffer), promise: nil)
        wroteSinceFlush = true
        if !lookedUpDeadline {
            lookedUpDeadline = true
            deadline = try? context.pipeline.syncOperations.handler(type: RequestDeadlineHandler.self)
        }
        deadline?.answered()
    }
}

/// A request head read in place from the connection's bytes, as far as `WireConfigFastPath` takes them.
struct WireRequestHead {
    var target: Substring
    var authorization: String?
    var accept: String?
    var ifNoneMatch: String?
    var close = false
    /// The bytes the head takes, up to and including its empty line.
    var length: Int

    /// The head at the start of `bytes`, or nil when it is incomplete or anything but the plainest `GET` of a
    /// `/v1/apps/…` target (see `WireConfigFastPath`).
    static func parse(_ bytes: UnsafeRawBufferPointer) -> WireRequestHead? {
        let space = UInt8(ascii: " "), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        let count = bytes.count
        guard count > 16, bytes[0] == UInt8(ascii: "G"), bytes[1] == UInt8(ascii: "E"), bytes[2] == UInt8(ascii: "T"),
            bytes[3] == space
        else { return nil }
        var index = 4
        let targetStart = index
        while index < count, bytes[index] != space {
            let byte = bytes[index]
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "%") else { return nil }
            index += 1
        }
        let targetEnd = index
        let version = " HTTP/1.1\r\n".utf8
        guard targetEnd - targetStart > 9, count - index >= version.count else { return nil }
        for expected in version {
            guard bytes[index] == expected else { return nil }
            index += 1
        }
        let target = Substring(decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd]), as: UTF8.self)
        guard target.hasPrefix("/v1/apps/") else { return nil }
        var head = WireRequestHead(target: target, length: 0)
        var seen = Field.Seen()
        while true {
            // One header line: name, colon, value, CRLF. The empty line ends the head.
            guard index + 1 < count else { return nil }
            if bytes[index] == cr {
                guard bytes[index + 1] == lf else { return nil }
                head.length = index + 2
                return head
            }
            let nameStart = index
            while index < count, bytes[index] != UInt8(ascii: ":") {
                guard Field.isTokenByte(bytes[index]) else { return nil }
                index += 1
            }
            guard index < count, index > nameStart else { return nil }
            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index])
            index += 1
            while index < count, bytes[index] == space || bytes[index] == UInt8(ascii: "\t") { index += 1 }
            let valueStart = index
            while index < count, bytes[index] != cr {
                let byte = bytes[index]
                guard (byte >= 0x20 && byte < 0x7F) || byte == UInt8(ascii: "\t") else { return nil }
                index += 1
            }
            guard index + 1 < count, bytes[index + 1] == lf else { return nil }
            var valueEnd = index
            while valueEnd > valueStart, bytes[valueEnd - 1] == space || bytes[valueEnd - 1] == UInt8(ascii: "\t") {
                valueEnd -= 1
            }
            index += 2
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            switch Field(name) {
            case .authorization?:
                guard seen.insert(.authorization) else { return nil }
                head.authorization = String(decoding: value, as: UTF8.self)
            case .accept?:
                guard seen.insert(.accept) else { return nil }
                head.accept = String(decoding: value, as: UTF8.self)
            case .ifNoneMatch?:
                guard seen.insert(.ifNoneMatch) else { return nil }
                head.ifNoneMatch = String(decoding: value, as: UTF8.self)
            case .connection?:
                guard seen.insert(.connection) else { return nil }
                if Field.equalsIgnoringCase(value, "close") {
                    head.close = true
                } else if !Field.equalsIgnoringCase(value, "keep-alive") {
                    return nil
                }
            case .contentLength?:
                guard value.count == 1, value[0] == UInt8(ascii: "0"), seen.insert(.contentLength) else { return nil }
            case .refused?:
                return nil
            case nil:
                continue
            }
        }
    }

    /// The header names the fast path reads or refuses.
    private enum Field: UInt8 {
        case authorization = 1
        case accept = 2
        case ifNoneMatch = 4
        case connection = 8
        case contentLength = 16
        /// `Transfer-Encoding`, `Upgrade`, `Expect`: the decoder's to judge.
        case refused = 32

        struct Seen {
            private var bits: UInt8 = 0
            /// False when `field` was seen before.
            mutating func insert(_ field: Field) -> Bool {
                defer { bits |= field.rawValue }
                return bits & field.rawValue == 0
            }
        }

        init?(_ name: UnsafeRawBufferPointer) {
            switch name.count {
            case 13 where Field.equalsIgnoringCase(name, "authorization"): self = .authorization
            case 13 where Field.equalsIgnoringCase(name, "if-none-match"): self = .ifNoneMatch
            case 6 where Field.equalsIgnoringCase(name, "accept"): self = .accept
            case 6 where Field.equalsIgnoringCase(name, "expect"): self = .refused
            case 7 where Field.equalsIgnoringCase(name, "upgrade"): self = .refused
            case 10 where Field.equalsIgnoringCase(name, "connection"): self = .connection
            case 14 where Field.equalsIgnoringCase(name, "content-length"): self = .contentLength
            case 17 where Field.equalsIgnoringCase(name, "transfer-encoding"): self = .refused
            default: return nil
            }
        }

        /// ASCII case-insensitive equality with a lower-case `expected`.
        static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ expected: StaticString) -> Bool {
            guard bytes.count == expected.utf8CodeUnitCount else { return false }
            let lower = UnsafeRawBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)
            for offset in 0..<bytes.count where bytes[offset] | 0x20 != lower[offset] {
                // `| 0x20` folds letters; `-` is 0x2D either way.
                return false
            }
            return true
        }

        /// RFC 9110 `tchar`.
        static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}

/// A server child channel with `WireConfigFastPath` in front of `base`'s HTTP/1.1 decoder: first in the pipeline
/// for plain HTTP, right behind the TLS handler for HTTPS.
struct WireFastPathChannel<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    let store: CatalogStore
    let tls: Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        let handler = WireConfigFastPath(store: store, tls: tls)
        if !tls {
            do { try channel.pipeline.syncOperations.addHandler(handler) } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            return base.setup(channel: channel, logger: logger)
        }
        let value = base.setup(channel: channel, logger: logger)
        do {
            let decryption = try channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
            try channel.pipeline.syncOperations.addHandler(handler, position: .after(decryption))
        } catch {
            logger.debug("no TLS handler to put the configuration fast path behind: \(error)")
        }
        return value
    }

    func handle(value: Base.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
