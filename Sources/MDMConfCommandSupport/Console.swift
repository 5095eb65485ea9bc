#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output and error, and what the terminal allows.
package enum Console {
    package static func out(_ text: String) { write(text, to: 1) }

    package static func error(_ text: String) { write(text, to: 2) }

    /// Writes `bytes` (UTF-8) on standard output: for output made in pieces, without building one string.
    package static func out(bytes: UnsafeBufferPointer<UInt8>) { write(bytes, to: 1) }

    /// Writes all of `text` with `write(2)`, unbuffered, so nothing is lost at exit.
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { write($0, to: descriptor) }
    }

    private static func write(_ buffer: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
        var offset = 0
        while offset < buffer.count {
            let written = systemWrite(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Colour only when standard output is a terminal and `NO_COLOR` is unset (https://no-color.org).
    package static var colorEnabled: Bool {
        isatty(1) != 0 && getenv("NO_COLOR") == nil
    }

    package static var stderrColorEnabled: Bool {
        isatty(2) != 0 && getenv("NO_COLOR") == nil
    }
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafePointer<UInt8>?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
