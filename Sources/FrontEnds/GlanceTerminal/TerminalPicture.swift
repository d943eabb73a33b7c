internal import CTerminalPicture

/// One picture as a terminal draws it: the bytes to write, and the cells it covers.
public struct TerminalPicture: Sendable, Equatable {
    /// What to write: a sixel, kitty or iTerm2 sequence, or for symbols `rows` lines joined by
    /// `\n` (each ending with the colour reset).
    public let bytes: [UInt8]
    /// Its width in cells.
    public let columns: Int
    /// Its height in cells.
    public let rows: Int

    /// Why pictures cannot be drawn, when libchafa (libchafa.so.0) cannot be loaded; nil when it can.
    public static var unavailableReason: String? {
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_picture_load(&reason, reason.count) == 0 else { return nil }
        return "libchafa cannot be loaded (install libchafa0): "
            + String(nulTerminated: reason)
    }

    /// `image` drawn as large as fits `columns` x `rows` cells of `cell` pixels, its aspect kept,
    /// in `kind`, by libchafa (colour quantisation and dithering are its own); nil when
    /// libchafa cannot be loaded or fails.
    public static func draw(
        _ image: RGBAImage, as kind: PictureProtocol, columns: Int, rows: Int, cell: CellSize
    ) -> TerminalPicture? {
        var length = 0
        var usedColumns: Int32 = 0
        var usedRows: Int32 = 0
        let drawn = image.bytes.withUnsafeBufferPointer { pixels in
            glance_picture_draw(
                pixels.baseAddress, Int32(image.width), Int32(image.height), kind.cValue, Int32(columns),
                Int32(rows), Int32(cell.width), Int32(cell.height), &usedColumns, &usedRows, &length)
        }
        guard let drawn else { return nil }
        defer { glance_picture_free(drawn) }
        return TerminalPicture(
            bytes: Array(UnsafeBufferPointer(start: drawn, count: length)), columns: Int(usedColumns),
            rows: Int(usedRows))
    }
}

extension PictureProtocol {
    fileprivate var cValue: glance_picture_protocol {
        switch self {
        case .symbols: GLANCE_PICTURE_SYMBOLS
        case .sixel: GLANCE_PICTURE_SIXEL
        case .kitty: GLANCE_PICTURE_KITTY
        case .iterm: GLANCE_PICTURE_ITERM
        }
    }
}

/// Pixels to draw: `width * height` RGBA pixels with straight alpha, rows top to bottom.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]

    /// Nil unless `bytes` holds exactly `width * height` pixels of four bytes.
    public init?(width: Int, height: Int, bytes: [UInt8]) {
        guard width > 0, height > 0, width <= 1 << 14, height <= 1 << 14, bytes.count == width * height * 4 else {
            return nil
        }
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}

/// The size of one character cell in pixels.
public struct CellSize: Sendable, Equatable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// What most terminals' cells are when the terminal does not say: 10 x 20 pixels.
    public static let usual = CellSize(width: 10, height: 20)
}
