// swift-tools-version: 6.2
import PackageDescription

/// `IMAGO_SANITIZE=thread` or `=address` compiles and links our own targets (not the dependencies)
/// with that sanitizer: CI's sanitizer stages build in the ordinary `.build` and so reuse the
/// dependencies the debug build compiled (.ci/run, README "Development"). Unset everywhere else.
let sanitizer = Context.environment["IMAGO_SANITIZE"].flatMap { ["thread", "address"].contains($0) ? $0 : nil }

/// Our own targets: Swift 6 language mode (the tools-version default), no warnings, and the
/// sanitizer when one is asked for.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)] + (sanitizer.map { [.unsafeFlags(["-sanitize=\($0)"])] } ?? [])
let strictC: [CSetting] = [.treatAllWarnings(as: .error)] + (sanitizer.map { [.unsafeFlags(["-fsanitize=\($0)"])] } ?? [])
/// Every product links Imago, so its linker settings bring in the sanitizer's runtime.
let sanitizerLinking: [LinkerSetting] = sanitizer.map { [.unsafeFlags(["-sanitize=\($0)"])] } ?? []

/// The benchmark and test tools, which no sanitized test runs (the counts check needs malloc of its
/// own, the crash-safety test is an integration suite, `imago-test-server` serves the examples):
/// left out of sanitizer builds, which then compile and link less of ours (.ci/run's tsan and asan).
let toolProducts: [Product] = sanitizer != nil ? [] : [
    .executable(name: "imago-bench", targets: ["ImagoBenchmarks"]),
    .executable(name: "imago-cache-stress", targets: ["ImagoCacheStress"]),
    .executable(name: "imago-test-server", targets: ["ImagoTestServer"]),
]
let toolTargets: [Target] = sanitizer != nil ? [] : [
    // `swift run -c release imago-bench`: each figure beside its baseline, same run (Benchmarks/README.md).
    .executableTarget(
        name: "ImagoBenchmarks",
        dependencies: ["Imago", "ImagoTestSupport", "CImagoAllocationCounter"],
        swiftSettings: strict
    ),
    // The heap-allocation counter of `imago-bench --counts`: malloc and its kin defined in the
    // executable, forwarding to glibc's.
    .target(name: "CImagoAllocationCounter", cSettings: [.treatAllWarnings(as: .error)]),
    // `imago-test-server`: the loopback TestServer with sample images, for examples (README, Examples/).
    .executableTarget(name: "ImagoTestServer", dependencies: ["ImagoTestSupport"], swiftSettings: strict),
    // `imago-cache-stress`: killed mid-write by the crash-safety tests (Tests/ImagoTests/CrashSafety).
    .executableTarget(name: "ImagoCacheStress", dependencies: ["Imago", "ImagoTestSupport"], swiftSettings: strict),
]

/// The `imago` command and its demo, which no sanitized test starts: the tests that run `imago`
/// as a child process (the CLI, `serve`, `sign` and demo suites, the server's memory and descriptor
/// bounds) are integration suites or measure the child's own memory and descriptors, which the
/// sanitizers' runtimes distort, and run in the plain test stage. Left out of sanitizer builds,
/// which then compile and link less of ours (.ci/run's tsan and asan).
let cliProducts: [Product] = sanitizer != nil ? [] : [.executable(name: "imago", targets: ["ImagoCLI"])]
let cliTargets: [Target] = sanitizer != nil ? [] : [
    // `imago demo` and `imago serve --demo`: the gallery, its loopback origin and the contact
    // sheet, apart from the test support, which the shipped `imago` does not link.
    .target(
        name: "ImagoDemo",
        dependencies: [
            "Imago", "ImagoSamples",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(platforms: [.linux, .macOS])),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(platforms: [.linux, .macOS])),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(platforms: [.linux, .macOS])),
            .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux, .macOS])),
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: strict
    ),
    .executableTarget(
        name: "ImagoCLI",
        dependencies: [
            "Imago",
            .target(name: "ImagoServer", condition: .when(platforms: [.linux])),
            "ImagoDemo",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: strict
    ),
]

