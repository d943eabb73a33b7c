import Foundation
import GRDB
import GlanceCore

/// A row of the `thumbnail` table: one entry of a document's thumbnail dictionary, image included
/// (its summary and its bytes).
struct ThumbnailRow: FetchableRecord, TableRecord {
    static let databaseTableName = "thumbnail"

    /// The columns, the one place their names are spelled (the summary row shares them).
    enum Columns {
        static let documentId = Column(ThumbnailSummaryRow.CodingKeys.documentId)
        static let sizeKey = Column(ThumbnailSummaryRow.CodingKeys.sizeKey)
        static let byteCount = Column(ThumbnailSummaryRow.CodingKeys.byteCount)
        static let data = Column("data")
    }

    /// Every column but the bytes.
    var summary: ThumbnailSummaryRow
    var data: Data

    init(row: Row) throws {
        summary = try ThumbnailSummaryRow(row: row)
        data = row[Columns.data]
    }

    /// The row for `image` of document `documentId`; a ``StoreError`` when the image carries no
    /// bytes (a dictionary loaded without its images cannot be saved back).
    init(_ image: ThumbnailImage, documentId: Int64, path: String, location: String) throws(StoreError) {
        guard let bytes = image.data else {
            throw StoreError(
                .invalid, message: "thumbnail \(image.sizeKey) of \(path) has no image data to store",
                location: location)
        }
        // The bytes themselves are the truth; a caller's count could be stale.
        summary = ThumbnailSummaryRow(
            documentId: documentId, sizeKey: image.sizeKey, format: image.format.rawValue, width: image.width,
            height: image.height, byteCount: bytes.count, averageColour: image.averageColour,
            thumbHash: image.thumbHash)
        data = Data(bytes)
    }

    /// Inserts the row: what a save runs for each thumbnail, prepared once per connection.
    static let insertSQL = """
        INSERT INTO thumbnail (documentId, sizeKey, format, width, height, byteCount, data, averageColour, thumbHash)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The values of ``insertSQL``.
    var insertArguments: StatementArguments {
        [
            summary.documentId, summary.sizeKey, summary.format, summary.width, summary.height, summary.byteCount,
            data, summary.averageColour, summary.thumbHash,
        ]
    }

    /// The public image, bytes included.
    func image(location: String) throws(StoreError) -> ThumbnailImage {
        try summary.image(location: location, data: [UInt8](data))
    }
}

/// A row of the `thumbnail` table without its `data` column: what a listing needs, at a fraction
/// of the cost. Fetching it never reads the image blobs from disk.
struct ThumbnailSummaryRow: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "thumbnail"

    /// Every column but `data`: GRDB selects these instead of `*`.
    static var databaseSelection: [any SQLSelectable] {
        [
            ThumbnailRow.Columns.documentId, ThumbnailRow.Columns.sizeKey, Column(CodingKeys.format),
            Column(CodingKeys.width), Column(CodingKeys.height), ThumbnailRow.Columns.byteCount,
            Column(CodingKeys.averageColour), Column(CodingKeys.thumbHash),
        ]
    }

    enum CodingKeys: String, CodingKey {
        case documentId, sizeKey, format, width, height, byteCount, averageColour, thumbHash
    }

    var documentId: Int64
    var sizeKey: String
    var format: String
    var width: Int
    var height: Int
    var byteCount: Int
    var averageColour: String?
    var thumbHash: String?

    /// The public image, with `data` as its bytes or none (its byte count then says its size).
    func image(location: String, data: [UInt8]? = nil) throws(StoreError) -> ThumbnailImage {
        let format = try StoredNames.imageFormat(format, location: location)
        let thumbHash = thumbHash.flatMap { ThumbHashText.isValid($0) ? $0 : nil }
        if let data {
            return ThumbnailImage(
                sizeKey: sizeKey, format: format, width: width, height: height, data: data,
                averageColour: averageColour, thumbHash: thumbHash)
        }
        return ThumbnailImage(
            sizeKey: sizeKey, format: format, width: width, height: height, byteCount: byteCount,
            averageColour: averageColour, thumbHash: thumbHash)
    }
}
