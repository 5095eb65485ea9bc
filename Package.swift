// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "mdmconf",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mdmconf", targets: ["MDMConfCLI"]),
        .executable(name: "mdmconf-server", targets: ["MDMConfServerCLI"]),
        .library(name: "MDMDiagnostics", targets: ["MDMDiagnostics"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "ConfigSchema", targets: ["ConfigSchema"]),
        .library(name: "UpdatePolicy", targets: ["UpdatePolicy"]),
        .library(name: "DevicePolicy", targets: ["DevicePolicy"]),
        .library(name: "MDMConf", targets: ["MDMConf"]),
        .library(name: "Fleet", targets: ["Fleet"]),
        .library(name: "FleetStores", targets: ["FleetStores"]),
        .library(name: "AdminUI", targets: ["AdminUI"]),
        .library(name: "MDMConfServer", targets: ["MDMConfServer"]),
        .library(name: "MDMConfClient", targets: ["MDMConfClient"]),
        .library(name: "WebhookEvents", targets: ["WebhookEvents"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.4.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.10.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // SQLite as Debian ships it (the SQLite driver drives its C API on a thread of its own).
        .systemLibrary(
            name: "CSQLite3",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CLibIDN2",
            pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"]), .brew(["libidn2"])]
        ),
        .target(name: "MDMDiagnostics"),
        .target(name: "CivilTime"),
        .target(name: "PropertyList", dependencies: ["CLibXML2", "CivilTime", "MDMDiagnostics"]),
        .target(
            name: "ConfigSchema",
            dependencies: ["MDMDiagnostics", "PropertyList", .product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "UpdatePolicy",
            dependencies: [
                "CivilTime", "MDMDiagnostics", "PropertyList", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "DevicePolicy", dependencies: ["CivilTime", "CLibIDN2", "MDMDiagnostics", "PropertyList"]),
        // Events sent out: their types, endpoints, CloudEvents envelope, Standard Webhooks signature and retry
        // schedule; no HTTP and no store.
        .target(
            name: "WebhookEvents",
            dependencies: ["CivilTime", "MDMDiagnostics", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "MDMConf",
            dependencies: [
                "MDMDiagnostics", "PropertyList", "ConfigSchema", "UpdatePolicy", "DevicePolicy", "CivilTime",
                "WebhookEvents", .product(name: "Crypto", package: "swift-crypto"),
                // Signed configuration profiles: CMS SignedData read and verified.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The app side: no server, store or device-policy module (libidn2 is not on iOS). The core knows no HTTP
        // stack; MDMConfClient adds URLSession (FoundationNetworking on Linux), which the mdmconf binary does not
        // link: its fleet simulator talks through AsyncHTTPClient.
        .target(name: "MDMConfClientCore", dependencies: ["ConfigSchema", "MDMDiagnostics", "PropertyList", "UpdatePolicy"]),
        .target(name: "MDMConfClient", dependencies: ["MDMConfClientCore"]),
        .target(
            name: "FleetSimulation",
            dependencies: [
                "MDMConfClientCore", "MDMConf", "MDMDiagnostics", "PropertyList", "UpdatePolicy", "CivilTime",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "Fleet",
            dependencies: [
                "MDMConf", "MDMDiagnostics", "PropertyList", "UpdatePolicy", "DevicePolicy", "CivilTime", "WebhookEvents",
            ]
        ),
        // The SQL both drivers run: migrations, statements, the PostgreSQL procedures and the rows read back.
        .target(name: "FleetStoreSQL", dependencies: ["Fleet", "CivilTime", "MDMDiagnostics", "PropertyList"]),
        .target(
            name: "FleetStoreSQLite",
            dependencies: [
                "Fleet", "FleetStoreSQL", "CivilTime", "CSQLite3", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "FleetStorePostgres",
            dependencies: [
                "Fleet", "FleetStoreSQL", "CivilTime", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "FleetStores",
            dependencies: [
                "Fleet", "FleetStoreSQLite", "FleetStorePostgres", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The admin page's HTML: pages from the library's answers, rendered with Mustache; no HTTP.
        .target(
            name: "AdminUI",
            dependencies: [
                "Fleet", "MDMConf", "MDMDiagnostics", "PropertyList", "ConfigSchema", "UpdatePolicy", "DevicePolicy",
                "CivilTime", "WebhookEvents", .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        .target(
            name: "MDMConfServer",
            dependencies: [
                "AdminUI", "Fleet", "MDMConf", "MDMDiagnostics", "PropertyList", "ConfigSchema", "UpdatePolicy", "DevicePolicy",
                "CivilTime", "WebhookEvents",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The OpenAPI document, embedded in the binary (the server needs no resource bundle beside it).
            resources: [.embedInCode("OpenAPI/openapi.json")]
        ),
        // What both executables share: console output, exit codes, report and reader options, and what
        // `mdmconf --help` says of the server's commands.
        .target(
            name: "MDMConfCommandSupport",
            dependencies: [
                "MDMDiagnostics", "PropertyList", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `mdmconf`: the file commands, in a binary without the server, SwiftNIO, the store drivers or TLS; it hands
        // serve and the fleet commands to `mdmconf-server` beside it.
        .executableTarget(
            name: "MDMConfCLI",
            dependencies: [
                "ConfigSchema", "UpdatePolicy", "DevicePolicy", "MDMConf", "MDMConfCommandSupport", "MDMDiagnostics", "CivilTime",
                "PropertyList", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `mdmconf-server`: serve, report, simulate, diff, publish, history, rollback (position-independent).
        .executableTarget(
            name: "MDMConfServerCLI",
            dependencies: [
                "ConfigSchema", "UpdatePolicy", "Fleet", "FleetSimulation", "FleetStores", "MDMConf",
                "MDMConfCommandSupport", "MDMConfServer", "MDMDiagnostics", "PropertyList", "CivilTime",
                "MDMConfClientCore", "WebhookEvents",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "field-app-launch", dependencies: ["MDMConfClient", "PropertyList"], path: "Examples/client",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "webhook-receiver",
            dependencies: [
                "WebhookEvents", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Examples/webhook-receiver", exclude: ["README.md"]
        ),
        .executableTarget(
            name: "update-decisions-benchmark",
            dependencies: ["UpdatePolicy", "CivilTime", "MDMDiagnostics", "PropertyList"],
            path: "Tests/Benchmarks/UpdateDecisions"
        ),
        .executableTarget(
            name: "policy-decisions-benchmark", dependencies: ["DevicePolicy", "CivilTime"],
            path: "Tests/Benchmarks/PolicyDecisions"
        ),
        .executableTarget(
            name: "mdmconf-fuzz",
            dependencies: [
                "PropertyList", "ConfigSchema", "UpdatePolicy", "DevicePolicy", "CivilTime", "MDMConf", "MDMConfServer",
            ],
            path: "Tests/Fuzz", exclude: ["run.sh", "Regressions"]
        ),
        .testTarget(name: "MDMDiagnosticsTests", dependencies: ["MDMDiagnostics"]),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["PropertyList", "MDMDiagnostics", "TestScratch"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "UpdatePolicyTests", dependencies: ["UpdatePolicy", "CivilTime", "MDMDiagnostics", "PropertyList"]),
        .testTarget(name: "DevicePolicyTests", dependencies: ["DevicePolicy", "CivilTime"]),
        .testTarget(name: "WebhookEventsTests", dependencies: ["WebhookEvents", "CivilTime", "MDMDiagnostics"]),
        .testTarget(
            name: "ConfigSchemaTests", dependencies: ["ConfigSchema", "PropertyList", "MDMDiagnostics", "TestScratch"],
            // Fixtures are read from the source tree by path, not bundled.
            exclude: ["AndroidFixtures", "AppleFixtures"]),
        .testTarget(
            name: "MDMConfTests",
            dependencies: [
                "MDMConf", "ConfigSchema", "UpdatePolicy", "CivilTime", "PropertyList", "MDMDiagnostics", "TestScratch",
                .product(name: "X509", package: "swift-certificates"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["AndroidFixtures", "DeclarationFixtures", "ProfileFixtures", "RestrictionFixtures"]
        ),
        // Where tests write temporary files: one folder per test process, removed when it exits.
        .target(name: "TestScratch", path: "Tests/TestScratch"),
        .target(
            name: "FleetTestSupport",
            dependencies: [
                "Fleet", "FleetStores", "FleetStoreSQLite", "FleetStorePostgres", "MDMConf", "CivilTime", "TestScratch",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/FleetTestSupport"
        ),
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "FleetTestSupport", "Fleet", "FleetStoreSQL", "FleetStores", "FleetStoreSQLite", "FleetStorePostgres", "MDMConf",
                "UpdatePolicy", "CivilTime",
                "PropertyList", "CSQLite3", "WebhookEvents", "TestScratch",
            ]
        ),
        .testTarget(
            name: "MDMConfServerTests",
            dependencies: [
                "AdminUI", "MDMConfServer", "MDMConf", "Fleet", "FleetStoreSQLite", "FleetTestSupport", "WebhookEvents", "TestScratch",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ]
        ),
        .testTarget(
            name: "MDMConfCLITests",
            dependencies: [
                "MDMConfCLI", "MDMConfServerCLI", "MDMConfCommandSupport", "MDMConfServer", "field-app-launch", "mdmconf-fuzz",
                "webhook-receiver", "WebhookEvents", "MDMConfClient", "MDMConfClientCore", "PropertyList", "CivilTime", "Fleet",
                "FleetStoreSQL", "FleetTestSupport", "MDMConf", "TestScratch", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["CodegenFixtures"]
        ),
    ]
)
