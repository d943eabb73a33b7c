import ArgumentParser
import Foundation
import GlanceAccounts
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// `glance user add|remove|list --users FILE`: the accounts `glance serve --users FILE` asks for.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage the accounts of a users file for 'glance serve --users FILE'.",
        discussion: """
            Each account has a name, a password (stored as a salted yescrypt hash by libxcrypt, \
            never as it is) and the containers it may see (their URL names, /c/NAME; all when none \
            are named), and may have read-only access tokens for scripts. The file is written \
            owner-only; glance serve reads it again within a second of a change, so that a removed \
            account, a new password or a revoked token is refused from then on.
            """,
        subcommands: [Add.self, Remove.self, List.self, Token.self])

    /// `--users FILE`, shared by the subcommands.
    struct File: ParsableArguments {
        @Option(help: ArgumentHelp("The users file.", valueName: "FILE"))
        var users: String
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an account, or set a new password and containers for one.",
            discussion: """
                The password is asked for without echo on a terminal (twice), or read as the first \
                line of standard input otherwise (printf '%s\\n' \"$PASSWORD\" | glance user add ...).
                """)

        @Argument(help: "The account's name: 1 to 64 letters, digits, '.', '_', '-' or '@'.")
        var name: String

        @OptionGroup var file: File

        @Option(
            help: ArgumentHelp(
                "A container this account may see, by its URL name (repeat for several; default: all).",
                valueName: "NAME"))
        var container: [String] = []

        func run() throws {
            guard Accounts.isName(name) else {
                throw CommandFailure.unusable(AccountsError.invalidName(name).description)
            }
            var accounts = try UserCommand.read(file.users)
            let password = try UserCommand.readPassword()
            do {
                accounts.set(
                    try Account(name: name, password: password, containers: container.isEmpty ? nil : Set(container)))
            } catch {
                throw CommandFailure.unusable(error.description)
            }
            try UserCommand.write(accounts, to: file.users)
            print("\(DisplayText.escaped(name)): saved in \(DisplayText.escaped(file.users))")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an account and its tokens.")

        @Argument(help: "The account's name.")
        var name: String

        @OptionGroup var file: File

        func run() throws {
            var accounts = try UserCommand.read(file.users)
            guard accounts.remove(name) else {
                throw CommandFailure.unusable("\(name): no such account in \(file.users)")
            }
            try UserCommand.write(accounts, to: file.users)
            print("\(DisplayText.escaped(name)): removed")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the accounts, the containers each may see, and their tokens' identifiers.")

        @OptionGroup var file: File

        func run() throws {
            let accounts = try UserCommand.read(file.users)
            for account in accounts.byName.values.sorted(by: { $0.name < $1.name }) {
                let containers = account.containers.map { $0.sorted().joined(separator: ", ") } ?? "all containers"
                var line = "\(DisplayText.escaped(account.name))  \(DisplayText.escaped(containers))"
                let tokens = accounts.tokens.values.filter { $0.account == account.name }.map(\.id).sorted()
                if !tokens.isEmpty { line += "  tokens: " + tokens.joined(separator: ", ") }
                print(line)
            }
        }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a read-only access token for an account's scripts, or revoke one.",
            discussion: """
                The token is printed once, on standard output; only a hash of it is kept. A script \
                sends it as 'Authorization: Bearer TOKEN' (curl -H), and may then read (GET, HEAD) \
                what the account may see; it cannot sign a browser in. Revoke it with --revoke ID \
                (the identifier glance user list shows, the 12 digits after 'glance_').
                """)

        @Argument(help: "The account's name.")
        var name: String

        @OptionGroup var file: File

        @Option(help: ArgumentHelp("Revoke this token of the account instead.", valueName: "ID"))
        var revoke: String?

        func run() throws {
            var accounts = try UserCommand.read(file.users)
            guard accounts.byName[name] != nil else {
                throw CommandFailure.unusable("\(DisplayText.escaped(name)): no such account in \(file.users)")
            }
            if let revoke {
                guard accounts.tokens[revoke]?.account == name, accounts.revokeToken(revoke) else {
                    throw CommandFailure.unusable(
                        "\(DisplayText.escaped(revoke)): no such token of \(DisplayText.escaped(name))")
                }
                try UserCommand.write(accounts, to: file.users)
                StandardError.writeRaw("\(revoke): revoked\n")
                return
            }
            let made: (token: AccessToken, text: String)
            do {
                made = try AccessToken.make(for: name)
            } catch {
                throw CommandFailure.unusable(error.description)
            }
            accounts.add(made.token)
            try UserCommand.write(accounts, to: file.users)
            print(made.text)
            StandardError.writeRaw(
                "a read-only token of \(DisplayText.escaped(name)) (id \(made.token.id)); it is not shown again\n")
        }
    }

    /// The accounts of `path` (none yet when there is no such file).
    static func read(_ path: String) throws -> Accounts {
        do {
            return try Accounts.read(from: path, missingIsEmpty: true)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
    }

    /// Writes `accounts` to `path` (owner-only, atomically), or says why not (exit 2).
    static func write(_ accounts: Accounts, to path: String) throws {
        do {
            try accounts.write(to: path)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
    }

    /// A password: asked twice without echo on a terminal, else the first line of standard input.
    static func readPassword() throws -> String {
        if isatty(0) == 1 {
            let first = try prompt("Password: ")
            guard try prompt("Again: ") == first else { throw CommandFailure.unusable("the two passwords differ") }
            guard !first.isEmpty else { throw CommandFailure.unusable("an empty password is not a password") }
            return first
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CommandFailure.unusable("no password on standard input (its first line is the password)")
        }
        return line
    }

    /// One line read from the terminal with echo off.
    private static func prompt(_ text: String) throws -> String {
        StandardError.writeRaw(text)
        var original = termios()
        tcgetattr(0, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSAFLUSH, &silent)
        defer {
            tcsetattr(0, TCSAFLUSH, &original)
            StandardError.writeRaw("\n")
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
