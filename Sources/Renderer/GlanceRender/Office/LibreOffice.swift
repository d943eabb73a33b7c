internal import COffice
import GlanceCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// LibreOffice running in this process through LibreOfficeKit, started once (0.2 s here) and
/// kept warm: an office renderer loads document after document into it (0.04-0.1 s for a letter
/// once warm, against 2-3 s for `soffice --convert-to` started per file).
///
/// It is started before the renderer confines itself, with a profile made fresh in the
/// renderer's private workspace whose settings keep every document inside itself: macros never
/// run, links are never updated, images and templates a document links to on another host are
/// never fetched, and no lock file is written beside a document. The workspace is the renderer's
/// own (a private `/tmp` under bubblewrap): nothing in it outlives the renderer.
///
/// LibreOffice is not thread-safe: every call goes through one lock.
public final class LibreOffice: Sendable {
    private let office: Mutex<OpaquePointer>
    /// The folder this instance writes in: its profile, and each document's private copy.
    public let workspace: String

    /// Starts LibreOffice from `programFolder` with a new profile in `workspace` (a folder this
    /// process alone writes).
    public init(programFolder: String, workspace: String) throws(ThumbnailError) {
        self.workspace = workspace
        let profile = workspace + "/profile"
        try Self.writeProfile(in: profile, version: Self.version(programFolder: programFolder))
        Self.keepFilesIn(workspace: workspace)
        Self.findConfiguration(programFolder: programFolder)
        var reason = [CChar](repeating: 0, count: 512)
        guard let started = glance_office_start(programFolder, "file://" + profile, &reason, reason.count) else {
            throw .unsupported(detail: "LibreOffice could not be started: \(String(nulTerminated: reason))")
        }
        office = Mutex(started)
    }

    /// A document loaded from `path` (the renderer's private copy), used and closed in `body`.
    func withDocument<Result: Sendable>(
        at path: String, format: String, _ body: @Sendable (OfficeDocument) throws(ThumbnailError) -> Result
    ) throws(ThumbnailError) -> Result {
        try office.withLock { office throws(ThumbnailError) -> Result in
            var reason = [CChar](repeating: 0, count: 1024)
            // Batch mode: no dialog may wait for an answer (a password, a repair, a missing font).
            guard let loaded = glance_office_load(office, path, "Language=en-US,Batch=true", &reason, reason.count)
            else {
                // LibreOffice's words on one line, and short: a failure is one line of the batch.
                let words = String(nulTerminated: reason).split(whereSeparator: \.isWhitespace).joined(separator: " ")
                let detail = words.count > 200 ? String(words.prefix(200)) + "…" : words
                throw .corrupt(format: format, detail: detail.isEmpty ? "LibreOffice could not open it" : detail)
            }
            let document = OfficeDocument(handle: loaded)
            defer { document.close() }
            return try body(document)
        }
    }

    /// Whether LibreOffice has taken in fonts from the documents it opened: it writes each font
    /// a document embeds (or names from the system) into its profile's
    /// `temp/embeddedfonts/fromdocs` (`fromsystem`) and installs it for the rest of the process's
    /// life, under the name the document gives it. An office renderer that has must not draw
    /// another document: a font called "Calibri" would draw the next user's letter.
    public var hasTakenInFonts: Bool {
        let folder = workspace + "/profile/user/temp/embeddedfonts/"
        return ["fromdocs", "fromsystem"].contains { Self.holdsAnything(folder + $0) }
    }

