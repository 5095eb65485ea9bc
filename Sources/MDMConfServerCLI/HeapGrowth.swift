#if canImport(Glibc)
    import Glibc
#endif

/// How the C heap grows in a command that builds a large result on several threads (`mdmconf report`).
enum HeapGrowth {
    /// Grows each thread's heap 64 MB of address space at a time instead of 128 KB (glibc's `M_TOP_PAD`); pages
    /// are still backed only once they are written. A 100,000-device report grows its heaps by hundreds of
    /// megabytes, and in 128 KB steps that was about 8,600 `mprotect` calls, each taking the address-space lock
    /// that the other threads' page faults wait for. Elsewhere than glibc, nothing.
    static func inLargeSteps() {
        #if canImport(Glibc)
            // `mallopt` is in <malloc.h>, which the Glibc module does not import: looked up by name.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            let topPad: Int32 = -2  // M_TOP_PAD
            _ = unsafeBitCast(symbol, to: MallOpt.self)(topPad, 64 << 20)
        #endif
    }
}
