import CDigest
import Foundation
import GlanceContainer
import GlanceCore
import GlanceTestSupport
import Testing

/// A scratch folder removed when dropped.
final class ScratchFolder {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }
}

@Suite("Content digest", .timeLimit(.minutes(10)))
struct ContentDigestTests {
    func digest(_ path: String) -> String? {
        guard let file = try? OpenFile.regularFile(atPath: path) else { return nil }
        return ContentDigest.sha256(of: file)
    }

    @Test("the digest is SHA-256 of the bytes")
    func knownValue() throws {
        let scratch = ScratchFolder()
        // FIPS 180-2's test vector: SHA-256("abc").
        let path = try scratch.write(Array("abc".utf8), to: "check.txt")
        #expect(digest(path) == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let empty = try scratch.write([], to: "empty.txt")
        #expect(digest(empty) == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test(
        "on the CPU's SHA extensions, SHA-256 is libcrypto's at every length around a block and across 64 KiB",
        .enabled(
            if: glance_sha256_has_cpu_extensions() != 0, "this CPU has no SHA extensions: libcrypto makes every digest")
    )
    func cpuExtensionsMatchLibcrypto() {
        var bytes = [UInt8](repeating: 0, count: 70_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 131 &+ index >> 7) }
        func digest(_ count: Int, cpu: Bool) -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: 32)
            let status = bytes.withUnsafeBytes { glance_sha256_bytes($0.baseAddress, count, cpu ? 1 : 0, &digest) }
            #expect(status == 0)
            return digest
        }
        let lengths = Array(0...260) + [4095, 4096, 4097, 65_535, 65_536, 65_537, 70_000]
        let differing = lengths.filter { digest($0, cpu: true) != digest($0, cpu: false) }
        #expect(differing.isEmpty)
    }

    @Test("equal bytes give equal digests, a one-byte change a different one, whatever the offset")
    func sameAndDifferent() throws {
        let scratch = ScratchFolder()
        var bytes = [UInt8](repeating: 0, count: 700_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9) }
        let first = try scratch.write(bytes, to: "a.bin")
        let copy = try scratch.write(bytes, to: "b.bin")
        bytes[400_000] ^= 1
        let changed = try scratch.write(bytes, to: "c.bin")
        // Three read chunks and a part (256 KiB each); the value is Python's hashlib.sha256 of the
        // same 700,000 bytes.
        #expect(digest(first) == "sha256:d6577e242e6bb051ad17487e126f1eb38e309ed3dc70e0b9008e2399c9a648e2")
        #expect(digest(first) == digest(copy))
        #expect(digest(first) != digest(changed))
        // The descriptor's offset does not matter: the digest reads from the start.
        let file = try OpenFile.regularFile(atPath: first)
        _ = try file.read(count: 10, at: 0)
        #expect(ContentDigest.sha256(of: file) == digest(copy))
    }

    @Test("files with equal CRC-32, Adler-32 and size get different digests")
    func forgedChecksums() throws {
        let first = TestLocations.asset("collision/first.txt")
        let second = TestLocations.asset("collision/second.txt")
        let a = try OpenFile.regularFile(atPath: first).read(count: 1 << 20, at: 0)
        let b = try OpenFile.regularFile(atPath: second).read(count: 1 << 20, at: 0)
        #expect(a.count == b.count && a != b)
        #expect(ChecksumReference.crc32(a) == ChecksumReference.crc32(b))
        #expect(ChecksumReference.adler32(a) == ChecksumReference.adler32(b))
        #expect(digest(first) != digest(second))
    }
}

/// Plain CRC-32 and Adler-32, to show that the collision assets collide.
enum ChecksumReference {
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}
