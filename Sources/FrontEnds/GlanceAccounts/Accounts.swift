internal import CPassword
import Foundation
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// One account of a server's users file: a name, its password's hash, and the containers it may
/// see (by their URL names, `/c/NAME`; nil for all).
public struct Account: Sendable, Equatable {
    public let name: String
    /// The password's hash, as libxcrypt writes it (`$y$…`, yescrypt).
    public let passwordHash: String
    /// The containers this account may see; nil: every container served.
    public let containers: Set<String>?

    public init(name: String, passwordHash: String, containers: Set<String>?) {
        self.name = name
        self.passwordHash = passwordHash
        self.containers = containers
    }

    /// An account for `name` whose password is `password`, hashed now with a fresh salt.
    public init(name: String, password: String, containers: Set<String>?) throws(AccountsError) {
        guard Accounts.isName(name) else { throw .invalidName(name) }
        if let containers {
            guard !containers.isEmpty else { throw .invalidContainer("") }
            if let bad = containers.first(where: { !ContainerName.isValid($0) }) { throw .invalidContainer(bad) }
        }
        var buffer = [CChar](repeating: 0, count: 256)
        guard glance_password_hash(password, &buffer, buffer.count) == 0 else {
            throw .cannotHash(String(cString: strerror(errno)))
        }
        self.init(
            name: name,
            passwordHash: String(nulTerminated: buffer),
            containers: containers)
    }

    /// Whether `password` is this account's (compared in constant time).
    public func accepts(password: String) -> Bool {
        glance_password_matches(password, passwordHash) == 1
    }

    /// Whether this account may see the container of URL name `container`.
    public func maySee(container: String) -> Bool {
        containers.map { $0.contains(container) } ?? true
    }
}

/// A read-only access token of an account, for scripts (`Authorization: Bearer glance_ID_SECRET`):
/// the users file keeps its identifier and a hash of its secret, never the secret itself.
public struct AccessToken: Sendable, Equatable {
    /// The token's public identifier (12 hexadecimal digits), which `glance user list` shows and
    /// `glance user token --revoke` takes.
    public let id: String
    /// The account the token reads as.
    public let account: String
    /// The secret's hash, as libxcrypt writes it (`$y$…`).
    public let secretHash: String

    public init(id: String, account: String, secretHash: String) {
        self.id = id
        self.account = account
        self.secretHash = secretHash
    }