    /// Whether the folder at `path` exists and holds an entry.
    private static func holdsAnything(_ path: String) -> Bool {
        guard let folder = opendir(path) else { return false }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { return true }
        }
        return false
    }

    /// Where Debian's LibreOffice reads its configuration (`fundamentalrc`'s
    /// `CONFIGURATION_LAYERS`: `/etc/libreoffice/registry`, which `share/registry` links to).
    static let configurationFolder = "/etc/libreoffice/registry"

    /// Points LibreOffice at the copy of its configuration under `/usr`
    /// (`share/.registry`, which Debian installs and copies to `/etc`) when the `/etc` one cannot
    /// be read: in GNOME's thumbnailer sandbox, which shows `/usr` and not `/etc`, LibreOffice
    /// started without any configuration and crashed (signal 11) on the first document. A
    /// bootstrap variable set in the environment takes the place of the one in `fundamentalrc`.
    static func findConfiguration(programFolder: String) {
        guard access(configurationFolder + "/main.xcd", R_OK) != 0 else { return }
        let copy = programFolder + "/../share/.registry"
        guard access(copy + "/main.xcd", R_OK) == 0 else { return }
        let layers =
            "xcsxcu:file://\(copy) res:file://\(copy) "
            + "user:!${$BRAND_BASE_DIR/program/bootstraprc:UserInstallation}/user/registrymodifications.xcu"
        setenv("CONFIGURATION_LAYERS", layers, 1)
    }

    /// Points what LibreOffice and the libraries it loads write on their own at `workspace`,
    /// before it starts: its temporary files (`TMPDIR`: a document's extracted parts, the
    /// `lu*.tmp` of its start), the home, caches and settings that GLib's dconf and others write
    /// (`~/.cache/dconf`). Under bubblewrap the home is already the private `/tmp`; outside it,
    /// nothing of a document is left in the real `/tmp` or the user's home when the renderer is
    /// killed, since the workspace goes with the renderer.
    static func keepFilesIn(workspace: String) {
        for (name, folder) in [
            ("TMPDIR", "tmp"), ("HOME", "home"), ("XDG_CACHE_HOME", "home/.cache"),
            ("XDG_CONFIG_HOME", "home/.config"), ("XDG_DATA_HOME", "home/.local/share"), ("XDG_RUNTIME_DIR", "run"),
        ] {
            var path = workspace
            for part in folder.split(separator: "/") {
                path += "/" + part
                mkdir(path, 0o700)
            }
            setenv(name, path, 1)
        }
    }

    /// The default colour scheme's settings (what is drawn besides the document).
    private static let colourScheme =
        "/org.openoffice.Office.UI/ColorScheme/ColorSchemes/org.openoffice.Office.UI:ColorScheme['LibreOffice']"

    /// The settings a fresh profile starts with (`registrymodifications.xcu`): the user layer of
    /// LibreOffice's configuration, which a document cannot change.
    static let settings: [(path: String, name: String, value: String)] = [
        // Macros: never run, whatever the document or its signature says.
        ("/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "true"),
        ("/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "3"),
        // Images and other resources on other hosts that a document refers to are not fetched.
        ("/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "true"),
        // Links (DDE, OLE, linked sections and sheets) never updated on load: Writer's 0 and
        // Calc's 1 are "never".
        ("/org.openoffice.Office.Writer/Content/Update", "Link", "0"),
        ("/org.openoffice.Office.Calc/Content/Update", "Link", "1"),
        // Formulas shown as saved, never recalculated on load (1: "never"), so that no
        // WEBSERVICE() or external reference is evaluated.
        ("/org.openoffice.Office.Calc/Formula/Load", "OOXMLRecalcMode", "1"),
        ("/org.openoffice.Office.Calc/Formula/Load", "ODFRecalcMode", "1"),
        // No spelling marks drawn over the text.
        ("/org.openoffice.Office.Linguistic/SpellChecking", "IsSpellAuto", "false"),
        // No `.~lock.NAME#` file beside the document (the copy is private anyway).
        ("/org.openoffice.Office.Common/Misc", "UseLocking", "false"),
        // No recovery data, no backups, no recent documents.
        ("/org.openoffice.Office.Recovery/AutoSave", "Enabled", "false"),
        ("/org.openoffice.Office.Recovery/RecoveryInfo", "Enabled", "false"),
        ("/org.openoffice.Office.Common/History", "PickListSize", "0"),
        ("/org.openoffice.Office.Common/Save/Document", "CreateBackup", "false"),
        // Pages as they print: no marks at the text area's corners, no outlines of tables and
        // frames that have no borders of their own.
        (colourScheme + "/DocBoundaries", "IsVisible", "false"),
        (colourScheme + "/TableBoundaries", "IsVisible", "false"),
        (colourScheme + "/ObjectBoundaries", "IsVisible", "false"),
        (colourScheme + "/TextBoundaries", "IsVisible", "false"),
        // No update check, no first-start wizard.
        ("/org.openoffice.Office.Common/Misc", "FirstRun", "false"),
        (
            "/org.openoffice.Office.Jobs/Jobs/org.openoffice.Office.Jobs:Job['UpdateCheck']/Arguments",
            "AutoCheckEnabled", "false"
        ),
    ]

    /// The suite's version as its configuration names it (`7.4`: `ooSetupVersion` in
    /// `share/registry/main.xcd`), if it can be read.
    static func version(programFolder: String) -> String? {
        let path = programFolder + "/../share/registry/main.xcd"
        guard let file = try? OpenFile.regularFile(atPath: path), let size = file.status().map({ Int($0.st_size) }),
            size < (64 << 20), let bytes = try? file.read(count: size, at: 0)
        else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // The product's own value: `<prop oor:name="ooSetupVersion"><value>7.4</value>` (its
        // schema's declaration, which comes first, has a type and an empty value).
        guard let declared = text.range(of: "<prop oor:name=\"ooSetupVersion\">") else { return nil }
        let rest = text[declared.upperBound...]
        guard let start = rest.range(of: "<value>"), let end = rest.range(of: "</value>"),
            start.upperBound < end.lowerBound
        else { return nil }
        let version = rest[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        return version.count <= 16 && version.allSatisfy({ $0.isNumber || $0 == "." }) ? version : nil
    }

    /// Writes the profile's settings into `folder/user/registrymodifications.xcu`. With the suite's
    /// `version`, the profile says it was last used by this version: LibreOffice then skips what
    /// it does at the first start of a version (its graphics self-test, the registration of its
    /// bundled extensions), which took 1.4 of its 1.6 s start here (0.2 s with it).
    static func writeProfile(in folder: String, version: String?) throws(ThumbnailError) {
        let user = folder + "/user"
        for path in [folder, user] where mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw .unreadable(reason: "cannot make LibreOffice's profile: \(String(cString: strerror(errno)))")
        }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <oor:items xmlns:oor="http://openoffice.org/2001/registry" \
            xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">

            """
        let lastVersion = version.map { [("/org.openoffice.Setup/Product", "ooSetupLastVersion", $0)] } ?? []
        for setting in settings + lastVersion {
            text += "<item oor:path=\"\(setting.path)\"><prop oor:name=\"\(setting.name)\" oor:op=\"fuse\">"
            text += "<value>\(setting.value)</value></prop></item>\n"
        }
        text += "</oor:items>\n"
        let descriptor = open(user + "/registrymodifications.xcu", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .unreadable(reason: "cannot write LibreOffice's profile: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard DescriptorWriter.writeAll(Array(text.utf8), to: descriptor) else {
            throw .unreadable(reason: "cannot write LibreOffice's profile")
        }
    }
}

/// A document LibreOffice loaded (owned by ``LibreOffice/withDocument(at:format:_:)``, which
/// closes it).
struct OfficeDocument {
    fileprivate let handle: OpaquePointer

    /// What its parts are.
    var family: OfficePageKind? {
        switch glance_office_document_kind(handle) {
        case 0: .text
        case 1: .spreadsheet
        case 2: .presentation
        case 3: .drawing
        default: nil
        }
    }

    /// Sheets, slides or drawing pages; 1 for a text document.
    var partCount: Int { Int(glance_office_part_count(handle)) }

    func select(part: Int) { glance_office_set_part(handle, Int32(part)) }

    /// The current part's size, in twips.
    var size: (width: Int, height: Int) {
        var width = 0
        var height = 0
        glance_office_document_size(handle, &width, &height)
        return (width, height)
    }

    /// A text document's pages, in twips: "x, y, width, height; ..." as LibreOfficeKit gives them.
    var pageRectangles: [(x: Int, y: Int, width: Int, height: Int)] {
        guard let text = glance_office_page_rectangles(handle) else { return [] }
        defer { glance_office_free_text(handle, text) }
        return String(cString: text).split(separator: ";").compactMap { rectangle in
            let numbers = rectangle.split(separator: ",").compactMap { Int($0.filter { !$0.isWhitespace }) }
            guard numbers.count == 4, numbers[2] > 0, numbers[3] > 0 else { return nil }
            return (numbers[0], numbers[1], numbers[2], numbers[3])
        }
    }

    /// Part `part`'s name (a sheet's, a slide's), if it has one.
    func name(ofPart part: Int) -> String? {
        guard let text = glance_office_part_name(handle, Int32(part)) else { return nil }
        defer { glance_office_free_text(handle, text) }
        return String(cString: text)
    }

    /// Sets the view as the document prints without markup (``glance_office_show_as_printed``):
    /// a letter's tracked deletions (`150,000 (CEO approved max 200,000)` struck through) and its
    /// comments are not what its reader sends out, and a thumbnail must not show them.
    func showAsPrinted() { glance_office_show_as_printed(handle) }

    /// Whether part `part` is shown: false for a hidden (or very hidden) sheet, which a printout
    /// leaves out and a thumbnail too (LibreOfficeKit's part information says `"visible": "0"`).
    func isVisible(part: Int) -> Bool {
        guard let text = glance_office_part_info(handle, Int32(part)) else { return true }
        defer { glance_office_free_text(handle, text) }
        let info = String(cString: text).filter { !$0.isWhitespace }
        return !info.contains("\"visible\":\"0\"")
    }

    /// Paints the area (twips) of the current part into `pixels`: `width` x `height` words of
    /// B, G, R, A.
    func paint(
        into pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int,
        area: (x: Int, y: Int, width: Int, height: Int)
    ) {
        glance_office_paint(
            handle, pixels, Int32(width), Int32(height), area.x, area.y, area.width, area.height)
    }

    fileprivate func close() { glance_office_close(handle) }
}
