// swift-tools-version: 6.2
// A command-line program that uses Imago as any package would: by path, from this repository.
// In your own package, depend on Imago by version instead (README, "Installation").
import PackageDescription

let package = Package(
    name: "ImagoExample",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A path dependency's identity is its folder's name, which depends on where this
        // repository was cloned; `name:` gives the `package:` below a name that does not.
        .package(name: "imago", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "ImagoExample",
            dependencies: [.product(name: "Imago", package: "imago")]
        ),
    ]
)
