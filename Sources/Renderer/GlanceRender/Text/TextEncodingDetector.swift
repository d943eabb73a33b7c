internal import CUchardet

#if canImport(Glibc)
    import Glibc
#endif

/// Text decoded from a document's bytes, with what was learnt about it.
public struct DecodedText: Sendable, Equatable {
    /// The text, with a byte-order mark removed.
    public var text: String
    /// The encoding it was decoded from (iconv's name: `UTF-8`, `SHIFT_JIS`, ...).
    public var encoding: String
    /// A language tag (`ja`, `zh-cn`, `ko`, `ru`, ...) when the encoding or script implies one;
    /// text layout uses it to pick the right glyph shapes for Han characters.
    public var language: String?
}

/// Decides whether bytes are text, and in which encoding.
///
/// Text is text when it decodes and holds no NUL bytes: UTF-8, UTF-16/32 with a byte-order
/// mark, or a legacy encoding that uchardet is confident of (Shift_JIS, EUC-JP, GB18030, Big5,
/// EUC-KR, KOI8-R, Windows-1251/1252, ISO-8859-x). Control characters other than tab, line and
/// page breaks and escape make it binary.
public enum TextEncodingDetector {
    /// Detects the encoding of `bytes` and decodes them. `isWholeFile` false means the bytes are a
    /// prefix (a multi-byte character may be cut at the end). `namedAsText` lets a file named
    /// `.txt` that the detector cannot place be read as Windows-1252.
    public static func detect(_ bytes: [UInt8], isWholeFile: Bool, namedAsText: Bool = false) -> DecodedText? {
        if bytes.isEmpty { return DecodedText(text: "", encoding: "UTF-8", language: nil) }
        if let bom = byteOrderMark(bytes) {
            guard let text = convert(Array(bytes[bom.length...]), from: bom.encoding) else { return nil }
            if text.unicodeScalars.contains(where: { $0.value == 0 }) { return nil }
            return DecodedText(text: text, encoding: bom.encoding, language: language(of: text))
        }
        if bytes.contains(0) {
            guard let (text, encoding) = utf16WithoutMark(bytes, isWholeFile: isWholeFile) else { return nil }
            return DecodedText(text: text, encoding: encoding, language: language(of: text))
        }
        if hasTooManyControlBytes(bytes) { return nil }
        if let text = decodeUTF8(bytes, isWholeFile: isWholeFile) {
            return DecodedText(text: text, encoding: "UTF-8", language: language(of: text))
        }
        let guess = guessCharset(bytes)
        let encoding: String
        if let guess, acceptedLegacyEncodings.contains(guess) {
            encoding = guess
        } else if namedAsText {
            encoding = "WINDOWS-1252"
        } else {
            return nil
        }
        guard let text = convert(bytes, from: encoding) else { return nil }
        return DecodedText(text: text, encoding: encoding, language: languageOfEncoding[encoding] ?? language(of: text))
    }

    /// UTF-16 without a byte-order mark, when the bytes leave no doubt: text that is mostly
    /// ASCII has a NUL in every other byte (the high byte of each code unit: odd positions in
    /// UTF-16LE, even ones in UTF-16BE) and almost none in the others. Binary data with NULs
    /// rarely keeps to that pattern over a whole prefix; what decodes must still pass the
    /// control-character test. uchardet 0.0.7 does not detect BOM-less UTF-16 itself.
    static func utf16WithoutMark(_ bytes: [UInt8], isWholeFile: Bool) -> (text: String, encoding: String)? {
        if isWholeFile && bytes.count % 2 != 0 { return nil }
        var count = bytes.count & ~1
        let units = count / 2
        guard units >= 2 else { return nil }
        var zeroLow = 0
        var zeroHigh = 0
        for index in stride(from: 0, to: count, by: 2) {
            if bytes[index] == 0 { zeroLow += 1 }
            if bytes[index + 1] == 0 { zeroHigh += 1 }
        }
        let encoding: String
        let nearlyAll = units * 3 / 4
        let nearlyNone = units / 100
        if zeroHigh >= nearlyAll && zeroLow <= nearlyNone {
            encoding = "UTF-16LE"
        } else if zeroLow >= nearlyAll && zeroHigh <= nearlyNone {
            encoding = "UTF-16BE"
        } else {
            return nil
        }
        // A prefix may end inside a surrogate pair: drop a trailing high surrogate.
        if !isWholeFile && count >= 2 {
            let last = encoding == "UTF-16LE" ? bytes[count - 1] : bytes[count - 2]
            if (0xD8...0xDB).contains(last) { count -= 2 }
        }
        guard let text = convert(Array(bytes[..<count]), from: encoding),
            !text.unicodeScalars.contains(where: { $0.value == 0 }), !hasTooManyControlBytes(Array(text.utf8))
        else { return nil }
        return (text, encoding)
    }

    /// Legacy encodings accepted from the detector, as uchardet names them.
    static let acceptedLegacyEncodings: Set<String> = [
        "SHIFT_JIS", "EUC-JP", "ISO-2022-JP", "GB18030", "BIG5", "EUC-TW", "EUC-KR", "ISO-2022-KR",
        "KOI8-R", "WINDOWS-1251", "IBM866", "ISO-8859-5", "MAC-CYRILLIC", "WINDOWS-1252", "ISO-8859-1",
        "ISO-8859-15", "ISO-8859-2", "WINDOWS-1250", "ISO-8859-7", "WINDOWS-1253", "ISO-8859-8",
        "WINDOWS-1255", "ISO-8859-9", "WINDOWS-1254", "TIS-620", "ISO-8859-11", "VISCII", "WINDOWS-1258",
    ]

