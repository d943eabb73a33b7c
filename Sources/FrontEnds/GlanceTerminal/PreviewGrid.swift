/// The layout of the preview listing in a terminal: tiles of a picture box and two lines under it
/// (the name, the state), as many to a row as the width allows, two columns apart.
public struct PreviewGrid: Sendable, Equatable {
    /// The picture box's width in cells.
    public let pictureColumns: Int
    /// The picture box's height in cells: square in pixels, for the cells' shape.
    public let pictureRows: Int
    /// Tiles in one row.
    public let tilesPerRow: Int
    /// The cells between two tiles.
    public static let gap = 2

    /// A grid for a terminal `columns` wide whose cells are `cell`, with pictures `pictureColumns`
    /// wide (20 by default: three to a row at 80 columns, five at 120) and at most `maximumRows`
    /// high.
    public init(columns: Int, cell: CellSize, pictureColumns: Int = 20, maximumRows: Int = .max) {
        let width = max(8, min(pictureColumns, columns))
        self.pictureColumns = width
        pictureRows = max(2, min(maximumRows, (width * cell.width + cell.height / 2) / max(1, cell.height)))
        tilesPerRow = max(1, (columns + Self.gap) / (width + Self.gap))
    }

    /// One picture as large as a terminal of `columns` x `rows` cells allows, `reservedRows` of
    /// them kept for the lines around it (`glance show --preview`).
    public static func single(columns: Int, rows: Int, cell: CellSize, reservedRows: Int) -> PreviewGrid {
        PreviewGrid(columns: columns, cell: cell, pictureColumns: columns, maximumRows: max(2, rows - reservedRows))
    }

    /// The pixels a picture needs to fill the box sharply: its larger side in pixels.
    public func pictureBox(cell: CellSize) -> Int {
        max(pictureColumns * cell.width, pictureRows * cell.height)
    }
}

/// One tile of the grid: its picture, or what stands in for one, and its two lines.
public struct PreviewTile: Sendable, Equatable {
    /// What fills the picture box.
    public enum Content: Sendable, Equatable {
        case picture(TerminalPicture)
        /// No picture: the box filled with a colour (`#rrggbb`, the thumbnail's average) or left
        /// empty, with a word in it (the kind of an unsupported document, `failed`, `missing`).
        case placeholder(colour: String?, label: String)
    }

    public let content: Content
    /// The document's name, already made safe to print (``DisplayText``).
    public let name: String
    /// Its state: `fresh`, `stale`, `failed: reason`, …
    public let state: String

    public init(content: Content, name: String, state: String) {
        self.content = content
        self.name = name
        self.state = state
    }
}

extension PreviewGrid {
    /// The bytes that draw `tiles` (at most ``tilesPerRow``) as one row, starting at the
    /// beginning of a line and ending at the beginning of the line after it.
    ///
    /// Symbols are text: each line of the row is the tiles' lines side by side, so the row reads
    /// the same in a terminal, a pager or a `tmux capture-pane`. A picture protocol's images are
    /// placed with the cursor instead: the row's lines are made first (scrolling the screen if
    /// needed), then each image is written at its tile's top-left corner between a save and a
    /// restore of the cursor, so that however a terminal moves the cursor after an image, the
    /// names come out below the pictures and the prompt after them.
    public func row(_ tiles: [PreviewTile], drawsPixels: Bool) -> [UInt8] {
        var out: [UInt8] = []
        func text(_ string: String) { out += Array(string.utf8) }
        let pitch = pictureColumns + Self.gap
        if drawsPixels {
            text(String(repeating: "\n", count: pictureRows))
            text("\u{1B}[\(pictureRows)A")
            for (index, tile) in tiles.enumerated() {
                text("\u{1B}[\(1 + index * pitch)G\u{1B}7")
                switch tile.content {
                case .picture(let picture): out += picture.bytes
                case .placeholder(let colour, let label): out += placeholder(colour: colour, label: label, lines: true)
                }
                text("\u{1B}8")
            }
            text("\u{1B}[\(pictureRows)B\r")
        } else {
            let boxes = tiles.map { tile -> [[UInt8]] in
                switch tile.content {
                case .picture(let picture):
                    let lines = picture.bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                        .map {
                            Array($0) + Array(repeating: UInt8(ascii: " "), count: pictureColumns - picture.columns)
                        }
                    return Array(lines.prefix(pictureRows))
                        + Array(
                            repeating: blankLine, count: max(0, pictureRows - lines.count))
                case .placeholder(let colour, let label):
                    return placeholder(colour: colour, label: label, lines: false)
                        .split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
                }
            }
            for line in 0..<pictureRows {
                for (index, box) in boxes.enumerated() {
                    out += box[line]
                    if index < boxes.count - 1 { out += Array(repeating: UInt8(ascii: " "), count: Self.gap) }
                }
                text("\n")
            }
        }
        for line in [tiles.map(\.name), tiles.map(\.state)] {
            let cells = line.map { Self.fitted($0, to: pictureColumns) }
            text(cells.joined(separator: String(repeating: " ", count: Self.gap)).trimmingSuffixSpaces + "\n")
        }
        return out
    }

    private var blankLine: [UInt8] { Array(repeating: UInt8(ascii: " "), count: pictureColumns) }

    /// A box of ``pictureRows`` lines filled with `colour` (or blank), `label` on its middle line.
    /// With `lines` false they are joined by `\n`; with `lines` true each line after the first
    /// starts one row down at the same column (for the cursor-placed rows of picture protocols).
    func placeholder(colour: String?, label: String, lines: Bool) -> [UInt8] {
        let background = colour.flatMap(Self.rgb).map { "\u{1B}[48;2;\($0.0);\($0.1);\($0.2)m" } ?? ""
        let foreground =
            colour.flatMap(Self.rgb).map { ($0.0 * 299 + $0.1 * 587 + $0.2 * 114) / 1000 > 128 }
            .map { $0 ? "\u{1B}[38;2;0;0;0m" : "\u{1B}[38;2;255;255;255m" } ?? ""
        var rows: [String] = []
        for row in 0..<pictureRows {
            var content = String(repeating: " ", count: pictureColumns)
            if row == pictureRows / 2 {
                let word = Self.shortened(label, to: pictureColumns)
                let padding = (pictureColumns - DisplayColumns.of(word)) / 2
                content =
                    String(repeating: " ", count: padding) + word
                    + String(repeating: " ", count: pictureColumns - padding - DisplayColumns.of(word))
            }
            rows.append(background.isEmpty ? content : background + foreground + content + "\u{1B}[0m")
        }
        let separator = lines ? "\u{1B}[1B\u{1B}[\(pictureColumns)D" : "\n"
        return Array(rows.joined(separator: separator).utf8)
    }

    /// `text` in at most `width` columns, padded to it: as it is, or cut with `…`.
    static func fitted(_ text: String, to width: Int) -> String {
        DisplayColumns.fitted(text, to: width)
    }

    /// `text` in at most `width` columns: as it is, or cut with `…`.
    static func shortened(_ text: String, to width: Int) -> String {
        DisplayColumns.shortened(text, to: width)
    }

    /// The red, green and blue of `#rrggbb`, or nil for anything else.
    static func rgb(_ colour: String) -> (Int, Int, Int)? {
        guard colour.count == 7, colour.first == "#", let value = Int(colour.dropFirst(), radix: 16) else {
            return nil
        }
        return (value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
    }
}

extension String {
    fileprivate var trimmingSuffixSpaces: String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
