// A tiny document store that keeps its thumbnails with Glance.
//
// It is the smallest program that does what a real one does (a sync daemon, a web app that takes
// uploads): it writes the documents itself, each save atomic, and then tells Glance, in-process,
// what it saved, moved or removed. When `saved` returns, the document's thumbnail is fresh in the
// sidecar beside the documents; no `glance` process is started and no folder is scanned.
//
//     tiny-document-store FOLDER save NAME < upload     the upload saved as NAME, then its thumbnail
//     tiny-document-store FOLDER rename OLD NEW         a document renamed (its thumbnail moves with it)
//     tiny-document-store FOLDER remove NAME            a document deleted (its record goes)
//     tiny-document-store FOLDER list                   every document with its thumbnail's state
//
// Each command prints one line per document; a document whose thumbnail failed exits 1, a
// request the store refuses exits 2.

import Foundation
import Glance

/// The store's own part: where documents are written, and how.
struct DocumentFolder {
    let root: String

    /// Writes `bytes` as `name` atomically: a temporary file beside it, flushed, renamed over.
    func write(_ bytes: [UInt8], as name: String) throws {
        let target = root + "/" + name
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = folder + "/.upload-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                close(descriptor)
                unlink(temporary)
                throw POSIXError(.EIO)
            }
            written += count
        }
        fsync(descriptor)
        close(descriptor)
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}

/// One line for a document: its name, the state of its thumbnail, and the thumbnail's size.
func line(_ item: PromisedItemAttributes) -> String {
    var text = "\(DisplayText.escaped(item.path)): \(item.state.rawValue)"
    if let thumbnail = item.standardThumbnail {
        text += ", thumbnail \(thumbnail.width)x\(thumbnail.height) \(thumbnail.format.rawValue)"
    }
    if let error = item.error { text += " (\(DisplayText.escaped(error)))" }
    return text
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tiny-document-store: \(DisplayText.escaped(message))\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    fail("usage: tiny-document-store FOLDER save NAME < upload | rename OLD NEW | remove NAME | list")
}
let folder = DocumentFolder(root: arguments[0])
let command = arguments[1]
let names = Array(arguments.dropFirst(2))

let container: Container
do {
    container = try await Container.open(ContainerLocation(container: folder.root))
} catch {
    fail(error.description)
}

var status: Int32 = 0
do {
    switch (command, names.count) {
    case ("save", 1):
        // Checked before the upload is written: the store never writes outside its folder.
        let name = try DocumentPath(names[0]).relative
        let upload = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        try folder.write(upload, as: name)
        for item in try await container.saved([name]) {
            guard let item else { continue }
            print(line(item))
            if item.state == .failed { status = 1 }
        }
    case ("rename", 2):
        let (old, new) = (try DocumentPath(names[0]).relative, try DocumentPath(names[1]).relative)
        guard rename(folder.root + "/" + old, folder.root + "/" + new) == 0 else {
            fail("\(old): cannot rename: \(String(cString: strerror(errno)))")
        }
        if let item = try await container.moved(from: old, to: new) { print(line(item)) }
    case ("remove", 1):
        let name = try DocumentPath(names[0]).relative
        guard unlink(folder.root + "/" + name) == 0 else {
            fail("\(name): cannot remove: \(String(cString: strerror(errno)))")
        }
        try await container.removed([name])
        print("\(DisplayText.escaped(name)): removed")
    case ("list", 0):
        for item in try await container.listing() { print(line(item)) }
    default:
        fail("unknown command or wrong number of names: \(arguments.dropFirst().joined(separator: " "))")
    }
} catch {
    await container.close()
    fail("\(error)")
}
await container.close()
exit(status)
