import ArgumentParser
import PropertyList

/// `--max-size`, shared by every command that reads plists.
package struct ReaderLimitOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Largest input to read, in bytes (suffixes K, M, G allowed).", valueName: "size"))
    package var maxSize: ByteCount = ByteCount(defaultMaxSize)

    /// The reader's own limit, the default of `--max-size`.
    package static let defaultMaxSize = PlistReaderOptions().maxInputSize

    package init() {}

    package var readerOptions: PlistReaderOptions { Self.readerOptions(maxSize: maxSize.bytes) }

    /// The reader's options with `--max-size` applied.
    package static func readerOptions(maxSize: Int) -> PlistReaderOptions {
        var options = PlistReaderOptions()
        options.maxInputSize = maxSize
        return options
    }
}

/// A byte count written `65536`, `64K`, `64M` or `1G`.
package struct ByteCount: ExpressibleByArgument, CustomStringConvertible {
    package var bytes: Int

    package init(_ bytes: Int) { self.bytes = bytes }

    package init?(argument: String) {
        var digits = Substring(argument)
        var scale = 1
        switch digits.last?.uppercased() {
        case "K": scale = 1 << 10
        case "M": scale = 1 << 20
        case "G": scale = 1 << 30
        default: break
        }
        if scale > 1 { digits = digits.dropLast() }
        guard let value = Int(digits), value > 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        self.bytes = bytes
    }

    package var description: String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20)M" : String(bytes)
    }
}
