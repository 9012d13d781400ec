// swift-tools-version:5.4
import PackageDescription

// Tools version 5.4: newer ones rename an executable's entry point, which libFuzzer's own main cannot use.
// libFuzzer targets, kept out of the main package because they need special flags:
//   swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// See the README's "Fuzzing" section.
let package = Package(
    name: "FuzzTesting",
    dependencies: [.package(name: "cinepack", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzBoxReader",
            dependencies: [.product(name: "CinepackContainer", package: "cinepack")]),
        .executableTarget(
            name: "FuzzMetadataDecoder",
            dependencies: [.product(name: "CinepackFormat", package: "cinepack")]),
        .executableTarget(
            name: "FuzzEDLReader",
            dependencies: [.product(name: "CinepackEDL", package: "cinepack")]),
    ]
)
