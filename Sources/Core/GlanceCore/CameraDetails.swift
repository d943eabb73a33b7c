/// What a camera's raw photo tells besides its picture: the camera, when the photo was taken,
/// the developed image's size, and where the thumbnail came from. Part of ``DocumentDetails``;
/// a renderer fills it, ``checked`` keeps what holds together.
public struct CameraDetails: Sendable, Equatable, Codable {
    /// The camera's maker and model, as LibRaw names them (`Canon`, `EOS 5D Mark IV`).
    public var make: String?
    public var model: String?
    /// When the photo was taken, by the camera's clock (no zone): `2024-05-17T10:30:00`.
    public var captured: String?
    /// The developed image's size as shown (turned as the camera was held).
    public var width: Int?
    public var height: Int?
    /// Where the thumbnail came from.
    public var picture: PictureSource?

    /// Where a raw photo's thumbnail came from.
    public enum PictureSource: String, Sendable, Equatable, Codable {
        /// The JPEG preview the camera stored in the file (its own development, in sRGB).
        case preview
        /// The sensor data, developed here: the camera's white balance, to sRGB.
        case developed
    }

    public init(
        make: String? = nil, model: String? = nil, captured: String? = nil, width: Int? = nil, height: Int? = nil,
        picture: PictureSource? = nil
    ) {
        self.make = make
        self.model = model
        self.captured = captured
        self.width = width
        self.height = height
        self.picture = picture
    }

    /// The longest maker or model name kept, in characters.
    public static let maximumNameLength = 63

    /// The details with what does not hold together left out, nil when nothing is left (a
    /// renderer and a store's row are not trusted): names cleaned as every name is
    /// (``DocumentDetails/cleanName(_:maximumLength:)``), cut to ``maximumNameLength``; a capture time of the form `YYYY-MM-DDTHH:MM:SS` from 1900 to 2999;
    /// sides up to 1,000,000.
    public var checked: CameraDetails? {
        var result = CameraDetails()
        result.make = make.flatMap(Self.checkedName)
        result.model = model.flatMap(Self.checkedName)
        result.captured = captured.flatMap { Self.isTimestamp($0) ? $0 : nil }
        if let width, let height, (1...1_000_000).contains(width), (1...1_000_000).contains(height) {
            result.width = width
            result.height = height
        }
        result.picture = picture
        return result == CameraDetails() ? nil : result
    }

    static func checkedName(_ name: String) -> String? {
        let cleaned = DocumentDetails.cleanName(name, maximumLength: maximumNameLength)
        return cleaned.isEmpty ? nil : cleaned
    }

    /// Whether `text` is `YYYY-MM-DDTHH:MM:SS` with every field in its range.
    static func isTimestamp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A
        else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return false }
        return (1900...2999).contains(year) && (1...12).contains(month) && (1...31).contains(day)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...60).contains(second)
    }

    /// `2024-05-17T10:30:00` from its fields; nil when the year is 0 (the camera did not say).
    public static func timestamp(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> String? {
        guard year > 0 else { return nil }
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        let text = "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))"
        return isTimestamp(text) ? text : nil
    }
}
