import Dispatch
import MDMDiagnostics
import PropertyList

/// What `mdmconf lint` checks, shared by the CLI and the server.
///
/// For now every input is checked as a plist (XML, binary or JSON): every reader finding, with positions.
public struct Linter: Sendable {
    public var readerOptions: PlistReaderOptions

    public init(readerOptions: PlistReaderOptions = PlistReaderOptions()) { self.readerOptions = readerOptions }

    /// One file's findings and, when it has findings with lines, its source for quoting.
    public struct Result: Sendable {
        public var report: FileReport
        public var source: SourceText?
        /// The file could not be read at all.
        public var unreadable: Bool
    }

    public func lint(_ path: String) -> Result {
        let reader = PropertyListReader(options: readerOptions)
        do {
            let (document, bytes) = try reader.readFile(path)
            let report = FileReport(
                path: document.file, shape: document.shape?.rawValue, diagnostics: document.diagnostics)
            let quoted = document.diagnostics.contains { $0.line != nil }
            return Result(report: report, source: quoted ? SourceText(bytes) : nil, unreadable: false)
        } catch {
            return Result(
                report: FileReport(path: error.path, diagnostics: [error.diagnostic]), source: nil, unreadable: true)
        }
    }

    /// Lints every path, in parallel, and returns the results in the order given.
    public func lint(_ paths: [String]) -> [Result] {
        ParallelMap.map(paths) { lint($0) }
    }
}

/// Maps over an array on all cores, keeping the order of the input.
public enum ParallelMap {
    public static func map<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ transform: @Sendable (Input) -> Output
    ) -> [Output] {
        guard inputs.count > 1 else { return inputs.map(transform) }
        let results = ResultSlots<Output>(count: inputs.count)
        // Chunks keep the scheduling cost low when there are thousands of small inputs.
        let chunk = max(1, inputs.count / 64)
        let chunks = (inputs.count + chunk - 1) / chunk
        DispatchQueue.concurrentPerform(iterations: chunks) { part in
            for index in part * chunk..<min(inputs.count, (part + 1) * chunk) {
                results.set(index, transform(inputs[index]))
            }
        }
        return results.values()
    }
}

/// Slots written by exactly one task each, read after all tasks have finished.
private final class ResultSlots<Value>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: nil)
    }

    deinit {
        _ = buffer.deinitialize()
        buffer.deallocate()
    }

    func set(_ index: Int, _ value: Value) { buffer[index] = value }

    func values() -> [Value] { buffer.compactMap { $0 } }
}
