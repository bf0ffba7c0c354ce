import ArgumentParser
import ParleyCore

/// `parley admin …`: apps, queues, agents and masking over the HTTP admin API of a running parleyd.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage apps, queues, agents and masking on a running server.",
        discussion: """
            Sign in as the operator with --token (parleyd's --admin-token; env PARLEY_TOKEN), who \
            manages every app, or as an admin agent with --email and --password (env PARLEY_EMAIL, \
            PARLEY_PASSWORD), who manages their own app; --app then defaults to it. Add --json to \
            get the server's JSON object.

            Examples:
              parley admin app create --name "Acme" --token op-secret
              export PARLEY_EMAIL=agent@demo.parley PARLEY_PASSWORD='(printed by parleyd)'
              parley admin agent create --name Bob --agent-email bob@acme.test --role admin
            """,
        subcommands: [AdminApp.self, AdminQueue.self, AdminAgent.self, AdminMasking.self, AdminWebhooks.self, AdminPush.self])
}
