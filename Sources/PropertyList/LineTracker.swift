#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns byte offsets into 1-based lines and byte columns.
///
/// Offsets usually arrive in increasing order (start tags during a parse), so the tracker scans forward
/// once, remembering line starts, and answers earlier offsets by binary search.
struct LineTracker {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var lineStarts: [Int] = [0]
    private var scanned = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func position(at rawOffset: Int) -> (line: Int, column: Int) {
        let offset = min(max(rawOffset, 0), bytes.count)
        if offset > scanned, let base = bytes.baseAddress {
            // memchr finds each newline a word at a time; a byte loop was 4 % of linting 255 manifests.
            var index = scanned
            while index < offset, let found = memchr(base + index, 0x0A, offset - index) {
                let newline = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                lineStarts.append(newline + 1)
                index = newline + 1
            }
            scanned = offset
        }
        // The last line start at or before offset.
        if let last = lineStarts.last, last <= offset {
            return (lineStarts.count, offset - last + 1)
        }
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return (low + 1, offset - lineStarts[low] + 1)
    }
}