    static let languageOfEncoding: [String: String] = [
        "SHIFT_JIS": "ja", "EUC-JP": "ja", "ISO-2022-JP": "ja", "GB18030": "zh-cn", "BIG5": "zh-tw",
        "EUC-TW": "zh-tw", "EUC-KR": "ko", "ISO-2022-KR": "ko", "KOI8-R": "ru", "WINDOWS-1251": "ru",
        "IBM866": "ru", "ISO-8859-5": "ru", "MAC-CYRILLIC": "ru", "ISO-8859-7": "el", "WINDOWS-1253": "el",
        "ISO-8859-8": "he", "WINDOWS-1255": "he",
    ]

    static func byteOrderMark(_ bytes: [UInt8]) -> (encoding: String, length: Int)? {
        // UTF-32LE's mark begins with UTF-16LE's, so it is tested first.
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return ("UTF-32LE", 4) }
        if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return ("UTF-32BE", 4) }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return ("UTF-8", 3) }
        if bytes.starts(with: [0xFF, 0xFE]) { return ("UTF-16LE", 2) }
        if bytes.starts(with: [0xFE, 0xFF]) { return ("UTF-16BE", 2) }
        return nil
    }

    /// More than 2% of bytes are C0 controls other than tab, LF, VT, FF, CR and ESC: binary.
    static func hasTooManyControlBytes(_ bytes: [UInt8]) -> Bool {
        var controls = 0
        for byte in bytes where byte < 0x20 {
            switch byte {
            case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B: continue
            default: controls += 1
            }
        }
        return controls * 50 > bytes.count
    }

    /// Strict UTF-8 decoding; a prefix may end inside a character (up to 3 bytes are dropped).
    static func decodeUTF8(_ bytes: [UInt8], isWholeFile: Bool) -> String? {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        guard !isWholeFile else { return nil }
        for cut in 1...3 where bytes.count > cut {
            if let text = String(validating: bytes.dropLast(cut), as: UTF8.self) { return text }
        }
        return nil
    }

    /// uchardet's guess, upper-cased, or nil when it has none.
    static func guessCharset(_ bytes: [UInt8]) -> String? {
        guard let detector = uchardet_new() else { return nil }
        defer { uchardet_delete(detector) }
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { uchardet_handle_data(detector, $0.baseAddress, $0.count) }
        }
        guard status == 0 else { return nil }
        uchardet_data_end(detector)
        guard let name = uchardet_get_charset(detector) else { return nil }
        let charset = String(cString: name).uppercased()
        return charset.isEmpty ? nil : charset
    }

    /// Converts `bytes` from `encoding` to a String with iconv. Invalid sequences become U+FFFD;
    /// an incomplete one at the end (a cut prefix) is dropped. Nil if iconv does not know the
    /// encoding.
    static func convert(_ bytes: [UInt8], from encoding: String) -> String? {
        if encoding == "UTF-8" { return String(decoding: bytes, as: UTF8.self) }
        let converter = iconv_open("UTF-8", encoding)
        guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 2)
        var chunk = [UInt8](repeating: 0, count: 16384)
        var input = bytes
        input.withUnsafeMutableBufferPointer { source in
            var inPointer = UnsafeMutableRawPointer(source.baseAddress!).assumingMemoryBound(to: CChar.self)
            var inLeft = source.count
            while inLeft > 0 {
                let (result, produced, failure) = chunk.withUnsafeMutableBufferPointer { target in
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(target.baseAddress!)
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = target.count
                    var inOptional: UnsafeMutablePointer<CChar>? = inPointer
                    let result = iconv(converter, &inOptional, &inLeft, &outPointer, &outLeft)
                    let failure = errno
                    inPointer = inOptional!
                    return (result, target.count - outLeft, failure)
                }
                output.append(contentsOf: chunk[0..<produced])
                if result != -1 { break }
                switch failure {
                case E2BIG: continue
                case EILSEQ:
                    output.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
                    inPointer += 1
                    inLeft -= 1
                default:
                    inLeft = 0  // EINVAL: an incomplete character at the end
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A language tag implied by the script of `text`: kana → Japanese, Hangul → Korean,
    /// Han alone → Chinese, Cyrillic → Russian, Hebrew, Arabic, Greek.
    static func language(of text: String) -> String? {
        var han = 0
        var kana = 0
        var hangul = 0
        var cyrillic = 0
        var hebrew = 0
        var arabic = 0
        var greek = 0
        for scalar in text.unicodeScalars.prefix(4096) {
            switch scalar.value {
            case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: kana += 1
            case 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: hangul += 1
            case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0xF900...0xFAFF: han += 1
            case 0x0400...0x04FF: cyrillic += 1
            case 0x0590...0x05FF: hebrew += 1
            case 0x0600...0x06FF: arabic += 1
            case 0x0370...0x03FF: greek += 1
            default: break
            }
        }
        if kana > 0 { return "ja" }
        if hangul > 0 { return "ko" }
        if han > 0 { return "zh-cn" }
        let scripts = [(cyrillic, "ru"), (hebrew, "he"), (arabic, "ar"), (greek, "el")]
        if let best = scripts.max(by: { $0.0 < $1.0 }), best.0 > 0 { return best.1 }
        return nil
    }
}
