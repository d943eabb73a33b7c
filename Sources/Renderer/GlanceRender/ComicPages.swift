import GlanceCore

/// A comic book's pages: the pictures its archive holds, in natural order (`page2` before
/// `page10`, as people number files), hidden entries and others left out.
///
/// An entry is a page when it is a regular file whose name ends as a picture does (JPEG, PNG,
/// WebP, GIF, TIFF, HEIC, AVIF) and no part of its path is hidden (starts with a dot) or is
/// macOS's resource-fork folder `__MACOSX`. `ComicInfo.xml`, text files and the like are not.
enum ComicPages {
    /// The indices of `entries` that are pages, in reading order.
    static func order(_ entries: [ArchiveReader.Entry]) -> [Int] {
        let pages = entries.indices.filter { index in
            let entry = entries[index]
            return entry.isFile && EmbeddedPicture.isPictureName(entry.name) && !isHidden(entry.name)
        }
        return pages.sorted { naturallyBefore(entries[$0].name, entries[$1].name) }
    }

    /// Whether any part of `path` is hidden: a dot file or folder, or `__MACOSX`.
    static func isHidden(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0.hasPrefix(".") || $0 == "__MACOSX" }
    }

    /// Whether `first` comes before `second` in natural order: runs of digits compare as numbers,
    /// everything else case-insensitively; names equal that way fall back to their bytes.
    static func naturallyBefore(_ first: String, _ second: String) -> Bool {
        let (a, b) = (runs(first), runs(second))
        for (left, right) in zip(a, b) where left != right {
            switch (left, right) {
            case (.number(let x), .number(let y)):
                if x.count != y.count { return x.count < y.count }
                return x < y
            case (.number, .text): return true
            case (.text, .number): return false
            case (.text(let x), .text(let y)): return x < y
            }
        }
        if a.count != b.count { return a.count < b.count }
        return Array(first.utf8).lexicographicallyPrecedes(Array(second.utf8))
    }

    /// A run of a name: digits (without leading zeros), or anything else (lower case).
    enum Run: Equatable {
        case number(String)
        case text(String)
    }

    static func runs(_ name: String) -> [Run] {
        var result: [Run] = []
        var current = ""
        var inDigits = false
        func flush() {
            guard !current.isEmpty else { return }
            if inDigits {
                let trimmed = current.drop { $0 == "0" }
                result.append(.number(trimmed.isEmpty ? "0" : String(trimmed)))
            } else {
                result.append(.text(current.lowercased()))
            }
            current = ""
        }
        for character in name {
            let isDigit = character.isASCII && character.isNumber
            if isDigit != inDigits {
                flush()
                inDigits = isDigit
            }
            current.append(character)
        }
        flush()
        return result
    }
}
