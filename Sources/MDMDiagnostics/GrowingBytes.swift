/// Bytes being written (a JSON text, a report's table): raw memory that grows by doubling, each append a check of
/// the room and a copy. Appending to an array checked its storage, and that it was not shared, on every append.
/// A class, so that a writer holding it can be copied; one writer owns each, then hands the bytes over.
public final class GrowingBytes: @unchecked Sendable {
    // Checked by hand: one writer owns each buffer, and a dynamic exclusivity check on every append cost more than
    // the append.
    @exclusivity(unchecked) @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var capacity: Int
    @exclusivity(unchecked) @usableFromInline var count = 0

    /// Empty, with room for `capacity` bytes before it first grows.
    public init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written and then `last`, when given, as an array; `last` is put after the bytes, not counted.
    public func array(then last: UInt8? = nil) -> [UInt8] {
        // Copied from the buffer: `Array(unsafeUninitializedCapacity:)` allocates through a standard-library call
        // that is not specialized and looks the storage's type up at run time, a few hundred instructions more.
        guard let last else { return Array(UnsafeBufferPointer(start: base, count: count)) }
        reserve(1)
        base[count] = last
        return Array(UnsafeBufferPointer(start: base, count: count + 1))
    }

    /// Appends the bytes written to `out`.
    public func append(to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

    /// Forgets the bytes written and keeps the memory, for the next text written into this buffer.
    public func removeAll() { count = 0 }

    /// Calls `body` with the bytes written, in place.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    // The appends are inlined where they are called, with the room's check; growing is the rare call. Called
    // through, they were about 5 % of an update check's instructions.
    @inlinable @inline(__always)
    func reserve(_ more: Int) {
        if count + more > capacity { grow(more) }
    }

    @usableFromInline @inline(never)
    func grow(_ more: Int) {
        let grown = max(capacity * 2, count + more)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = grown
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    public func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends `bytes`.
    @inlinable @inline(__always)
    public func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends a literal's bytes.
    @inlinable @inline(__always)
    public func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `spaces` spaces.
    @inlinable @inline(__always)
    public func appendSpaces(_ spaces: Int) {
        guard spaces > 0 else { return }
        reserve(spaces)
        (base + count).initialize(repeating: UInt8(ascii: " "), count: spaces)
        count += spaces
    }
}
