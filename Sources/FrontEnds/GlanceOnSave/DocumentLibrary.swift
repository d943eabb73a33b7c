import GlanceContainer
import GlanceCore
import GlanceListing
import GlancePipeline

/// The library API for a document store that saves through Glance: like `UIDocument` writing its
/// thumbnail with every save, a save here returns only when the document's thumbnail is fresh.
///
/// Saves go to the indexer's interactive lane, ahead of any batch work, and cost no container
/// scan. A half-written document is never recorded as fresh: the render checks the file after
/// reading it, as every render does.
public struct DocumentLibrary: Sendable {
    /// The indexer of the container the documents live in.
    public let indexer: Indexer

    public init(indexer: Indexer) {
        self.indexer = indexer
    }

    /// Writes `bytes` to the document at `relativePath` atomically (a hidden temporary file in
    /// the same folder, flushed, renamed over, the folder flushed), then refreshes its thumbnail
    /// and returns its promised-item attributes.
    public func save(_ bytes: [UInt8], to relativePath: String) async throws(LibraryError) -> PromisedItemAttributes {
        let path = try Self.checked(relativePath)
        do {
            try indexer.scanner.directory.writeDocument(bytes, to: path)
        } catch {
            throw .cannotWrite(path: path, reason: error.description)
        }
        return try await refreshed(path)
    }

    /// Deletes the document at `relativePath` and drops its record.
    public func remove(_ relativePath: String) async throws(LibraryError) {
        let path = try Self.checked(relativePath)
        do {
            try indexer.scanner.directory.removeDocument(path)
        } catch {
            throw .cannotWrite(path: path, reason: error.description)
        }
        if case .storeFailed(_, let error) = await indexer.forget(path) { throw .store(error) }
    }

    /// Renames the document at `from` to `to`; its record (and thumbnail) moves with it, without
    /// rendering again.
    public func move(from: String, to: String) async throws(LibraryError) -> PromisedItemAttributes {
        let source = try Self.checked(from)
        let target = try Self.checked(to)
        do {
            try indexer.scanner.directory.moveDocument(from: source, to: target)
        } catch {
            throw .cannotWrite(path: source, reason: error.description)
        }
        if case .storeFailed(_, let error) = await indexer.move(from: source, to: target) { throw .store(error) }
        return try await attributes(target)
    }

    /// The attributes of `path` after a refresh.
    private func refreshed(_ path: String) async throws(LibraryError) -> PromisedItemAttributes {
        let outcomes = await indexer.refresh([path])
        if case .storeFailed(_, let error) = outcomes.first { throw .store(error) }
        return try await attributes(path)
    }

    private func attributes(_ path: String) async throws(LibraryError) -> PromisedItemAttributes {
        let listing = PreviewListing(scanner: indexer.scanner, store: indexer.store, policy: indexer.policy)
        let found: PromisedItemAttributes??
        do {
            found = try await listing.attributes(forPaths: [path]).first
        } catch {
            throw .store(error)
        }
        guard let item = found ?? nil else { throw .cannotWrite(path: path, reason: "the document is gone") }
        return item
    }

    /// `path` normalised, or an error if it would not be a document of the container
    /// (``DocumentPath``'s rule).
    static func checked(_ path: String) throws(LibraryError) -> String {
        do {
            return try DocumentPath(path).relative
        } catch {
            throw .invalidPath(error)
        }
    }
}

/// Why a document store's request failed.
public enum LibraryError: Error, Sendable, CustomStringConvertible {
    /// The path cannot name a document of the container.
    case invalidPath(DocumentPathError)
    /// Writing, deleting or renaming the file failed.
    case cannotWrite(path: String, reason: String)
    /// The thumbnail store failed.
    case store(StoreError)

    public var description: String {
        switch self {
        case .invalidPath(let error): error.description
        case .cannotWrite(let path, let reason): "\(path): \(reason)"
        case .store(let error): error.description
        }
    }
}
