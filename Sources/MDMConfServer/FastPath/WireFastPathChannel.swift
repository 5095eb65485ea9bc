import Fleet
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import PropertyList

/// A server child channel with `WireFastPath` in front of `base`'s HTTP/1.1 decoder: first in the pipeline
/// for plain HTTP, right behind the TLS handler for HTTPS.
struct WireFastPathChannel<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    let store: CatalogStore
    let readerOptions: PlistReaderOptions
    let checkIns: (intake: CheckInIntake, writer: CheckInWriter)?
    let tls: Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        let handler = WireFastPath(store: store, readerOptions: readerOptions, checkIns: checkIns, tls: tls)
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
