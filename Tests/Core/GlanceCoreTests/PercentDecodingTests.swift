import GlanceCore
import Testing

@Suite("percent-decoding of URL parts", .timeLimit(.minutes(10)))
struct PercentDecodingTests {
    @Test("escapes are bytes read as UTF-8; + is a space only in a form; a bad escape or bytes not UTF-8 are nothing")
    func decoding() {
        #expect(PercentDecoding.decoded("plain name.jpg") == "plain name.jpg")
        #expect(PercentDecoding.decoded("caf%C3%A9%20au%20lait.txt") == "café au lait.txt")
        #expect(PercentDecoding.decoded("a+b%2Bc") == "a+b+c")
        #expect(PercentDecoding.decoded("a+b%2Bc", plusIsSpace: true) == "a b+c")
        #expect(PercentDecoding.decoded("%2f%2F") == "//")
        for bad in ["%", "%4", "%G1", "50%", "%zz", "%C3", "%FF%FE"] {
            #expect(PercentDecoding.decoded(Substring(bad)) == nil, "\(bad)")
        }
        // Every escape of a printable ASCII byte decodes to that character.
        for byte in UInt8(0x20)...UInt8(0x7E) {
            let escaped = "%" + String(byte, radix: 16, uppercase: true)
            #expect(PercentDecoding.decoded(Substring(escaped)) == String(UnicodeScalar(byte)))
        }
    }

    @Test("the bytes of a name for the system: its UTF-8, or the bytes it escapes")
    func fileNameBytes() {
        #expect(FileName.encode("café.txt") == Array("café.txt".utf8))
        // A name read from disk with a byte that is not UTF-8 keeps that byte.
        let raw: [UInt8] = [0x61, 0xFF, 0x62]
        #expect(FileName.encode(FileName.decode(raw[...])) == raw)
        // A scalar above the escapes' range (its UTF-8 starts with F4 too) is written as UTF-8.
        let high = "\u{10FF7F}"
        #expect(FileName.encode(high) == Array(high.utf8))
    }
}
