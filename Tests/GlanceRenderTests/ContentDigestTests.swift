import Testing

@testable import GlanceRender

@Suite("Content digest")
struct ContentDigestTests {
    @Test("the fingerprint is CRC-32 and Adler-32 of the bytes")
    func knownValue() throws {
        let scratch = ScratchFolder()
        // The standard check value of both checksums: "123456789".
        let path = try scratch.write(Array("123456789".utf8), to: "check.txt")
        #expect(ContentDigest.fingerprint(ofFileAt: path) == "crc32-adler32:cbf43926091e01de")
    }

    @Test("equal bytes give equal fingerprints, a one-byte change a different one")
    func sameAndDifferent() throws {
        let scratch = ScratchFolder()
        var bytes = [UInt8](repeating: 0, count: 700_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9) }
        let first = try scratch.write(bytes, to: "a.bin")
        let copy = try scratch.write(bytes, to: "b.bin")
        bytes[400_000] ^= 1
        let changed = try scratch.write(bytes, to: "c.bin")
        #expect(ContentDigest.fingerprint(ofFileAt: first) == ContentDigest.fingerprint(ofFileAt: copy))
        #expect(ContentDigest.fingerprint(ofFileAt: first) != ContentDigest.fingerprint(ofFileAt: changed))
        #expect(ContentDigest.fingerprint(ofFileAt: scratch.file("missing")) == nil)
    }
}
