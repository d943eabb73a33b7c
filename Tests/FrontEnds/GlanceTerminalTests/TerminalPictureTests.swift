import CChafaABICheck
import Foundation
import GlanceTestSupport
import Testing

@testable import GlanceTerminal

/// Each protocol's bytes, as libchafa writes them through `TerminalPicture`, parse as that
/// protocol and carry an image of the expected size.
@Suite("Terminal pictures", .timeLimit(.minutes(10)))
struct TerminalPictureTests {
    /// A 160x120 test card: a horizontal gradient, a red square in the middle, a transparent
    /// corner.
    static let card: RGBAImage = {
        let (width, height) = (160, 120)
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let inSquare = (60..<100).contains(x) && (40..<80).contains(y)
                bytes[i] = inSquare ? 220 : UInt8(x * 255 / width)
                bytes[i + 1] = inSquare ? 20 : UInt8(y * 255 / height)
                bytes[i + 2] = inSquare ? 20 : 128
                bytes[i + 3] = x < 10 && y < 10 ? 0 : 255
            }
        }
        return RGBAImage(width: width, height: height, bytes: bytes)!
    }()

    static let cell = CellSize(width: 10, height: 20)

    static func draw(_ kind: PictureProtocol) throws -> TerminalPicture {
        try #require(TerminalPicture.draw(card, as: kind, columns: 20, rows: 10, cell: cell))
    }

    @Test("sixel: one DCS ... q ... ST that libsixel's sixel2png decodes into the box's pixels, aspect kept")
    func sixel() async throws {
        let picture = try Self.draw(.sixel)
        let text = String(decoding: picture.bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}P") && text.hasSuffix("\u{1B}\\"))
        #expect(text.components(separatedBy: "\u{1B}P").count == 2)
        #expect(text.prefix(12).contains("q"))
        // 160x120 into 20x10 cells of 10x20: 200 pixels wide, 150 high (8 rows of 20, rounded).
        #expect(picture.columns == 20 && (7...8).contains(picture.rows), "\(picture.columns)x\(picture.rows)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sixel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sixel = folder.appendingPathComponent("card.six")
        let png = folder.appendingPathComponent("card.png")
        try Data(picture.bytes).write(to: sixel)
        let decoder = Process()
        decoder.executableURL = URL(fileURLWithPath: "/usr/bin/sixel2png")
        decoder.arguments = ["-i", sixel.path, "-o", png.path]
        try decoder.run()
        #expect(await exited(decoder, within: .seconds(60)), "decoder ended")
        #expect(decoder.terminationStatus == 0)
        let header = try [UInt8](Data(contentsOf: png).prefix(24))
        try #require(header.count == 24 && header[12..<16] == [0x49, 0x48, 0x44, 0x52][...])
        let width = header[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = header[20..<24].reduce(0) { $0 << 8 | Int($1) }
        // The picture's cells in pixels; sixel rows come in bands of six.
        #expect(width == picture.columns * 10, "\(width)")
        #expect((picture.rows * 20 - 5...picture.rows * 20).contains(height), "\(height)")
    }

    @Test("kitty: APC G chunks whose base64 payload is s x v RGBA pixels, placed over c x r cells")
    func kitty() throws {
        let picture = try Self.draw(.kitty)
        let text = String(decoding: picture.bytes, as: UTF8.self)
        let commands = text.components(separatedBy: "\u{1B}_G").dropFirst()
        #expect(!commands.isEmpty && text.hasPrefix("\u{1B}_G") && text.hasSuffix("\u{1B}\\"))
        var keys: [String: String] = [:]
        var payload = Data()
        for command in commands {
            #expect(command.hasSuffix("\u{1B}\\"))
            let body = command.dropLast(2)
            let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            for pair in parts[0].split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { keys[String(kv[0])] = String(kv[1]) }
            }
            // Each chunk is base64 of its own (padded), as the protocol allows.
            if parts.count == 2, !parts[1].isEmpty {
                payload += try #require(Data(base64Encoded: String(parts[1])), "a chunk that is not base64")
            }
        }
        #expect(keys["a"] == "T" && keys["f"] == "32" && keys["m"] == "0")
        #expect(keys["c"] == String(picture.columns) && keys["r"] == String(picture.rows))
        let width = try #require(keys["s"].flatMap { Int($0) })
        let height = try #require(keys["v"].flatMap { Int($0) })
        #expect(payload.count == width * height * 4)
        #expect(width == 200 && (140...160).contains(height), "\(width)x\(height)")
    }

    @Test("iTerm2: OSC 1337 File= inline, sized in cells, with a base64 image that decodes")
    func iterm() throws {
        let picture = try Self.draw(.iterm)
        let text = String(decoding: picture.bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}]1337;File=") && text.hasSuffix("\u{07}"))
        let header = text.dropFirst("\u{1B}]1337;File=".count).prefix { $0 != ":" }
        let fields = Dictionary(
            header.split(separator: ";").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
                .filter { $0.count == 2 }.map { ($0[0], $0[1]) }, uniquingKeysWith: { a, _ in a })
        #expect(fields["inline"] == "1")
        #expect(fields["width"] == String(picture.columns) && fields["height"] == String(picture.rows))
        let encoded = text.drop { $0 != ":" }.dropFirst().dropLast()
        let image = try #require(Data(base64Encoded: String(encoded)))
        // A TIFF (little- or big-endian) or a PNG: an image format the terminal reads.
        let magic = [UInt8](image.prefix(4))
        #expect(
            magic == [0x49, 0x49, 0x2A, 0x00] || magic == [0x4D, 0x4D, 0x00, 0x2A] || magic == [0x89, 0x50, 0x4E, 0x47])
        #expect(image.count > 200 * 140 * 3)
    }

    @Test("symbols: rows of printable characters and SGR colour sequences only, one line per cell row")
    func symbols() throws {
        let picture = try Self.draw(.symbols)
        let text = String(decoding: picture.bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == picture.rows)
        for line in lines {
            // Everything that is not an SGR sequence is printable, one cell wide.
            let bare = line.replacing(/\x{1B}\[[0-9;]*m/, with: "")
            #expect(!bare.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(line.debugDescription)")
            #expect(bare.count == picture.columns, "\(bare.count) of \(picture.columns)")
        }
        // The red square is in the middle rows: a red foreground or background there.
        #expect(text.contains("2;220;20;20") || text.contains(";2;21"), "no red")
    }
}

/// What glance assumes of libchafa's ABI compiled against its headers (CChafaABICheck), and the
/// library loaded at run time as glance loads it.
@Suite("libchafa", .timeLimit(.minutes(10)))
struct ChafaLibraryTests {
    @Test("the headers the ABI check compiled against are libchafa 1.x, and glance loads the library")
    func loads() {
        let version = glance_chafa_header_version()
        #expect(version >= 1_08_00 && version < 2_00_00, "\(version)")
        #expect(TerminalPicture.unavailableReason == nil)
    }
}
