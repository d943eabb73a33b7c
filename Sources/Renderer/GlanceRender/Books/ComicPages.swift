import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A comic book's pages: the pictures its archive holds, in natural order (`page2` before
/// `page10`, as people number files), hidden entries and others left out.
///
/// An entry is a page when it is a regular file whose name ends as a picture does (JPEG, PNG,
/// WebP, GIF, TIFF, HEIC, AVIF) and no part of its path is hidden (starts with a dot) or is
/// macOS's resource-fork folder `__MACOSX`. `ComicInfo.xml`, text files and the like are not.
enum ComicPages {
    /// The indices of `entries` that are pages, in reading order. Each name's sort key is made
    /// once (``NaturalKey``), not at every comparison: a 58 kB CB7 listing 9,900 pages of
    /// 4,250-character names kept a renderer past its time limit when both names were split at
    /// each of the sort's comparisons.
    static func order(_ entries: [ArchiveReader.Entry]) -> [Int] {
        let pages = entries.indices.filter { isPage(entries[$0]) }
        let keys = pages.map { NaturalKey(entries[$0].name) }
        return keys.indices.sorted { keys[$0] < keys[$1] }.map { pages[$0] }
    }

    /// Whether `entries` hold a page at all (what a sniffer asks: no order needed).
    static func hasPages(_ entries: [ArchiveReader.Entry]) -> Bool { entries.contains(where: isPage) }

    /// Whether `entry` is a page: a file named as a picture, nothing of its path hidden.
    static func isPage(_ entry: ArchiveReader.Entry) -> Bool {
        entry.isFile && EmbeddedPicture.isPictureName(entry.name) && !isHidden(entry.name)
    }

    /// Whether any part of `path` is hidden: a dot file or folder, or `__MACOSX`.
    static func isHidden(_ path: String) -> Bool {
        // Searched with strstr in the name's bytes (an entry's name may be thousands of bytes,
        // and has no NUL: it came as a C string).
        ("/" + path + "/").withCString { name in
            strstr(name, "/.") != nil || strstr(name, "/__MACOSX/") != nil
        }
    }

    /// Whether `first` comes before `second` in natural order (``NaturalKey``).
    static func naturallyBefore(_ first: String, _ second: String) -> Bool { NaturalKey(first) < NaturalKey(second) }

    /// A name's place in natural order: runs of ASCII digits compare as numbers (leading zeros
    /// aside), everything else byte by byte with ASCII letters in lower case; names equal that way
    /// fall back to their bytes. Made from the name's UTF-8 bytes in one pass; only the first
    /// ``significantBytes`` of a name are split into runs (no reader tells pages apart further
    /// in), so that a key costs at most that however long a hostile name is.
    struct NaturalKey: Comparable {
        /// The bytes of a name that natural order looks at; the rest only breaks ties.
        static let significantBytes = 512

        enum Run: Equatable {
            /// Digits without their leading zeros.
            case number(ArraySlice<UInt8>)
            /// Anything else, ASCII letters in lower case.
            case text([UInt8])
        }

        let runs: [Run]
        let bytes: [UInt8]

        init(_ name: String) {
            bytes = Array(name.utf8)
            var runs: [Run] = []
            let significant = bytes.prefix(Self.significantBytes)
            var start = significant.startIndex
            while start < significant.endIndex {
                let isDigit = Self.isDigit(significant[start])
                var end = start
                while end < significant.endIndex && Self.isDigit(significant[end]) == isDigit { end += 1 }
                if isDigit {
                    let digits = significant[start..<end]
                    let first = digits.firstIndex { $0 != UInt8(ascii: "0") } ?? (end - 1)
                    runs.append(.number(digits[first...]))
                } else {
                    runs.append(.text(significant[start..<end].map { (65...90).contains($0) ? $0 + 32 : $0 }))
                }
                start = end
            }
            self.runs = runs
        }

        private static func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }

        static func < (left: NaturalKey, right: NaturalKey) -> Bool {
            for (a, b) in zip(left.runs, right.runs) where a != b {
                switch (a, b) {
                case (.number(let x), .number(let y)):
                    if x.count != y.count { return x.count < y.count }
                    return x.lexicographicallyPrecedes(y)
                case (.number, .text): return true
                case (.text, .number): return false
                case (.text(let x), .text(let y)): return x.lexicographicallyPrecedes(y)
                }
            }
            if left.runs.count != right.runs.count { return left.runs.count < right.runs.count }
            return left.bytes.lexicographicallyPrecedes(right.bytes)
        }

        static func == (left: NaturalKey, right: NaturalKey) -> Bool { left.bytes == right.bytes }
    }
}
