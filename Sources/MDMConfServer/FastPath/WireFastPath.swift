import Fleet
import HTTPTypes
import MDMConf
import NIOCore
import NIOHTTP1
import NIOTLS
import PropertyList
import UpdatePolicy

/// Answers the requests apps make most, straight from the connection's bytes in front of the HTTP/1.1 decoder:
/// `GET /v1/apps/{bundleId}/config` (200 or 304), `POST /v1/update-check` (the decision) and, with a fleet store,
/// `POST /v1/checkin` (200 once its batch has committed, 503 when the store failed). The request head is read in
/// place, the answer is decided by the same code as the route's (`ConfigLookup`, `UpdateAnswer`,
/// `CheckInIntake`), and the whole response is written as one buffer. While a check-in is being stored the
/// connection reads nothing more, and bytes already read wait, so answers keep their order. Parsing these requests
/// into HTTP parts, converting them to `HTTPRequest`, hopping to a task and encoding the answer back took most of
/// their time.
///
/// Only the plainest requests are answered here: a complete head with CRLF line ends, `HTTP/1.1`, a target without
/// `%`, header values of visible ASCII, no `Transfer-Encoding`, `Upgrade` or `Expect`, at most one
/// `Authorization`, `Accept`, `If-None-Match` and `Content-Length`, `Connection` absent, `keep-alive` or `close`,
/// and for a POST the whole body already read. A refused token or an oversized body is the route's to answer (a
/// check-in the intake refuses is answered here, from the intake's refusal). On the
/// first request that is anything else, the connection hands that request and every byte after it to the decoder
/// and stays with it: the responses keep their order, and everything unusual is judged by the one HTTP parser.
/// Over TLS the handler waits for the handshake and steps aside when ALPN chose HTTP/2.
final class WireFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Mode {
        /// TLS: nothing is read until the handshake says which protocol the connection speaks.
        case awaitingHandshake
        case answering
        /// Every byte goes on to the decoder, for the rest of the connection.
        case passingThrough
    }

    /// One answer, ready to write.
    private struct Written {
        var status: HTTPResponse.Status
        var headers: [(HTTPField.Name, String)]
        var body: [UInt8]
        /// 304 has no Content-Length.
        var announcesLength: Bool
    }

    private let store: CatalogStore
    private let readerOptions: PlistReaderOptions
    /// The check-in intake and the store's writer; nil without a fleet store (the route answers 503 then).
    private let checkIns: (intake: CheckInIntake, writer: CheckInWriter)?
    private var mode: Mode
    /// A check-in handed to the writer and not yet answered: bytes read meanwhile wait in `held`.
    private var storing = false
    private var held: ByteBuffer?
    /// A read of the socket asked for while a check-in was being stored, made once it is answered.
    private var readWaiting = false
    private var dates = HTTPDate()
    /// The connection's deadline handler, told of every answered request as it would be by the decoder's parts.
    private var deadline: RequestDeadlineHandler?
    private var lookedUpDeadline = false
    private var wroteSinceFlush = false

    /// - Parameter tls: true when the handler sits behind a TLS handler and must wait for ALPN.
    init(
        store: CatalogStore, readerOptions: PlistReaderOptions,
        checkIns: (intake: CheckInIntake, writer: CheckInWriter)?, tls: Bool
    ) {
        self.store = store
        self.readerOptions = readerOptions
        self.checkIns = checkIns
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
        if storing {
            if var waiting = held {
                held = nil  // let go of it, so that appending does not copy it
                waiting.writeBuffer(&buffer)
                held = waiting
            } else {
                held = buffer
            }
            return
        }
        process(context, buffer)
    }

    func read(context: ChannelHandlerContext) {
        if storing {
            readWaiting = true
        } else {
            context.read()
        }
    }

    /// Answers the requests at the start of `buffer` one by one; at the first one it does not take, hands that and
    /// the rest to the decoder; at a check-in, holds the rest until the check-in is stored.
    private func process(_ context: ChannelHandlerContext, _ buffer: ByteBuffer) {
        var buffer = buffer
        while buffer.readableBytes > 0 {
            enum Step {
                case answered(length: Int, close: Bool)
                case storing(length: Int)
            }
            let step = buffer.withUnsafeReadableBytes { bytes -> Step? in
                guard let head = WireRequestHead.parse(bytes) else { return nil }
                if head.method == .post, head.target == "/v1/checkin" {
                    switch checkIn(context, head, bytes) {
                    case .storing?: return .storing(length: head.length + head.contentLength)
                    case .answered?: return .answered(length: head.length + head.contentLength, close: head.close)
                    case nil: return nil
                    }
                }
                guard let written = answer(head, bytes) else { return nil }
                write(context, written, close: head.close)
                return .answered(length: head.length + head.contentLength, close: head.close)
            }
            switch step {
            case nil:
                mode = .passingThrough
                if wroteSinceFlush {
                    wroteSinceFlush = false
                    context.flush()
                }
                context.fireChannelRead(wrapInboundOut(buffer))
                return
            case .storing(let length)?:
                buffer.moveReaderIndex(forwardBy: length)
                if buffer.readableBytes > 0 { held = buffer }
                if wroteSinceFlush {
                    wroteSinceFlush = false
                    context.flush()
                }
                return
            case .answered(let length, let close)?:
                buffer.moveReaderIndex(forwardBy: length)
                if close {
                    closeAfterWrites(context)
                    return
                }
            }
        }
    }

    private func closeAfterWrites(_ context: ChannelHandlerContext) {
        let channel = context.channel
        wroteSinceFlush = false
        mode = .passingThrough
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Hands a check-in to the writer, or writes its refusal (400, 403, 404, 422: the intake's answer, so the body is
    /// parsed once); false when the route should answer it (a refused token, too large, not whole in `bytes`, or no
    /// fleet store).
    private func checkIn(_ context: ChannelHandlerContext, _ head: WireRequestHead, _ bytes: UnsafeRawBufferPointer)
        -> CheckInStep?
    {
        let started = MonotonicClock.nanoseconds
        let state = store.current
        guard let (intake, writer) = checkIns, head.contentLength <= state.catalog.settings.maxBodySize,
            bytes.count - head.length >= head.contentLength,
            case .success(let caller) = Caller.authorize(authorization: head.authorization, catalog: state.catalog)
        else { return nil }
        let accepted: CheckInIntake.Accepted
        switch intake.accept(Array(bytes[head.length..<head.length + head.contentLength]), from: caller, state: state) {
        case .success(let check): accepted = check
        case .failure(let refused):
            let written = Written(
                status: refused.status, headers: [(.contentType, "application/json")],
                body: refused.body.serializedBytes(), announcesLength: true)
            write(context, written, close: head.close)
            FastPathMetrics.checkIn.record(status: refused.status, nanoseconds: MonotonicClock.nanoseconds &- started)
            return .answered
        }
        storing = true
        let close = head.close
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        writer.submit(accepted.record) { result in
            // Called by the writing task for every check-in of the batch: the answer is made on the event loop.
            loop.execute {
                let (handler, context) = bound.value
                var headers: [(HTTPField.Name, String)] = [(.contentType, "application/json")]
                let written: Written
                switch result {
                case .success:
                    headers.append((Answer.generationField, String(accepted.state.generation)))
                    written = Written(
                        status: .ok, headers: headers, body: intake.answer(accepted), announcesLength: true)
                case .failure(let error):
                    headers.append((.retryAfter, String(writer.retryAfter)))
                    written = Written(
                        status: .serviceUnavailable, headers: headers,
                        body: CheckInIntake.notStored(error).serializedBytes(), announcesLength: true)
                }
                handler.storing = false
                handler.write(context, written, close: close)
                FastPathMetrics.checkIn.record(
                    status: written.status, nanoseconds: MonotonicClock.nanoseconds &- started)
                handler.resume(context, close: close)
            }
        }
        return .storing
    }

    private enum CheckInStep { case answered, storing }

    /// After a check-in's answer: the bytes that waited are taken now, and then the socket is read again.
    private func resume(_ context: ChannelHandlerContext, close: Bool) {
        if close {
            held = nil
            closeAfterWrites(context)
            return
        }
        if let waiting = held {
            held = nil
            process(context, waiting)
            // Outside a read of the socket: what was passed on is delivered now.
            context.fireChannelReadComplete()
        }
        if wroteSinceFlush {
            wroteSinceFlush = false
            context.flush()
        }
        if readWaiting, !storing {
            readWaiting = false
            context.read()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if wroteSinceFlush {
            wroteSinceFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// The answer to `head` (whose body, if any, follows it in `bytes`), or nil when the route should answer.
    private func answer(_ head: WireRequestHead, _ bytes: UnsafeRawBufferPointer) -> Written? {
        let started = MonotonicClock.nanoseconds
        let state = store.current
        switch head.method {
        case .get:
            guard
                let served = ConfigLookup.served(
                    target: head.target, authorization: head.authorization, accept: head.accept,
                    ifNoneMatch: head.ifNoneMatch, state: state)
            else { return nil }
            var headers: [(HTTPField.Name, String)] = []
            headers.reserveCapacity(6)
            served.eachHeader { headers.append(($0, $1)) }
            defer {
                FastPathMetrics.config.record(status: served.status, nanoseconds: MonotonicClock.nanoseconds &- started)
            }
            return Written(
                status: served.status, headers: headers,
                body: served.notModified ? [] : served.representation.bytes, announcesLength: !served.notModified)
        case .post:
            guard head.isTarget("/v1/update-check"), head.contentLength <= state.catalog.settings.maxBodySize,
                bytes.count - head.length >= head.contentLength,
                case .success = Caller.authorize(authorization: head.authorization, catalog: state.catalog)
            else { return nil }
            let body = UnsafeRawBufferPointer(rebasing: bytes[head.length..<head.length + head.contentLength])
            // Not JSON: the route answers the 400.
            guard case .success(let parsed) = UpdateAnswer.request(body, options: readerOptions) else { return nil }
            let answer = UpdateAnswer(parsed, state: state)
            var headers: [(HTTPField.Name, String)] = []
            headers.reserveCapacity(2)
            headers.append((.contentType, "application/json"))
            if let generation = answer.generation { headers.append((Answer.generationField, String(generation))) }
            defer {
                FastPathMetrics.updateCheck.record(
                    status: answer.status, nanoseconds: MonotonicClock.nanoseconds &- started)
            }
            return Written(
                status: answer.status, headers: headers, body: answer.body, announcesLength: true)
        }
    }

    private func write(_ context: ChannelHandlerContext, _ written: Written, close: Bool) {
        // The head is written straight into the buffer in two passes over its pieces, the first counting its bytes.
        // Gathering it in an array first, with `+=` of each piece's `String.UTF8View`, cost about 200 instructions
        // a piece (a sixth of a config GET with its dozen headers); a buffer write per piece cost more.
        let code = String(written.status.code)
        let reason = HTTPResponseStatus(statusCode: written.status.code).reasonPhrase
        let length = written.announcesLength ? String(written.body.count) : nil
        let date = dates.now()
        func head(_ out: inout HeadBytes) {
            // The status line as NIO's encoder writes it for the route, reason phrase and all.
            out.put("HTTP/1.1 ")
            out.put(code)
            out.put(" ")
            out.put(reason)
            out.put("\r\n")
            for (name, value) in written.headers {
                out.put(name.rawName)
                out.put(": ")
                out.put(value)
                out.put("\r\n")
            }
            if let length {
                out.put("Content-Length: ")
                out.put(length)
                out.put("\r\n")
            }
            out.put("Date: ")
            out.put(date)
            out.put("\r\nServer: mdmconf\r\n")
            if close { out.put("Connection: close\r\n") }
            out.put("\r\n")
        }
        var counted = HeadBytes(start: nil)
        head(&counted)
        var buffer = context.channel.allocator.buffer(capacity: counted.count + written.body.count)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: counted.count) { raw in
            var out = HeadBytes(start: raw.baseAddress)
            head(&out)
            return out.count
        }
        buffer.writeBytes(written.body)
        context.write(wrapOutboundOut(buffer), promise: nil)
        wroteSinceFlush = true
        if !lookedUpDeadline {
            lookedUpDeadline = true
            deadline = try? context.pipeline.syncOperations.handler(type: RequestDeadlineHandler.self)
        }
        deadline?.answered()
    }
}

/// A response head's bytes copied to `start` piece by piece, or only counted when `start` is nil.
private struct HeadBytes {
    let start: UnsafeMutableRawPointer?
    private(set) var count = 0

    init(start: UnsafeMutableRawPointer?) { self.start = start }

    @inline(__always)
    mutating func put(_ bytes: UnsafeRawBufferPointer) {
        if let start, let source = bytes.baseAddress {
            (start + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    @inline(__always)
    mutating func put(_ literal: StaticString) {
        put(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { put(UnsafeRawBufferPointer($0)) }
    }
}