let package = Package(
    name: "Imago",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .visionOS(.v2), .watchOS(.v11)],
    products: [
        .library(name: "Imago", targets: ["Imago"]),
        .library(name: "ImagoTestSupport", targets: ["ImagoTestSupport"]),
        .library(name: "ImagoUI", targets: ["ImagoUI"]),
        .library(name: "ImagoServer", targets: ["ImagoServer"]),
    ] + cliProducts + toolProducts,
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // `swift package generate-documentation --target Imago` (README, "Documentation").
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The image proxy (ImagoServer, `imago serve`): server-side only, never in the core or on iOS.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // Hummingbird's own dependency, named for the HTTP parts its channel handlers see (NIOHTTPTypes).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Already resolved for AsyncHTTPClient; named for ImagoServer's TLS settings and its tests' TLS origin.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.0.0"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "Imago",
            dependencies: [
                "CZlib",
                .target(name: "CImagoCodecs", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client",
                    condition: .when(platforms: [.linux])),
                // HTTPClientDataLoader names NIO's types (deadlines, headers, connection errors).
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict,
            linkerSettings: sanitizerLinking
        ),
        .target(
            name: "ImagoTestSupport",
            // The loopback TestServer runs where test suites run (Linux, macOS); on iOS, tvOS,
            // watchOS and visionOS the target offers the fixtures and the manual clock only.
            dependencies: [
                "Imago", "ImagoSamples",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux, .macOS])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux, .macOS])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux, .macOS])),
            ],
            swiftSettings: strict
        ),
        // Generated sample pictures (deterministic, encoded by Imago's own encoders): what the demo
        // shows and what tests and benchmarks load. Imago alone, on every platform.
        .target(name: "ImagoSamples", dependencies: ["Imago"], swiftSettings: strict),
        // The loader model (all platforms) and the SwiftUI, UIKit and AppKit front ends (Apple only).
        .target(name: "ImagoUI", dependencies: ["Imago"], swiftSettings: strict),
        // The image proxy behind `imago serve`: URL grammar, signing, source policy, routes. Linux
        // only: it loads sources through Imago's AsyncHTTPClient transfer, which is Linux-only (the
        // Apple build of Imago stays on URLSession); on other platforms the module is empty and
        // `imago` has no `serve` or `sign`. The core never imports it.
        .target(
            name: "ImagoServer",
            dependencies: [
                "Imago",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(platforms: [.linux])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(platforms: [.linux])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(platforms: [.linux])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(platforms: [.linux])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(platforms: [.linux])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict
        ),
        // libjpeg-turbo, libpng, libwebp (with libwebpdemux and libwebpmux), libheif, libavif, libjxl and Little CMS shims for the Linux codecs and
        // colour management (Debian: libjpeg62-turbo-dev, libpng-dev, libwebp-dev, libheif-dev,
        // libavif-dev, libjxl-dev, liblcms2-dev). Apple builds never see this target: they decode with ImageIO.
        .target(
            name: "CImagoCodecs",
            cSettings: strictC,
            linkerSettings: [
                .linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("webpmux"),
                .linkedLibrary("heif"), .linkedLibrary("avif"), .linkedLibrary("jxl"), .linkedLibrary("isal"), .linkedLibrary("lcms2"),
            ]
        ),
        .testTarget(
            name: "ImagoTests",
            dependencies: [
                "Imago", "ImagoTestSupport",
                // Only for the replay of Fuzz/processing-url (the proxy's URL grammar).
                .target(name: "ImagoServer", condition: .when(platforms: [.linux])), .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            // Decoder fixtures and their reference decodings, read through Bundle.module.
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ImagoServerTests",
            dependencies: [
                "ImagoServer", "Imago", "ImagoTestSupport",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(platforms: [.linux])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["S3/moto-setup.py"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ImagoUITests",
            dependencies: ["ImagoUI", "Imago", "ImagoTestSupport"],
            swiftSettings: strict
        ),
    ] + cliTargets + toolTargets
)
