// swift-tools-version:6.2
import PackageDescription

// Dependency direction (ARCHITECTURE.md): Time → Container → Format → EDL → Editor → Render → Document → CLI.
// Nothing lower imports anything higher.
let package = Package(
    name: "cinepack",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Cinepack", targets: ["Cinepack"]),
        .library(name: "CinepackTime", targets: ["CinepackTime"]),
        .library(name: "CinepackContainer", targets: ["CinepackContainer"]),
        .library(name: "CinepackFormat", targets: ["CinepackFormat"]),
        .library(name: "CinepackEDL", targets: ["CinepackEDL"]),
        .library(name: "CinepackEditor", targets: ["CinepackEditor"]),
        .library(name: "CinepackRender", targets: ["CinepackRender"]),
        .library(name: "CinepackDocument", targets: ["CinepackDocument"]),
        .executable(name: "cinepack", targets: ["cinepack"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // C libraries, each behind its own shim target.
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(
            name: "CLibDeflate", pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]),
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]),
        .systemLibrary(
            name: "COpenEXR", pkgConfig: "OpenEXR",
            providers: [.apt(["libopenexr-dev"]), .brew(["openexr"])]),

        .target(name: "CinepackTime"),
        .target(name: "CinepackCompression", dependencies: ["CZlib", "CLibDeflate"]),
        .target(name: "CinepackContainer", dependencies: ["CinepackTime", "CinepackCompression"]),
        .target(name: "CinepackFormat", dependencies: ["CinepackContainer", "CinepackCompression", "COpenEXR"]),
        .target(name: "CinepackEDL", dependencies: ["CinepackFormat", "CLibXML2"]),
        .target(name: "CinepackEditor", dependencies: ["CinepackEDL"]),
        .target(name: "CinepackRender", dependencies: ["CinepackEditor"]),
        .target(name: "CinepackDocument", dependencies: ["CinepackRender"]),
        .target(
            name: "Cinepack",
            dependencies: [
                "CinepackTime", "CinepackContainer", "CinepackFormat", "CinepackEDL", "CinepackEditor", "CinepackRender",
                "CinepackDocument",
            ]),
        .executableTarget(
            name: "cinepack",
            dependencies: [
                "Cinepack",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .testTarget(name: "CinepackTimeTests", dependencies: ["CinepackTime", "TestSupport"]),
        .testTarget(name: "CinepackCompressionTests", dependencies: ["CinepackCompression"]),
        .testTarget(name: "CinepackCodecTests", dependencies: ["CinepackFormat", "CinepackCompression", "TestSupport"]),
        .testTarget(
            name: "CinepackContainerTests",
            dependencies: ["CinepackContainer", "TestSupport"]),
        .testTarget(name: "CinepackFormatTests", dependencies: ["CinepackFormat", "TestSupport"]),
        .testTarget(name: "CinepackEDLTests", dependencies: ["CinepackEDL", "TestSupport"]),
        .testTarget(name: "CinepackEditorTests", dependencies: ["CinepackEditor", "TestSupport"]),
        .testTarget(name: "CinepackRenderTests", dependencies: ["CinepackRender", "TestSupport"]),
        .testTarget(name: "CinepackDocumentTests", dependencies: ["Cinepack", "TestSupport"]),
        .testTarget(
            name: "CinepackCLITests",
            dependencies: ["Cinepack", "TestSupport"]),
        // Helpers for the tests only (a test target, so release builds of the package never compile it).
        .testTarget(name: "TestSupport", path: "Tests/TestSupport"),
    ]
)

// Zero warnings in the project's own code: any warning fails the build (dependencies are not affected).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
