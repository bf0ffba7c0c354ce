import Foundation
import ParleyCore
import Testing

@Test(.enabled(if: ProcessInfo.processInfo.environment["PARLEY_WRITE_FIXTURES"] == "1"))
func writeFixtures() throws {
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    for fixture in Fixtures.all {
        try GoldenFixture.encode(fixture.value).write(to: dir.appendingPathComponent(fixture.name + ".json"))
    }
}
