import ArgumentParser

/// What `mdmconf --help` says of the commands that run in the `mdmconf-server` executable, shared by that
/// executable's commands and the entries that list them in `mdmconf`'s help (which hands them over).
package enum ServerCommands {
    package static let serve = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a catalog folder's configurations, schemas, update decisions and policy answers over HTTP.",
        discussion: """
            The catalog is loaded and checked as a whole before the first request: a catalog with any error is \
            refused with every finding (exit 78). SIGHUP reloads it, --watch reloads it when a file changes; a \
            catalog that fails to reload is logged and the last good one stays in service. SIGTERM and SIGINT \
            finish the requests in flight, then exit 0.

            Without tokens.plist the server runs in development mode: every caller is trusted, so it listens \
            only on loopback unless --insecure-no-auth is given.

            Devices check in at POST /v1/checkin; what they run is kept in the fleet store (--store): an SQLite \
            file by default (its path is printed at start-up, never inside the catalog folder), PostgreSQL when \
            several replicas serve one fleet, or none. --from-store serves the store's newest generation instead of \
            a folder and follows publishes; while a rollout (publish --rollout) splits the fleet, each device is \
            served the generation its ring gives it, and the server halts or advances the rollout as its gate and \
            schedule say, checking every --rollout-check-interval seconds. See mdmconf rollout.

            HTTPS: --tls-cert PEM --tls-key PEM (TLS 1.2+, HTTP/2 and HTTP/1.1 by ALPN); the pair is checked at \
            start-up (readable, the key the certificate's, not expired) and read again on SIGHUP, keeping the old \
            pair when the new one is refused. --dev-cert DIR makes a local certificate authority and a certificate \
            for this machine's names in DIR once, and serves with them; trust DIR/ca.pem on the test device.

            Events: the catalog's events.plist (or --events FILE) names webhook endpoints; the server sends them \
            signed events from the store's outbox, retrying failed deliveries (the first retry after \
            --event-retry-base seconds) for up to 3 days. See mdmconf events.

            Exit codes: 0 stopped by a signal, 64 usage error, 78 invalid catalog, a store that cannot be used, a \
            certificate or key that cannot be used, an events file or endpoint secret that cannot be used, or the \
            address cannot be used.
            """
    )

    package static let report = CommandConfiguration(
        commandName: "report",
        abstract: "Show the fleet's compliance from the store, judged against a catalog folder or a stored generation.",
        discussion: """
            Reads the store directly (no server needed) and judges every device's latest check-in against the \
            catalog with the code that answers devices: its update decision now, whether it runs the \
            configuration it would be served now, and whether it has checked in within silentAfterDays. \
            Inventory devices that never checked in are listed as 'never'. With --generation N instead of \
            --catalog, the catalog is stored generation N and only the devices served N are shown: while a \
            rollout splits the fleet, those it reached (N is rolled out) or the others (N is what they keep), \
            each judged against the generation it is served.

            Exit codes: 0 every device shown is compliant, 1 some are not, 64 usage error, 66 catalog missing, \
            78 the catalog, the generation or the store cannot be used.
            """
    )

    package static let simulate = CommandConfiguration(
        commandName: "simulate",
        abstract: "Play a fleet of devices against a running mdmconf serve.",
        discussion: """
            Every device runs the catalog's apps through MDMConfClient, as the app's start-up sequence does: \
            check in, fetch the configuration when it is stale (with its ETag), obey the update decision, and now \
            and then refresh the configuration as an app coming to the foreground. Versions are drawn with the \
            catalog's own rules so that every decision kind occurs (most devices current; some behind a \
            recommendation, below a minimum, on a blocked version, on an OS too old). The devices are the \
            catalog's inventory, or N generated ones (sim-00001, …) with --generate-inventory, which writes them \
            into the catalog's devices.plist (keeping the real ones; comments are not kept) and waits until the \
            server has reloaded it (serve it with --watch, or send it SIGHUP).

            A progress line is shown on a terminal; the summary says launches, decisions, configuration outcomes \
            and the 304 ratio, errors by kind and launch latency.

            Exit codes: 0 every launch was answered, 1 some were not (the summary says why), 64 usage error, \
            66 catalog missing, 78 the catalog cannot be loaded.
            """
    )

    package static let diff = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changes between two plists, two catalog folders or two stored generations.",
        discussion: """
            Two plists: key paths added, removed and changed (old → new), arrays of dictionaries matched by an \
            identifying key (id, PayloadIdentifier, Name, …) with moves recognised, other arrays by position. \
            Two catalog folders (or, with --store, two generation numbers): the same for every configuration, \
            group variant, update policy (per policy id), profile (per payload), inventory and settings file, and \
            who is affected: how many inventory devices get different configuration bytes per app and variant, \
            and with --store, whose update decision or compliance changes ("4 devices become required"), judging \
            every device's latest check-in against both catalogs. \
            Values of sensitive keys (the schema's, and names such as Password or Token) are <redacted>. Needs no \
            database for files and folders, so a CI job can post the diff of a pull request.

            Exit codes: 0 equal, 1 different (like diff), 64 usage error, 66 an input is missing, 78 an input \
            cannot be read as a plist or a generation does not exist.
            """
    )

    package static let publish = CommandConfiguration(
        commandName: "publish",
        abstract: "Store a catalog folder as the next generation in the fleet store.",
        discussion: """
            The folder is loaded exactly as `serve` loads it; a catalog with errors is refused with every finding \
            (exit 78) and nothing is written. Otherwise its files are stored as the next generation with their \
            content hash, the author ($USER or --author), the message and the time, and the changes against the \
            previous generation are printed. Content equal to the newest generation is not stored again (exit 0, \
            it says so). File bytes are stored once per content hash, not once per generation. \
            `serve --from-store` replicas pick the new generation up. With --rollout it reaches the fleet in \
            rings instead of at once (see mdmconf rollout).

            Exit codes: 0 published or unchanged, 1 a rollout is under way (complete or abort it first), or \
            --rollout on a store's first generation, 64 usage error, 66 no such folder, 78 the catalog has errors \
            or the store cannot be used.
            """
    )

    package static let history = CommandConfiguration(
        commandName: "history",
        abstract: "List the catalog generations in the fleet store, newest first.",
        discussion: "Exit codes: 0 listed (also when empty), 64 usage error, 78 the store cannot be used."
    )

    package static let rollback = CommandConfiguration(
        commandName: "rollback",
        abstract: "Publish an earlier generation's content again, as a new generation.",
        discussion: """
            History is never rewritten: rolling back to generation N stores N's files as the next generation \
            (kind rollback, source N, the same content hash), so the audit trail shows who went back and when. \
            The generation is loaded first, as `serve` would; one that does not load is refused.

            Exit codes: 0 rolled back or already current, 64 usage error, 78 no such generation, it does not load, \
            or the store cannot be used.
            """
    )

    package static let events = CommandConfiguration(
        commandName: "events",
        abstract: "List, retry and test the events sent to webhook endpoints (events.plist).",
        discussion: """
            Events wait in the fleet store's outbox until the server's dispatcher delivers them, signed with the             Standard Webhooks headers. list shows recent deliveries (--endpoint, --state pending|delivered|failed|            disabled); retry sends failed and disabled ones again (an endpoint disabled by a 410 answer is enabled             again); test ENDPOINT signs and sends a test event to one endpoint now and says what it answered,             without the outbox. The endpoints are those of --events FILE, or of the newest generation in the store.

            Exit codes: 0 done (test: the endpoint answered 2xx), 1 test: the endpoint did not answer 2xx,             64 usage error, 78 the store, the events file or the endpoint's secret cannot be used.
            """
    )

    package static let rollout = CommandConfiguration(
        commandName: "rollout",
        abstract: "Show, advance, pause, resume, abort or complete the staged rollout of a generation.",
        discussion: """
            publish --rollout 1,10,50,100 (the first ring may be a group of devices.plist: pilot,10,100) stores a \
            generation that reaches the fleet ring by ring: a device is in a ring when a stable hash of its id and \
            the generation falls under the ring's percentage, and is then served the new generation (configurations, \
            update decisions, policies, declarations); the others keep the last completed one. Every answer's \
            X-MDMConf-Catalog-Generation says which. The server halts the rollout by itself when its health gate \
            trips (--halt-when, judged over moved devices that reported since their move, once --min-devices have) \
            and advances it every --every while the gate holds.

            status shows the rings, the counts, the gate's measurements and the devices that count against it, \
            and the steps. advance moves to the next ring (past the last it completes); pause and resume stop and \
            restart it (resume also restarts a halted rollout); complete gives the generation to every device; \
            abort sends every device back by publishing the previous generation's content again (kind abort). \
            Every step is kept, with its author and --message. publish and rollback wait until the rollout is \
            completed or aborted.

            Exit codes: 0 done (status: shown), 1 the step cannot be taken now, no such rollout, or (status) the \
            rollout is halted, 64 usage error, 78 the store cannot be used.
            """
    )

    /// Whether `mdmconf` hands `name` to `mdmconf-server` (a switch: a `Set` would instantiate its generic
    /// metadata by name at start-up, measurable in `lint`'s 4 ms).
    package static func contains(_ name: String) -> Bool {
        switch name {
        case "serve", "report", "simulate", "diff", "publish", "history", "rollback", "rollout", "events": true
        default: false
        }
    }

    /// Every configuration above, in `mdmconf --help`'s order.
    package static let all = [serve, report, simulate, diff, publish, history, rollback, rollout, events]
}
