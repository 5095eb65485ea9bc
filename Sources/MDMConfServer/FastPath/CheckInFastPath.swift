import Fleet
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Takes `POST /v1/checkin` on the event loop, after the HTTP decoder, where `WireFastPath` did not (HTTP/2 streams,
/// chunked bodies, connections that left the front path): reads the body, checks the check-in (`CheckInIntake`, as the route
/// does), hands it to the writer and, once its batch has committed, writes the 200 (or the 503 when the store
/// failed), without the hop to a task, the router and a task woken for the answer. A check-in is a server's most
/// frequent write, and these took about a sixth of its cost.
///
/// A check-in the intake refuses (400, 403, 404, 422) gets the intake's answer here, so its body is parsed once.
/// Anything else goes on to Hummingbird unchanged: other routes, a refused token or an oversized body (the head and
/// the body read so far are passed on, and the route answers 401 or 413 itself), an `Expect: 100-continue`, and every request while an earlier one on the connection is still being answered by
/// Hummingbird. Requests that arrive while a check-in is being stored wait for its answer, so responses keep
/// their order.
final class CheckInFastPath: HTTPPartHandler {

    private let catalogs: CatalogStore
    private let intake: CheckInIntake
    private let writer: CheckInWriter
    /// Requests passed on to Hummingbird whose response has not ended yet.
    private var forwarded = 0
    private enum Phase {
        case idle
        /// Reading a check-in's body.
        case reading(Reading)
        /// A check-in handed to the writer; parts that arrive meanwhile wait in `held`.
        case storing
    }
    private struct Reading {
        let head: HTTPRequest
        var body: ByteBuffer
        let caller: Caller
        let state: CatalogState
        let started: UInt64
    }
    private var phase = Phase.idle
    private var held: [HTTPRequestPart] = []
    /// A read of the socket asked for while a check-in was being stored: the connection reads no more until the
    /// answer is out (a client pipelining meanwhile cannot make `held` grow without end).
    private var readWaiting = false
    private var dates = HTTPDate()

    init(catalogs: CatalogStore, intake: CheckInIntake, writer: CheckInWriter) {
        self.catalogs = catalogs
        self.intake = intake
        self.writer = writer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        read(context, unwrapInboundIn(data))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), forwarded > 0 { forwarded -= 1 }
        context.write(data, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        if storing {
            readWaiting = true
        } else {
            context.read()
        }
    }

    private var storing: Bool {
        if case .storing = phase { return true }
        return false
    }

    private func read(_ context: ChannelHandlerContext, _ part: HTTPRequestPart) {
        switch phase {
        case .storing:
            held.append(part)
        case .reading(var reading):
            phase = .idle  // the enum lets go of the body, so appending to it does not copy it
            switch part {
            case .head:
                // Not possible from the HTTP decoder; pass everything on rather than guess.
                pass(context, reading, then: part)
            case .body(var buffer):
                guard reading.body.readableBytes + buffer.readableBytes <= reading.state.catalog.settings.maxBodySize
                else {
                    pass(context, reading, then: part)  // the route answers 413
                    return
                }
                reading.body.writeBuffer(&buffer)
                phase = .reading(reading)
            case .end:
                finish(context, reading, part)
            }
        case .idle:
            guard case .head(let head) = part, forwarded == 0, let reading = take(head) else {
                if case .head = part { forwarded += 1 }
                context.fireChannelRead(wrapInboundOut(part))
                return
            }
            phase = .reading(reading)
        }
    }

    /// The check-in this request will be, or nil when Hummingbird should answer it.
    private func take(_ head: HTTPRequest) -> Reading? {
        guard head.method == .post, head.path == "/v1/checkin", head.headerFields[.expect] == nil else { return nil }
        let state = catalogs.current
        let limit = state.catalog.settings.maxBodySize
        if let length = head.headerFields[.contentLength] {
            guard let bytes = Int(length), bytes <= limit else { return nil }
        }
        guard
            case .success(let caller) = Caller.authorize(
                authorization: head.headerFields[.authorization], catalog: state.catalog)
        else { return nil }
        return Reading(
            head: head, body: ByteBuffer(), caller: caller, state: state, started: MonotonicClock.nanoseconds)
    }

    /// Gives Hummingbird the request read so far, and `part`.
    private func pass(_ context: ChannelHandlerContext, _ reading: Reading, then part: HTTPRequestPart) {
        phase = .idle
        forwarded += 1
        context.fireChannelRead(wrapInboundOut(.head(reading.head)))
        if reading.body.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(.body(reading.body))) }
        context.fireChannelRead(wrapInboundOut(part))
    }

    private func finish(_ context: ChannelHandlerContext, _ reading: Reading, _ end: HTTPRequestPart) {
        let accepted: CheckInIntake.Accepted
        switch intake.accept(Array(reading.body.readableBytesView), from: reading.caller, state: reading.state) {
        case .success(let check): accepted = check
        case .failure(let refused):
            // The intake's answer, written here: the body is parsed once.
            phase = .idle
            let close = reading.head.headerFields[.connection]?.lowercased() == "close"
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            let bytes = refused.body.serializedBytes()
            headers[.contentLength] = String(bytes.count)
            FastPathResponse.write(context, refused.status, headers, bytes, close: close, dates: &dates)
            FastPathMetrics.checkIn.record(
                status: refused.status, nanoseconds: MonotonicClock.nanoseconds &- reading.started)
            return
        }
        phase = .storing
        let close = reading.head.headerFields[.connection]?.lowercased() == "close"
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        writer.submit(accepted.record) { result in
            // Called by the writing task for every check-in of the batch: the answer is made on the event loop.
            loop.execute {
                let (handler, context) = bound.value
                let (status, bytes): (HTTPResponse.Status, [UInt8]) =
                    switch result {
                    case .success: (.ok, handler.intake.answer(accepted))
                    case .failure(let error): (.serviceUnavailable, CheckInIntake.notStored(error).serializedBytes())
                    }
                handler.respond(context, status, bytes, generation: accepted.state.generation, close: close)
                FastPathMetrics.checkIn.record(
                    status: status, nanoseconds: MonotonicClock.nanoseconds &- reading.started)
                handler.resume(context)
            }
        }
    }

    private func respond(
        _ context: ChannelHandlerContext, _ status: HTTPResponse.Status, _ bytes: [UInt8], generation: Int,
        close: Bool
    ) {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if status == .ok {
            headers[Answer.generationField] = String(generation)
        } else {
            headers[.retryAfter] = String(writer.retryAfter)
        }
        headers[.contentLength] = String(bytes.count)
        FastPathResponse.write(context, status, headers, bytes, close: close, dates: &dates)
    }

    /// After an answer: the parts that waited are read now, in order, and then the socket again.
    private func resume(_ context: ChannelHandlerContext) {
        phase = .idle
        let replayed = !held.isEmpty
        while !held.isEmpty {
            read(context, held.removeFirst())
            if storing { break }
        }
        // Outside a read of the socket: what was passed on is delivered now (Hummingbird takes parts at a read's end).
        if replayed { context.fireChannelReadComplete() }
        if readWaiting, !storing {
            readWaiting = false
            context.read()
        }
    }
}
