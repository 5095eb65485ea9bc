import NIOCore
import NIOHTTPTypes

/// Closes a connection that does not deliver a complete request within `timeout`, counted from the moment the
/// server starts waiting (connection open, or the previous response sent) to the request's end: slow headers,
/// slow bodies and idle keep-alive connections all end there.
///
/// One timer per connection, moved only when it fires: a request costs two clock reads, not a scheduled task.
final class RequestDeadlineHandler: HTTPPartHandler {

    private let timeout: TimeAmount
    /// When the server began waiting for the current request; nil while a request is being answered.
    private var waitingSince: NIODeadline?
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { stop() }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { waitingSince = nil }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { waitingSince = .now() }
        context.write(data, promise: promise)
    }

    /// A request was read and answered in front of the decoder (`WireFastPath`): the wait for the next one
    /// starts now.
    func answered() { waitingSince = .now() }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        waitingSince = .now()
        schedule(context, at: .now() + timeout)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.fire(context)
        }
    }

    private func fire(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        guard let since = waitingSince else {
            schedule(context, at: now + timeout)
            return
        }
        if since + timeout <= now {
            timer = nil
            context.close(promise: nil)
        } else {
            schedule(context, at: since + timeout)
        }
    }

    private func stop() {
        timer?.cancel()
        timer = nil
    }
}

/// A handler in the server's pipeline between Hummingbird's HTTP codec and its router: it reads the request parts the
/// codec decodes and writes the response parts it encodes (the fast paths and the request deadline).
protocol HTTPPartHandler: ChannelDuplexHandler, RemovableChannelHandler
where
    InboundIn == HTTPRequestPart, InboundOut == HTTPRequestPart, OutboundIn == HTTPResponsePart,
    OutboundOut == HTTPResponsePart
{}
