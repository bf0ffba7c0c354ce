import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// The shared field validation table as JSON, for the chat page's own port of the rules
/// (`Sources/ParleyServer/Chat/js/form-rules.js`): Tests/Chat runs every row through the page in
/// Chromium. This test keeps the file equal to the table; `PARLEY_UPDATE_FIXTURES=1` rewrites it.
struct FieldValidationTableExportTests {
    /// `Tests/Chat/fixtures/field-validation-cases.json`, found from this source file.
    static let fileURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Chat/fixtures/field-validation-cases.json")

    struct Row: Encodable {
        var name: String
        var field: FormField
        /// The answer as sent; absent when the key is missing.
        var input: FormValue?
        /// `{"value": …}`, `{"no_answer": true}` or `{"error": "code"}`.
        var expected: [String: FormValue]
    }

    static func exported() throws -> Data {
        let rows = FieldValidationCases.all.map { row -> Row in
            let expected: [String: FormValue] = switch row.expected {
            case .value(let value): ["value": value]
            case .noAnswer: ["no_answer": .bool(true)]
            case .error(let code): ["error": .text(code.rawValue)]
            }
            return Row(name: row.description, field: row.field, input: row.input, expected: expected)
        }
        let encoder = ParleyJSON.makeEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        return try encoder.encode(rows) + Data("\n".utf8)
    }

    @Test func theJSONFileIsTheSharedTable() throws {
        let data = try Self.exported()
        if ProcessInfo.processInfo.environment["PARLEY_UPDATE_FIXTURES"] == "1" {
            try data.write(to: Self.fileURL)
        }
        let stored = try Data(contentsOf: Self.fileURL)
        #expect(stored == data, "Tests/Chat/fixtures/field-validation-cases.json is stale: run with PARLEY_UPDATE_FIXTURES=1")
    }
}
