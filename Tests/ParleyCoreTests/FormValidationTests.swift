import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

@Suite("Form validation")
struct FormValidationTests {
    @Test func sharedTable_coversEveryKind_validAndInvalid() {
        let cases = FieldValidationCases.all
        #expect(cases.count >= 60)
        for kind in FormField.Kind.allCases {
            let ofKind = cases.filter { $0.field.kind == kind }
            #expect(ofKind.contains { if case .error = $0.expected { false } else { true } }, "no valid case for \(kind)")
            #expect(ofKind.contains { if case .error = $0.expected { true } else { false } }, "no invalid case for \(kind)")
        }
    }

    @Test(arguments: FieldValidationCases.all)
    func field_validate_matchesTheSharedTable(_ row: FieldValidationCase) {
        let outcome: FieldValidationCase.Expected = switch row.field.validate(row.input) {
        case .success(let value?): .value(value)
        case .success(nil): .noAnswer
        case .failure(let code): .error(code)
        }
        #expect(outcome == row.expected)
    }

    @Test(arguments: FieldValidationCases.all)
    func form_validate_agreesWithTheFieldAlone(_ row: FieldValidationCase) {
        let form = Form(kind: .preChat, fields: [row.field])
        var answers = FormAnswers()
        answers[row.field.key] = row.input
        switch (form.validate(answers), row.expected) {
        case (.success(let values), .value(let value)): #expect(values == [row.field.key: value])
        case (.success(let values), .noAnswer): #expect(values.isEmpty)
        case (.failure(let errors), .error(let code)): #expect(errors.fields == [.init(key: row.field.key, code: code)])
        case (let outcome, let expected): Issue.record("got \(outcome), expected \(expected)")
        }
    }

    static let contactForm = Form(kind: .preChat, fields: [
        FormField(key: "name", kind: .singleLine, isRequired: true, label: ["en": "Name"]),
        FormField(key: "email", kind: .email, isRequired: true, label: ["en": "Email"]),
        FormField(key: "phone", kind: .phone, label: ["en": "Phone"], defaultCallingCode: "49"),
        FormField(key: "topic", kind: .radio, label: ["en": "Topic"], options: [.init(value: "billing", label: ["en": "Billing"])]),
        FormField(key: "newsletter", kind: .checkbox, label: ["en": "Newsletter"]),
    ])

    @Test func validate_normalisesEveryAnswer_andLeavesOutUnansweredOptionalOnes() throws {
        let answers: FormAnswers = ["name": .text(" Ann "), "email": .text("Ann@Example.org"), "phone": .text("030 123456")]
        let values = try Self.contactForm.validate(answers).get()
        #expect(values == ["name": .text("Ann"), "email": .text("Ann@example.org"), "phone": .text("+4930123456"), "newsletter": .bool(false)])
    }

    @Test func validate_reportsEveryError_inFieldOrder_thenUnknownKeysSorted() {
        let answers: FormAnswers = ["zeta": .text("x"), "email": .text("nope"), "alpha": .bool(true), "topic": .text("sales")]
        guard case .failure(let errors) = Self.contactForm.validate(answers) else {
            Issue.record("expected errors")
            return
        }
        #expect(errors.fields.map(\.key) == ["name", "email", "topic", "alpha", "zeta"])
        #expect(errors["name"] == .required)
        #expect(errors["email"] == .invalidEmail)
        #expect(errors["topic"] == .notAnOption)
        #expect(errors["alpha"] == .unknownField)
        #expect(errors["phone"] == nil)
        #expect(errors.description == "name: required, email: invalid_email, topic: not_an_option, alpha: unknown_field, zeta: unknown_field")
    }

