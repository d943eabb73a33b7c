import Foundation
import GRDB
import GlanceCore

/// A row of the `thumbnail` table: one entry of a document's thumbnail dictionary, image included.
struct ThumbnailRow: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "thumbnail"

    /// The columns, the one place their names are spelled (the summary row shares them).
    enum Columns {
        static let documentId = Column(CodingKeys.documentId)
        static let sizeKey = Column(CodingKeys.sizeKey)
        static let byteCount = Column(CodingKeys.byteCount)
    }

    var documentId: Int64
    var sizeKey: String
    var format: String
    var width: Int
    var height: Int
    var byteCount: Int
    var data: Data
    var averageColour: String?
    var thumbHash: String?

    /// The row for `image` of document `documentId`; a ``StoreError`` when the image carries no
    /// bytes (a dictionary loaded without its images cannot be saved back).
    init(_ image: ThumbnailImage, documentId: Int64, path: String, location: String) throws(StoreError) {
        guard let bytes = image.data else {
            throw StoreError(
                .invalid, message: "thumbnail \(image.sizeKey) of \(path) has no image data to store",
                location: location)
        }
        self.documentId = documentId
        sizeKey = image.sizeKey
        format = image.format.rawValue
        width = image.width
        height = image.height
        // The bytes themselves are the truth; a caller's count could be stale.
        byteCount = bytes.count
        data = Data(bytes)
        averageColour = image.averageColour
        thumbHash = image.thumbHash
    }

    /// The public image, bytes included.
    /// Inserts the row: what a save runs for each thumbnail, prepared once per connection.
    static let insertSQL = """
        INSERT INTO thumbnail (documentId, sizeKey, format, width, height, byteCount, data, averageColour, thumbHash)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The values of ``insertSQL``.
    var insertArguments: StatementArguments {
        [documentId, sizeKey, format, width, height, byteCount, data, averageColour, thumbHash]
    }

    func image(location: String) throws(StoreError) -> ThumbnailImage {
        ThumbnailImage(
            sizeKey: sizeKey, format: try StoredNames.imageFormat(format, location: location), width: width,
            height: height, data: [UInt8](data), averageColour: averageColour,
            thumbHash: thumbHash.flatMap { ThumbHashText.isValid($0) ? $0 : nil })
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

    var documentId: Int64
    var sizeKey: String
    var format: String
    var width: Int
    var height: Int
    var byteCount: Int
    var averageColour: String?
    var thumbHash: String?

    /// The public image, without bytes.
    func image(location: String) throws(StoreError) -> ThumbnailImage {
        ThumbnailImage(
            sizeKey: sizeKey, format: try StoredNames.imageFormat(format, location: location), width: width,
            height: height,
            byteCount: byteCount, averageColour: averageColour,
            thumbHash: thumbHash.flatMap { ThumbHashText.isValid($0) ? $0 : nil })
    }
}
