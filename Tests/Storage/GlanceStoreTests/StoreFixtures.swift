import Foundation
import GlanceCore
import GlanceStore
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh folder under the system's temporary directory, removed when the value goes away.
final class TemporaryFolder: Sendable {
    /// The folder's absolute path.
    let path: String

    init() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        path = base.appendingPathComponent("glance-store-test-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The absolute path of `name` inside the folder.
    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Builders for the values the tests save and compare.
enum Fixtures {
    /// A whole second, because the store keeps `generatedAt` to the millisecond.
    static let generatedAt = Date(timeIntervalSince1970: 1_795_000_000)

    /// A record with every field set; `device` beyond `Int64.max` checks the unsigned round trip.
    static func record(
        _ path: String, inode: UInt64 = 42, size: Int64 = 1234, state: DocumentState = .fresh,
        error: String? = nil
    ) -> DocumentRecord {
        DocumentRecord(
            path: path,
            identity: FileIdentity(
                device: UInt64.max - 7, inode: inode, size: size, modifiedNanoseconds: 1_795_000_000_123_456_789),
            digest: "sha256:" + String(repeating: "ab", count: 8), contentType: .pdf, state: state, error: error,
            generatorVersion: "0.1.0", generatedAt: generatedAt, renderMilliseconds: 87)
    }

    /// An image of `byteCount` bytes whose content depends on `seed`.
    static func image(
        sizeKey: String = ThumbnailImage.standardSizeKey, format: ImageFormat = .png, byteCount: Int = 300,
        seed: UInt8 = 1
    ) -> ThumbnailImage {
        let bytes = (0..<byteCount).map { UInt8(truncatingIfNeeded: $0) &+ seed }
        return ThumbnailImage(sizeKey: sizeKey, format: format, width: 724, height: 1024, data: bytes)
    }

    /// `image` without its bytes, as a listing returns it.
    static func withoutData(_ image: ThumbnailImage) -> ThumbnailImage {
        ThumbnailImage(
            sizeKey: image.sizeKey, format: image.format, width: image.width, height: image.height,
            byteCount: image.byteCount)
    }

    /// The id of a process that existed and has been reaped: no process has it now (barring a
    /// reuse of the id within the test, which the kernel makes very unlikely).
    static func deadProcessID() async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        #expect(await exited(process, within: .seconds(60)), "process ended")
        let pid = process.processIdentifier
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "process \(pid) was reaped, so it must be gone")
        return pid
    }
}
