/// The colours an X pixmap may name: `#` and 1 to 4 hexadecimal digits a channel, `None`
/// (transparent), `grayN` / `greyN` (N percent of white), and the X11 colour names icons use
/// most (their values as X11's `rgb.txt` gives them; where X11 and CSS differ, as for `gray`,
/// `green` and `maroon`, X11's). Names ignore case and spaces, as X does.
enum XColours {
    /// The colour `name` stands for, as RGBA packed red first; nil when it names none known.
    static func rgba(of name: String) -> UInt32? {
        let folded = name.lowercased().filter { $0 != " " }
        if folded.hasPrefix("#") { return hex(folded.dropFirst()) }
        if folded == "none" || folded == "transparent" { return 0 }
        for prefix in ["gray", "grey"] where folded.hasPrefix(prefix) && folded.count > prefix.count {
            guard let percent = Int(folded.dropFirst(prefix.count)), (0...100).contains(percent) else { return nil }
            let level = UInt32((percent * 255 + 50) / 100)
            return level << 24 | level << 16 | level << 8 | 0xFF
        }
        return named[folded].map { $0 << 8 | 0xFF }
    }

    /// `RGB`, `RRGGBB`, `RRRGGGBBB` or `RRRRGGGGBBBB`: each channel scaled to eight bits, rounded.
    private static func hex(_ digits: Substring) -> UInt32? {
        guard [3, 6, 9, 12].contains(digits.count), let _ = UInt64(digits, radix: 16) else { return nil }
        let width = digits.count / 3
        var packed: UInt32 = 0
        for channel in 0..<3 {
            let start = digits.index(digits.startIndex, offsetBy: channel * width)
            let part = digits[start..<digits.index(start, offsetBy: width)]
            let value = Int(part, radix: 16) ?? 0
            let largest = (1 << (4 * width)) - 1
            packed = packed << 8 | UInt32((value * 255 + largest / 2) / largest)
        }
        return packed << 8 | 0xFF
    }

    /// X11's names, as RGB.
    private static let named: [String: UInt32] = [
        "black": 0x000000, "white": 0xFFFFFF, "red": 0xFF0000, "green": 0x00FF00, "blue": 0x0000FF,
        "yellow": 0xFFFF00, "cyan": 0x00FFFF, "magenta": 0xFF00FF, "gray": 0xBEBEBE, "grey": 0xBEBEBE,
        "lightgray": 0xD3D3D3, "lightgrey": 0xD3D3D3, "darkgray": 0xA9A9A9, "darkgrey": 0xA9A9A9,
        "dimgray": 0x696969, "dimgrey": 0x696969, "slategray": 0x708090, "slategrey": 0x708090,
        "darkslategray": 0x2F4F4F, "darkslategrey": 0x2F4F4F, "gainsboro": 0xDCDCDC, "whitesmoke": 0xF5F5F5,
        "navy": 0x000080, "navyblue": 0x000080, "darkblue": 0x00008B, "lightblue": 0xADD8E6, "steelblue": 0x4682B4,
        "skyblue": 0x87CEEB, "royalblue": 0x4169E1, "darkgreen": 0x006400, "forestgreen": 0x228B22,
        "seagreen": 0x2E8B57, "darkred": 0x8B0000, "firebrick": 0xB22222, "maroon": 0xB03060, "purple": 0xA020F0,
        "violet": 0xEE82EE, "orchid": 0xDA70D6, "orange": 0xFFA500, "darkorange": 0xFF8C00, "gold": 0xFFD700,
        "brown": 0xA52A2A, "sienna": 0xA0522D, "chocolate": 0xD2691E, "tan": 0xD2B48C, "wheat": 0xF5DEB3,
        "khaki": 0xF0E68C, "beige": 0xF5F5DC, "ivory": 0xFFFFF0, "lightyellow": 0xFFFFE0, "pink": 0xFFC0CB,
        "salmon": 0xFA8072, "coral": 0xFF7F50, "turquoise": 0x40E0D0,
    ]
}
