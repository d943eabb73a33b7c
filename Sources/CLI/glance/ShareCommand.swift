import ArgumentParser
import Foundation
import GlanceAccounts
import GlanceCore

/// `glance share add|list|revoke --users FILE`: links that open one container, or one document,
/// read-only and for a while, on a `glance serve --users FILE`.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Make, list and revoke share links for 'glance serve --users FILE'.",
        discussion: """
            A share link opens one container, or one document of it, read-only, to whoever has \
            the link, until it expires: no account is needed. The link is a token signed with a \
            key kept in the users file (HMAC-SHA-256 through jwt-kit), and its grant is a line of \
            the file: revoking it (or all links, which also replaces the key) closes it within a \
            second on a running server, and ends the browser sessions it opened.
            """,
        subcommands: [Add.self, List.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a share link and print it.",
            discussion: """
                CONTAINER is the container's URL name, as glance user add --container takes it \
                (the NAME of /c/NAME, or the folder's name when the server serves one container). \
                With DOCUMENT (a path inside it), the link opens that document's preview, \
                thumbnail, pages, text and original only.
                """)

        @Argument(help: "The container's URL name.")
        var container: String

        @Argument(help: "One document to share instead of the whole container (its path inside the container).")
        var document: String?

        @OptionGroup var file: UserCommand.File

        @Option(
            help: ArgumentHelp(
                "How long the link opens: minutes, hours or days (30m, 12h, 7d; at most 90d).",
                valueName: "TIME"))
        var expires: String = "7d"

        @Option(
            help: ArgumentHelp(
                "The server's address as people reach it (https://docs.example.org/glance/), to print a whole link.",
                valueName: "URL"))
        var url: String?

        func run() async throws {
            guard ContainerName.isValid(container) else {
                throw CommandFailure.unusable(
                    "\(DisplayText.escaped(container)): a container's URL name is letters, digits, '.', '_' and '-'")
            }
            var path: String?
            if let document {
                guard let checked = DocumentPath(exactly: document)?.relative else {
                    throw CommandFailure.unusable(
                        "\(DisplayText.escaped(document)): not a document path (relative, no '.', '..' or hidden names)"
                    )
                }
                path = checked
            }
            guard let lifetime = ShareCommand.lifetime(expires) else {
                throw CommandFailure.unusable(
                    "--expires \(DisplayText.escaped(expires)): give minutes, hours or days (30m, 12h, 7d), at most 90d"
                )
            }
            var accounts = try UserCommand.read(file.users)
            let share = Share.make(container: container, document: path, expires: Date().addingTimeInterval(lifetime))
            accounts.add(share)
            guard let key = accounts.shareKey else { throw CommandFailure.unusable("no share key could be made") }
            let token: String
            do {
                token = try await ShareLinks(key: key).token(for: share)
            } catch {
                throw CommandFailure.unusable("cannot sign the link: \(error)")
            }
            try UserCommand.write(accounts, to: file.users)
            let base = url.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
            print(base + "/share/" + token)
            StandardError.writeRaw(
                "share \(share.id) opens \(path.map { "\(DisplayText.escaped($0)) in " } ?? "")"
                    + "\(container) until \(ShareCommand.format(share.expires))"
                    + (url == nil ? "; put the server's address (and --base-path) before /share/" : "") + "\n")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the share links: identifier, container, document and expiry.")

        @OptionGroup var file: UserCommand.File

        func run() throws {
            let accounts = try UserCommand.read(file.users)
            let now = Date()
            for share in accounts.shares.values.sorted(by: { ($0.expires, $0.id) < ($1.expires, $1.id) }) {
                let what = share.document.map { DisplayText.escaped($0) } ?? "(the whole container)"
                let state = share.isLive(at: now) ? "until" : "expired"
                print("\(share.id)  \(share.container)  \(what)  \(state) \(ShareCommand.format(share.expires))")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a share link (by the identifier glance share list shows), or all of them.")

        @Argument(help: "The link's identifier (12 hexadecimal digits).")
        var id: String?

        @Flag(help: "Revoke every link, and sign new ones with a new key.")
        var all = false

        @OptionGroup var file: UserCommand.File

        func validate() throws {
            guard (id == nil) != (!all) else {
                throw ValidationError("give a link's identifier or --all (not both)")
            }
        }

        func run() throws {
            var accounts = try UserCommand.read(file.users)
            if all {
                let count = accounts.shares.count
                accounts.revokeAllShares()
                try UserCommand.write(accounts, to: file.users)
                print("\(count) share link\(count == 1 ? "" : "s") revoked; the key is new")
                return
            }
            guard let id, accounts.revokeShare(id) else {
                throw CommandFailure.unusable("\(DisplayText.escaped(id ?? "")): no such share link in \(file.users)")
            }
            try UserCommand.write(accounts, to: file.users)
            print("\(id): revoked")
        }
    }

    /// Seconds for `30m`, `12h` or `7d`, up to ``Share/longestLifetime``; nil otherwise.
    static func lifetime(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        let seconds: TimeInterval
        switch unit {
        case "m": seconds = TimeInterval(count) * 60
        case "h": seconds = TimeInterval(count) * 3600
        case "d": seconds = TimeInterval(count) * 86400
        default: return nil
        }
        return seconds <= Share.longestLifetime ? seconds : nil
    }

    /// A moment as `2026-11-27 16:40 UTC`.
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
