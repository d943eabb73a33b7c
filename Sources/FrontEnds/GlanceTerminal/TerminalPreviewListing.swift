import GlanceCore
import GlanceListing

#if canImport(Glibc)
    import Glibc
#endif

/// The preview listing drawn in a terminal (`glance list --preview`): the documents as a grid of
/// their stored thumbnails, row by row, each with its name and state under it. A row's pictures
/// are fetched together (the renderers work in parallel) and written as soon as they are drawn,
/// so the first row shows at once. A document without a thumbnail gets its box filled with its
/// average colour when the store has one, and a word: its kind when unsupported, `failed`, or
/// `missing`.
public struct TerminalPreviewListing: Sendable {
    public let grid: PreviewGrid
    public let kind: PictureProtocol
    public let cell: CellSize
    /// Whether each picture is wrapped for tmux to pass through.
    public let throughTmux: Bool
    let pixels: ThumbnailPixels

    public init(
        grid: PreviewGrid, kind: PictureProtocol, cell: CellSize, pixels: ThumbnailPixels, throughTmux: Bool = false
    ) {
        self.grid = grid
        self.kind = kind
        self.cell = cell
        self.pixels = pixels
        self.throughTmux = throughTmux
    }

    /// Draws `items`, handing each row's bytes to `write` as it is ready; stops when `write`
    /// returns false (the reader went away).
    public func draw(_ items: [PromisedItemAttributes], write: (([UInt8]) -> Bool)) async {
        // Symbols need fewer pixels than the cells' own: chafa reads 8x8 a cell.
        let box = kind.drawsPixels ? grid.pictureBox(cell: cell) : grid.pictureColumns * 8
        var start = 0
        while start < items.count {
            let row = Array(items[start..<min(items.count, start + grid.tilesPerRow)])
            start += row.count
            let tiles = await withTaskGroup(of: (Int, PreviewTile).self) { group in
                for (index, item) in row.enumerated() {
                    group.addTask { (index, await tile(for: item, box: box)) }
                }
                var made: [(Int, PreviewTile)] = []
                for await tile in group { made.append(tile) }
                return made.sorted { $0.0 < $1.0 }.map(\.1)
            }
            guard write(grid.row(tiles, drawsPixels: kind.drawsPixels)) else { return }
        }
    }

    /// The tile of `item`: its stored thumbnail drawn, or a placeholder.
    func tile(for item: PromisedItemAttributes, box: Int) async -> PreviewTile {
        let name = DisplayText.escaped(item.name)
        let state = DisplayText.escaped(ListingFormatter.stateText(item))
        let colour = item.standardThumbnail?.averageColour
        guard !item.thumbnails.isEmpty else {
            let label =
                switch item.state {
                case .unsupported: item.kind
                case .failed: "failed"
                default: "no thumbnail yet"
                }
            return PreviewTile(content: .placeholder(colour: colour, label: label), name: name, state: state)
        }
        guard let image = await pixels.pixels(of: item.path, box: box),
            let picture = TerminalPicture.draw(
                image, as: kind, columns: grid.pictureColumns, rows: grid.pictureRows, cell: cell)
        else {
            return PreviewTile(content: .placeholder(colour: colour, label: "unreadable"), name: name, state: state)
        }
        guard throughTmux else { return PreviewTile(content: .picture(picture), name: name, state: state) }
        let wrapped = TerminalPicture(
            bytes: TmuxPassthrough.wrapped(picture.bytes), columns: picture.columns, rows: picture.rows)
        return PreviewTile(content: .picture(wrapped), name: name, state: state)
    }
}

/// Writing to a descriptor whole, without stdio's buffer: each row reaches the terminal as soon
/// as it is drawn.
public enum TerminalOutput {
    /// Writes all of `bytes` to `descriptor`; false when it cannot (a closed pipe, a full disk).
    public static func write(_ bytes: [UInt8], to descriptor: Int32 = 1) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