    /// A new token for `account`, and the text to hand to its user (shown once: only its hash is
    /// kept). The identifier and the 32-byte secret come from the system's random generator.
    public static func make(for account: String) throws(AccountsError) -> (token: AccessToken, text: String) {
        var generator = SystemRandomNumberGenerator()
        let id = hex((0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let secret = hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let hashed = try Account(name: account, password: secret, containers: nil).passwordHash
        return (AccessToken(id: id, account: account, secretHash: hashed), "glance_\(id)_\(secret)")
    }

    /// The identifier and secret of a token's text, or nil when it is not one.
    public static func parts(of text: String) -> (id: String, secret: String)? {
        let fields = text.split(separator: "_", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == "glance", isIdentifier(String(fields[1])), fields[2].count == 64,
            fields[2].allSatisfy(\.isHexDigit)
        else { return nil }
        return (String(fields[1]), String(fields[2]))
    }

    /// Whether `text` can be a token's identifier: 12 hexadecimal digits.
    public static func isIdentifier(_ text: String) -> Bool {
        text.count == 12 && text.allSatisfy(\.isHexDigit)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// The accounts of a users file (`--users FILE`): one line each, `NAME:HASH:CONTAINERS`, where
/// CONTAINERS is `*` or URL names separated by commas, and one per access token,
/// `token:ID:NAME:HASH`, one per share link, `share:ID:CONTAINER:EXPIRES:DOCUMENT` (EXPIRES in
/// seconds since 1970, DOCUMENT percent-encoded or `*` for the whole container), and the key share
/// links are signed with, `share-key:BASE64`; `#` starts a comment. The file is written owner-only and atomically;
/// `glance serve` reads it at start and again within a second of a change.
public struct Accounts: Sendable, Equatable {
    /// The accounts, by name.
    public private(set) var byName: [String: Account] = [:]
    /// The access tokens, by identifier.
    public private(set) var tokens: [String: AccessToken] = [:]
    /// The share links' grants, by identifier (expired ones stay until the next `glance share`).
    public private(set) var shares: [String: Share] = [:]
    /// The key share links are signed with (32 bytes), made by the first `glance share add`.
    public private(set) var shareKey: [UInt8]?

    public init(_ accounts: [Account] = []) {
        for account in accounts { byName[account.name] = account }
    }

    /// Whether `name` may name an account: 1 to 64 letters, digits, `.`, `_`, `-` or `@`.
    public static func isName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-@".unicodeScalars.contains($0))
            }
    }

    /// Reads the users file at `path`; a file that is missing reads as no accounts when
    /// `missingIsEmpty` (for the command that makes it).
    ///
    /// Whoever may write the file may give themselves an account, so it must be this user's own,
    /// writable by no one else, in a folder no one else may write (unless the folder is sticky,
    /// as `/tmp`, where others cannot replace what is ours). The file is opened once, without
    /// following a link, and the checks are made on the descriptor that is read: a name swapped
    /// between a check and the read changes nothing.
    public static func read(from path: String, missingIsEmpty: Bool = false) throws(AccountsError) -> Accounts {
        try checkFolder(of: path)
        let descriptor = FileName.withCString(path) { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let code = errno
            if missingIsEmpty, code == ENOENT { return Accounts() }
            if code == ELOOP { throw .unreadable(path: path, reason: "is a symbolic link; name the file itself") }
            throw .unreadable(path: path, reason: "cannot read it: \(String(cString: strerror(code)))")
        }
        let file: OpenFile
        let status: stat
        do {
            file = try OpenFile.checkedRegular(OpenFile(adopting: descriptor))
            guard let read = file.status() else { throw FileAccessError(errno: errno) }
            status = read
        } catch {
            throw .unreadable(path: path, reason: "cannot read it: \(error)")
        }
        if status.st_uid != geteuid() {
            throw .unreadable(path: path, reason: "belongs to another user; a users file must be the server's own")
        }
        if status.st_mode & 0o022 != 0 {
            throw .unreadable(
                path: path, reason: "others may write it, and so give themselves an account: chmod 600 it")
        }
        // One more byte than allowed: a file that grew past the limit since the fstat shows it.
        let bytes: [UInt8]
        do {
            bytes = try file.read(count: maximumFileBytes + 1, at: 0)
        } catch {
            throw .unreadable(path: path, reason: "cannot read it: \(error)")
        }
        guard bytes.count <= maximumFileBytes else {
            throw .unreadable(path: path, reason: "is larger than \(maximumFileBytes >> 20) MiB; not a users file")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .unreadable(path: path, reason: "is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// The most a users file may hold: far more than ten thousand accounts and links need.
    static let maximumFileBytes = 16 << 20

    /// Refuses a users file whose folder others may write (and so swap the file for theirs),
    /// unless the folder is sticky: there only the file's owner may rename or remove it.
    static func checkFolder(of path: String) throws(AccountsError) {
        let folder = (path as NSString).deletingLastPathComponent
        var status = stat()
        guard FileName.withCString(folder.isEmpty ? "." : folder, { stat($0, &status) }) == 0 else {
            throw .unreadable(path: path, reason: "its folder cannot be read: \(String(cString: strerror(errno)))")
        }
        if status.st_mode & 0o022 != 0, status.st_mode & S_ISVTX == 0 {
            throw .unreadable(
                path: path,
                reason: "its folder may be written by others, who could swap the file for their own: "
                    + "keep it in a folder only you may write")
        }
    }

    /// The accounts of a users file's `text` (read from `path`, which the errors name).
    static func parse(_ text: String, path: String) throws(AccountsError) -> Accounts {
        var accounts = Accounts()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            if fields.count == 4, fields[0] == "token" {
                guard AccessToken.isIdentifier(fields[1]), isName(fields[2]), fields[3].hasPrefix("$")
                else { throw .unreadable(path: path, reason: "line \(index + 1) is not token:ID:NAME:HASH") }
                accounts.tokens[fields[1]] = AccessToken(id: fields[1], account: fields[2], secretHash: fields[3])
                continue
            }
            if fields.count == 2, fields[0] == "share-key" {
                guard let key = Data(base64Encoded: fields[1]), key.count == 32 else {
                    throw .unreadable(path: path, reason: "line \(index + 1) is not share-key:BASE64 of 32 bytes")
                }
                accounts.shareKey = Array(key)
                continue
            }
            if fields.first == "share" {
                guard let share = Self.share(fromLine: fields) else {
                    throw .unreadable(
                        path: path, reason: "line \(index + 1) is not share:ID:CONTAINER:EXPIRES:DOCUMENT")
                }
                accounts.shares[share.id] = share
                continue
            }
            guard fields.count == 3, isName(fields[0]), fields[1].hasPrefix("$"), let containers = containers(fields[2])
            else {
                throw .unreadable(path: path, reason: "line \(index + 1) is not NAME:HASH:CONTAINERS")
            }
            accounts.byName[fields[0]] = Account(name: fields[0], passwordHash: fields[1], containers: containers)
        }
        return accounts
    }

    /// The containers of an account's line: `*` for all (`.some(nil)`), or URL names separated
    /// by commas; nil when the field is neither.
    private static func containers(_ field: String) -> Set<String>?? {
        if field == "*" { return .some(nil) }
        let names = field.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !names.isEmpty, names.allSatisfy(ContainerName.isValid) else { return nil }
        return .some(Set(names))
    }

    /// The users file's text for these accounts.
    func text() -> String {
        var text = "# glance serve --users: NAME:HASH:CONTAINERS (managed by glance user)\n"
        for account in byName.values.sorted(by: { $0.name < $1.name }) {
            let containers = account.containers.map { $0.sorted().joined(separator: ",") } ?? "*"
            text += "\(account.name):\(account.passwordHash):\(containers)\n"
        }
        for token in tokens.values.sorted(by: { ($0.account, $0.id) < ($1.account, $1.id) }) {
            text += "token:\(token.id):\(token.account):\(token.secretHash)\n"
        }
        if let shareKey { text += "share-key:\(Data(shareKey).base64EncodedString())\n" }
        for share in shares.values.sorted(by: { ($0.expires, $0.id) < ($1.expires, $1.id) }) {
            let document = share.document.map(Self.encodedDocument) ?? "*"
            text += "share:\(share.id):\(share.container):\(Int(share.expires.timeIntervalSince1970)):\(document)\n"
        }
        return text
    }

    /// Writes the accounts to `path`, owner-only (0600), replacing the file atomically; only a
    /// text that reads back as these very accounts is written (a value that would break a line,
    /// or that the reader refuses, leaves the file as it was).
    public func write(to path: String) throws(AccountsError) {
        let text = text()
        let readBack: Accounts
        do {
            readBack = try Self.parse(text, path: path)
        } catch {
            throw .unwritable(path: path, reason: "the file would not read back (\(error)); it was left as it was")
        }
        guard readBack == self else {
            throw .unwritable(path: path, reason: "the file would read back differently; it was left as it was")
        }
        do {
            try AtomicFileWriter.write(Array(text.utf8), to: path, mode: 0o600)
        } catch .writeFailed(_, let reason) {
            throw .unwritable(path: path, reason: reason)
        } catch {
            throw .unwritable(path: path, reason: error.description)
        }
    }

    /// Adds or replaces `account`.
    public mutating func set(_ account: Account) { byName[account.name] = account }

    /// Removes the account `name`; false when there was none.
    @discardableResult
    public mutating func remove(_ name: String) -> Bool {
        tokens = tokens.filter { $0.value.account != name }
        return byName.removeValue(forKey: name) != nil
    }

    /// Adds `token` (its account must exist).
    public mutating func add(_ token: AccessToken) { tokens[token.id] = token }

    /// Revokes the token `id`; false when there was none.
    @discardableResult
    public mutating func revokeToken(_ id: String) -> Bool { tokens.removeValue(forKey: id) != nil }

    /// Adds `share`, making the share key first when there is none, and forgets grants that
    /// expired.
    public mutating func add(_ share: Share, now: Date = Date()) {
        if shareKey == nil { shareKey = ShareLinks.makeKey() }
        shares = shares.filter { $0.value.isLive(at: now) }
        shares[share.id] = share
    }

    /// Revokes the share link `id`; false when there was none.
    @discardableResult
    public mutating func revokeShare(_ id: String) -> Bool { shares.removeValue(forKey: id) != nil }

    /// Revokes every share link: the grants are removed and the key replaced, so that no link
    /// signed before opens again.
    public mutating func revokeAllShares() {
        shares.removeAll()
        shareKey = ShareLinks.makeKey()
    }

    /// A grant from a line's fields (`share`, ID, CONTAINER, EXPIRES, DOCUMENT), or nil.
    private static func share(fromLine fields: [String]) -> Share? {
        guard fields.count == 5, AccessToken.isIdentifier(fields[1]), ContainerName.isValid(fields[2]),
            let seconds = Int(fields[3])
        else { return nil }
        var document: String?
        if fields[4] != "*" {
            guard let path = DocumentURL.from(components: fields[4].split(separator: "/")) else { return nil }
            document = path
        }
        return Share(
            id: fields[1], container: fields[2], document: document,
            expires: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// A document path as a users file keeps it: each component percent-encoded, `:` included.
    private static func encodedDocument(_ path: String) -> String {
        DocumentURL.encoded(path).replacingOccurrences(of: ":", with: "%3A")
    }

    /// The hash that proves `name` (an account's name, or `token ID`): its password's or its
    /// token's, as the accounts hold it now.
    public func proof(named name: String) -> String? {
        if name.hasPrefix("token ") { return tokens[String(name.dropFirst(6))]?.secretHash }
        return byName[name]?.passwordHash
    }

    /// The account `name` (an account's name, or `token ID`) is, when `proof` is still the hash
    /// that proves it: nil once the password changed, the token was revoked or the account removed.
    public func account(named name: String, provenBy proof: String) -> Account? {
        guard proof == self.proof(named: name) else { return nil }
        if name.hasPrefix("token ") { return tokens[String(name.dropFirst(6))].flatMap { byName[$0.account] } }
        return byName[name]
    }

    /// The account whose token `text` is, or nil (an unknown identifier costs the same hash).
    public func account(forToken text: String) -> Account? {
        guard let (id, secret) = AccessToken.parts(of: text) else { return nil }
        guard let token = tokens[id], let account = byName[token.account] else {
            _ = Self.decoy.accepts(password: secret)
            return nil
        }
        let holder = Account(name: token.account, passwordHash: token.secretHash, containers: nil)
        return holder.accepts(password: secret) ? account : nil
    }

    /// The account whose name and password these are, or nil.
    public func account(named name: String, password: String) -> Account? {
        guard let account = byName[name] else {
            // The same work for an unknown name as for a known one: its existence is not timed out.
            _ = Self.decoy.accepts(password: password)
            return nil
        }
        return account.accepts(password: password) ? account : nil
    }

    /// A hash to check unknown names against.
    private static let decoy: Account = {
        (try? Account(name: "decoy", password: "not a password \(UUID().uuidString)", containers: []))
            ?? Account(name: "decoy", passwordHash: "*", containers: [])
    }()
}

/// Why a users file cannot be used.
public enum AccountsError: Error, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)
    case invalidName(String)
    /// A container name that is no container's URL name (`/c/NAME`).
    case invalidContainer(String)
    case cannotHash(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .unwritable(let path, let reason): "cannot write \(path): \(reason)"
        case .invalidName(let name):
            "\(name): an account name is 1 to 64 letters, digits, '.', '_', '-' or '@'"
        case .invalidContainer(let name):
            "\(DisplayText.escaped(name)): a container is named by its URL name (/c/NAME): letters, digits, '.', "
                + "'_' and '-', not only dots"
        case .cannotHash(let reason): "cannot hash the password: \(reason)"
        }
    }
}
