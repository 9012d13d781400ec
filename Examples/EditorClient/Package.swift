// swift-tools-version:6.0
import PackageDescription

// An editing tool's view of cinepack: only the public API of the library, by path.
let package = Package(
    name: "EditorClient",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "cinepack", path: "../..")],
    targets: [
        .executableTarget(name: "editor-client", dependencies: [.product(name: "Cinepack", package: "cinepack")])
    ]
)
