import Testing

@testable import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

/// Reading `GLANCE_SIMD_DISABLE`'s list, and what the process reports it uses.
@Suite("Processor features", .timeLimit(.minutes(10)))
struct ProcessorFeaturesTests {
    @Test("known names, empty items and `all` are accepted; the first unknown name is returned as written")
    func disableListNames() {
        for good in ["", ",", "avx2", "avx2,,sha_ni", "ssse3,sse4_1", "all", "sha_ni,"] {
            #expect(ProcessorFeatures.unknownName(inDisableList: good) == nil, "\(good)")
        }
        #expect(ProcessorFeatures.unknownName(inDisableList: "avx") == "avx")
        #expect(ProcessorFeatures.unknownName(inDisableList: "avx2,AVX2,x") == "AVX2")
        #expect(ProcessorFeatures.unknownName(inDisableList: "sha_ni,sse4.1") == "sse4.1")
        #expect(ProcessorFeatures.unknownName(inDisableList: " avx2") == " avx2")
    }

    @Test("what is in use and what is turned off never overlap, and both are named in /proc/cpuinfo's order")
    func currentIsConsistent() {
        let current = ProcessorFeatures.current()
        #expect(Set(current.inUse).isDisjoint(with: current.turnedOff))
        let order = ProcessorFeatures.all.map(\.name)
        #expect(current.inUse == order.filter(current.inUse.contains))
        // Without the variable (as `make test` runs), nothing the processor has is off.
        if getenv(ProcessorFeatures.disableVariable) == nil { #expect(current.turnedOff.isEmpty) }
    }
}