    @Test func errors_encodeAsStableMachineCodes() throws {
        let errors = FormValidationErrors(fields: [.init(key: "email", code: .invalidEmail), .init(key: "x", code: .unknownField)])
        let json = String(decoding: try ParleyJSON.encode(errors), as: UTF8.self)
        #expect(json == #"{"fields":[{"code":"invalid_email","key":"email"},{"code":"unknown_field","key":"x"}]}"#)
        #expect(try ParleyJSON.decode(FormValidationErrors.self, from: Data(json.utf8)) == errors)
    }

    @Test func answers_decodeStringsBooleansAndWholeNumbers() throws {
        let json = #"{"a": "text", "b": true, "c": 4, "d": false, "e": "4"}"#
        let answers = try ParleyJSON.decode(FormAnswers.self, from: Data(json.utf8))
        #expect(answers == ["a": .text("text"), "b": .bool(true), "c": .integer(4), "d": .bool(false), "e": .text("4")])
        let encoded = try ParleyJSON.encode(answers)
        #expect(try ParleyJSON.decode(FormAnswers.self, from: encoded) == answers)
        #expect(throws: DecodingError.self) { try ParleyJSON.decode(FormAnswers.self, from: Data(#"{"a": 4.5}"#.utf8)) }
        #expect(throws: DecodingError.self) { try ParleyJSON.decode(FormAnswers.self, from: Data(#"{"a": [1]}"#.utf8)) }
    }

    @Test func form_roundTripsThroughJSON_withDefaultsForOmittedKeys() throws {
        let queue = QueueID.generate()
        let json = #"{"kind": "pre_chat", "queue_id": "\#(queue.rawValue)", "fields": [{"key": "name", "kind": "single_line", "label": {"en": "Name"}}, {"key": "tel", "kind": "phone", "required": true, "label": {"en": "Phone"}, "hint": {"de": "Mit Vorwahl"}, "default_calling_code": "49"}]}"#
        let form = try ParleyJSON.decode(Form.self, from: Data(json.utf8))
        #expect(form.queueID == queue)
        #expect(form.fields[0] == FormField(key: "name", kind: .singleLine, label: ["en": "Name"]))
        #expect(form.fields[1].isRequired && form.fields[1].defaultCallingCode == "49")
        #expect(try ParleyJSON.decode(Form.self, from: ParleyJSON.encode(form)) == form)
        #expect(form.field("tel")?.kind == .phone)
    }
}

@Suite("Localized text")
struct LocalizedTextTests {
    static let texts = ["en": "Name", "de": "Name (de)", "pt-BR": "Nome", "zh-Hant": "姓名", "fr-CA": "Nom (CA)", "fr": "Nom"]

    @Test(arguments: [
        (["de"], "Name (de)"),
        (["DE-de"], "Name (de)"),
        (["de-CH-1996"], "Name (de)"),
        (["pt"], "Nome"),
        (["pt-PT"], "Nome"),
        (["zh-Hant-TW"], "姓名"),
        (["fr-CA"], "Nom (CA)"),
        (["fr-BE"], "Nom"),
        (["ja", "de"], "Name (de)"),
        (["ja"], "Name"),
        ([], "Name"),
    ])
    func resolve_followsTheFallbackRule(preferred: [String], expected: String) {
        #expect(LocalizedText.resolve(Self.texts, for: preferred) == expected)
    }

    @Test func resolve_withoutEnglish_takesTheFirstTagAlphabetically_andNilWhenEmpty() {
        #expect(LocalizedText.resolve(["sv": "Namn", "da": "Navn"], for: ["ja"]) == "Navn")
        #expect(LocalizedText.resolve([:], for: ["en"]) == nil)
        let field = FormField(key: "k", kind: .singleLine, label: [:])
        #expect(field.label(for: ["en"]) == "k")
        #expect(field.hint(for: ["en"]) == nil)
    }

    @Test(arguments: [("en", true), ("pt-BR", true), ("zh-Hant-TW", true), ("de-CH-1996", true), ("x", false),
                      ("", false), ("en-", false), ("e1", false), ("en_US", false), ("en-toolongsubtag", false)])
    func wellFormedTags(tag: String, isWellFormed: Bool) {
        #expect(LocalizedText.isWellFormedTag(tag) == isWellFormed)
    }
}

