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
        if offset > scanned {
            var index = scanned
            while index < offset {
                if bytes[index] == 0x0A { lineStarts.append(index + 1) }
                index += 1
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
