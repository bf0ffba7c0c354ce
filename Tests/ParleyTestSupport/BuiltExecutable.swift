import Foundation

/// Finds an executable of this package (parleyd, parley) that SwiftPM built next to the test bundle.
public enum BuiltExecutable {
    /// `overrideVariable` when set (e.g. `PARLEYD_PATH`); otherwise `name` in the build folder that
    /// holds the `.xctest` bundle.
    /// - Throws: ``TestFailure`` naming the folders searched and how to build the executable.
    public static func locate(_ name: String, overrideVariable: String? = nil) throws -> URL {
        let files = FileManager.default
        if let variable = overrideVariable, let override = ProcessInfo.processInfo.environment[variable], !override.isEmpty {
            guard files.isExecutableFile(atPath: override) else { throw TestFailure("\(variable)=\(override) is not an executable file") }
            return URL(fileURLWithPath: override)
        }
        var folders: [URL] = []
        // macOS: the tests are a bundle directory `…/debug/ParleyPackageTests.xctest` loaded by xctest.
        for bundle in Bundle.allBundles + Bundle.allFrameworks where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        // Linux: the tests are an executable file `…/debug/ParleyPackageTests.xctest` itself.
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        if let first = CommandLine.arguments.first, first.hasSuffix(".xctest") {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for folder in folders {
            let candidate = folder.appendingPathComponent(name)
            if files.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TestFailure("""
            \(name) was not found next to the test bundle (looked in: \(Set(folders.map(\.path)).sorted().joined(separator: ", "))). \
            Build it first with `swift build --build-tests` (same --scratch-path as `swift test`)\(overrideVariable.map { ", or set \($0)" } ?? "").
            """)
    }
}