@Suite("Form definitions")
struct FormDefinitionTests {
    static func field(_ key: String, _ kind: FormField.Kind = .singleLine, label: [String: String] = ["en": "Label"],
                      options: [FormField.Option] = [], callingCode: String? = nil) -> FormField {
        FormField(key: key, kind: kind, label: label, options: options, defaultCallingCode: callingCode)
    }

    static func paths(_ form: Form) -> [String] {
        do {
            try form.checkDefinition()
            return []
        } catch {
            #expect(!error.description.isEmpty)
            return error.problems.map(\.path)
        }
    }

    @Test func aGoodForm_passes() throws {
        try FormValidationTests.contactForm.checkDefinition()
        try Form(kind: .postChat, fields: [Self.field("rating", .rating), Self.field("comment", .multiLine)]).checkDefinition()
    }

    @Test func emptyAndOversizedForms_areRefused() {
        #expect(Self.paths(Form(kind: .preChat, fields: [])) == ["fields"])
        let many = (0...Limits.maxFormFields).map { Self.field("f\($0)") }
        #expect(Self.paths(Form(kind: .preChat, fields: many)) == ["fields"])
    }

    @Test func keys_mustBeWellFormedAndUnique() {
        let form = Form(kind: .preChat, fields: [
            Self.field("name"), Self.field("name"), Self.field("Name"), Self.field("1st"), Self.field(""),
            Self.field(String(repeating: "k", count: 65)), Self.field("ok_2"),
        ])
        #expect(Self.paths(form) == ["fields[1].key", "fields[2].key", "fields[3].key", "fields[4].key", "fields[5].key"])
    }

    @Test func labels_needText_wellFormedTags_andBoundedLengths() {
        let form = Form(kind: .preChat, fields: [
            Self.field("a", label: [:]),
            Self.field("b", label: ["en": "  "]),
            Self.field("c", label: ["en_US": "x", "en": "ok"]),
            Self.field("d", label: ["en": String(repeating: "x", count: 201)]),
            FormField(key: "e", kind: .singleLine, label: ["en": "ok"], hint: ["en": String(repeating: "h", count: 501)]),
        ])
        #expect(Self.paths(form) == ["fields[0].label", "fields[1].label", "fields[2].label", "fields[3].label", "fields[4].hint"])
    }

    @Test func optionKinds_needOptions_withUniqueValues_andOtherKindsHaveNone() {
        let option = { (value: String) in FormField.Option(value: value, label: ["en": value]) }
        let form = Form(kind: .preChat, fields: [
            Self.field("a", .select),
            Self.field("b", .radio, options: [option("x"), option("x"), option(" y"), option("")]),
            Self.field("c", .checkbox, options: [option("x")]),
            Self.field("d", .select, options: (0...Limits.maxFormOptions).map { option("o\($0)") }),
            Self.field("e", .radio, options: [FormField.Option(value: "x", label: ["bad tag": "x"])]),
        ])
        #expect(Self.paths(form) == ["fields[0].options", "fields[1].options[1].value", "fields[1].options[2].value",
                                     "fields[1].options[3].value", "fields[2].options", "fields[3].options", "fields[4].options[0].label"])
    }

    @Test func defaultCallingCode_onlyOnPhone_andWellFormed() {
        let form = Form(kind: .preChat, fields: [
            Self.field("a", .phone, callingCode: "49"), Self.field("b", .phone, callingCode: "049"),
            Self.field("c", .phone, callingCode: "1234"), Self.field("d", .email, callingCode: "1"),
            Self.field("e", .phone, callingCode: "4a"),
        ])
        #expect(Self.paths(form) == ["fields[1].default_calling_code", "fields[2].default_calling_code",
                                     "fields[3].default_calling_code", "fields[4].default_calling_code"])
    }
}
