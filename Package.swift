// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "mdmconf",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mdmconf", targets: ["MDMConfCLI"]),
        .library(name: "MDMDiagnostics", targets: ["MDMDiagnostics"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "ConfigSchema", targets: ["ConfigSchema"]),
        .library(name: "UpdatePolicy", targets: ["UpdatePolicy"]),
        .library(name: "MDMConf", targets: ["MDMConf"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .target(name: "MDMDiagnostics"),
        .target(name: "PropertyList", dependencies: ["CLibXML2", "MDMDiagnostics"]),
        .target(name: "ConfigSchema", dependencies: ["MDMDiagnostics", "PropertyList"]),
        .target(
            name: "UpdatePolicy",
            dependencies: ["MDMDiagnostics", "PropertyList", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(name: "MDMConf", dependencies: ["MDMDiagnostics", "PropertyList", "ConfigSchema", "UpdatePolicy"]),
        .executableTarget(
            name: "MDMConfCLI",
            dependencies: [
                "ConfigSchema",
                "UpdatePolicy",
                "MDMConf",
                "MDMDiagnostics",
                "PropertyList",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "update-decisions-benchmark", dependencies: ["UpdatePolicy"], path: "Tests/Benchmarks/UpdateDecisions"
        ),
        .testTarget(name: "MDMDiagnosticsTests", dependencies: ["MDMDiagnostics"]),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["PropertyList", "MDMDiagnostics"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "UpdatePolicyTests", dependencies: ["UpdatePolicy"]),
        .testTarget(name: "ConfigSchemaTests", dependencies: ["ConfigSchema", "PropertyList", "MDMDiagnostics"]),
        .testTarget(
            name: "MDMConfTests", dependencies: ["MDMConf", "ConfigSchema", "UpdatePolicy", "PropertyList", "MDMDiagnostics"]
        ),
        .testTarget(
            name: "MDMConfCLITests",
            dependencies: ["MDMConfCLI", "PropertyList", "UpdatePolicy"]
        ),
    ]
)
