#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora, Fuzz/Corpus/<target>/, from the repository's golden
# fixtures and test tables, plus a few hand-made seeds for what those do not show. The output is
# committed; run this again when a fixture or table changes. Deterministic: the same sources give
# the same files (named by what they hold, so a diff reads well). Needs python3.
#
#   Fuzz/make-corpus.sh
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - <<'PYTHON'
import json, os, re, shutil

ROOT = "Fuzz/Corpus"
CLIENT_TYPES = {"subscribe", "unsubscribe", "send", "typing", "read", "ping"}

def reset(target):
    path = os.path.join(ROOT, target)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path

def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:60] or "seed"
    with open(os.path.join(ROOT, target, name) if target else os.path.join(ROOT, name), "wb") as file:
        file.write(data)

def swift_string(literal):
    """The value of a Swift string literal's body (no raw strings, no interpolation)."""
    literal = re.sub(r"\\u\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), literal)
    return re.sub(r'\\(["\\ntr0])', lambda m: {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(m.group(1), m.group(1)), literal)

def protocol_examples():
    """Every JSON document of docs/protocol.md's json blocks: a block as a whole, or its lines."""
    examples, block = [], None
    for line in open("docs/protocol.md", encoding="utf-8").read().split("\n"):
        if block is None:
            if line == "```json":
                block = []
        elif line == "```":
            whole = "\n".join(block)
            try:
                json.loads(whole)
                examples.append(whole)
            except ValueError:
                examples += [item for item in block if item]
            block = None
        else:
            block.append(line)
    parsed = []
    for text in examples:
        try:
            parsed.append((text, json.loads(text)))
        except ValueError:
            pass
    return parsed

examples = protocol_examples()

# client-frame: the golden client frame fixtures, the protocol's client frames, and edges.
reset("client-frame")
fixtures = "Tests/ParleyCoreTests/Fixtures"
for name in sorted(os.listdir(fixtures)):
    if name.startswith("client-"):
        write("client-frame", "fixture-" + name, open(os.path.join(fixtures, name), "rb").read())
seen = set()
for text, value in examples:
    if isinstance(value, dict) and value.get("type") in CLIENT_TYPES and text not in seen:
        seen.add(text)
        write("client-frame", "protocol-%s-%d" % (value["type"], len(seen)), text)
cnv = "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q"
for name, text in [
    ("send-escapes", '{"type":"send","ref":"7","conversation_id":"%s","client_message_id":"m\\u00e9","text":"a\\"b\\\\c\\/d\\n\\t\\u0000\\ud83d\\ude00"}' % cnv),
    ("send-spaced-null-ref", ' { "type" : "send" , "ref" : null , "conversation_id" : "%s" , "client_message_id" : "1" , "text" : "Hi" } ' % cnv),
    ("send-unicode", '{"type":"send","conversation_id":"%s","client_message_id":"ü","text":"Grüße 👋🏽 ٤١١١"}' % cnv),
    ("send-duplicate-key", '{"type":"send","type":"ping","conversation_id":"%s","client_message_id":"1","text":"x"}' % cnv),
    ("send-ref-bool", '{"type":"send","ref":true,"conversation_id":"%s","client_message_id":"1","text":"x"}' % cnv),
    ("send-bad-id", '{"type":"send","conversation_id":"cnv_0","client_message_id":"1","text":"x"}'),
    ("subscribe-epoch", '{"type":"subscribe","conversation_id":"%s","after_seq":9223372036854775807,"epoch":"e1"}' % cnv),
    ("read-negative", '{"type":"read","ref":"2","conversation_id":"%s","seq":-1}' % cnv),
    ("unknown-type", '{"type":"shout"}'),
    ("not-object", '["send"]'),
]:
    write("client-frame", "edge-" + name, text)

# form-rules: the protocol's form definition with answers (JSON), and structured seeds (FormInput).
reset("form-rules")
for text, value in examples:
    if isinstance(value, dict) and "fields" in value and "kind" in value:
        form = value
        for name, answers in [
            ("valid", {"email": " Ann@Example.COM ", "topic": "billing", "phone": "030 1234567"}),
            ("invalid", {"email": "ann@", "topic": "sales", "phone": "+49 (0)30 12", "extra": 1}),
            ("types", {"email": 5, "topic": True, "phone": "0049 (0)30 1234567"}),
        ]:
            write("form-rules", "json-%s-%s" % (form["kind"], name), json.dumps({"form": form, "answers": answers}, ensure_ascii=False))
table = open("Tests/ParleyTestSupport/FieldValidationCases.swift", encoding="utf-8").read()
kinds = ["single_line", "email", "phone", "multi_line", "select", "radio", "checkbox", "rating"]
def field(kind, required=False, code=None, options=(), answer=None):
    """One field of FormInput's layout: kind byte, [calling code NUL], [options], answer."""
    flags = kinds.index(kind) | (0x08 if required else 0) | (0x20 if code is not None else 0)
    data = bytes([flags])
    if code is not None:
        data += code.encode() + b"\0"
    if kind in ("select", "radio"):
        data += bytes([len(options)]) + b"".join(o.encode() + b"\0" for o in options)
    if answer is None:
        data += b"\0"
    elif isinstance(answer, bool):
        data += bytes([2, 1 if answer else 0])
    elif isinstance(answer, int):
        data += bytes([3, 7]) + answer.to_bytes(8, "little", signed=True)
    else:
        data += b"\1" + answer.encode() + b"\0"
    return data
# Text answers of the shared table, one seed per field kind: each answer against that kind.
answers = {}
for kind_name, literal in re.findall(r'\.init\("[^"]*", (\w+), \.text\("((?:[^"\\]|\\.)*)"\)', table):
    answers.setdefault(re.sub(r"Required|Germany|US|Italy", "", kind_name), []).append(swift_string(literal))
case_kind = {"singleLine": "single_line", "multiLine": "multi_line", "email": "email", "phone": "phone", "select": "select",
             "radio": "radio", "checkbox": "checkbox", "rating": "rating"}
for swift_kind, texts in sorted(answers.items()):
    kind = case_kind.get(swift_kind)
    if not kind:
        continue
    for start in range(0, len(texts), 5):
        chunk = texts[start:start + 5]
        header = bytes([(len(chunk) - 1) << 2])
        body = b"".join(field(kind, required=index % 2 == 0, code="49" if kind == "phone" else None,
                              options=("billing", "tech"), answer=text) for index, text in enumerate(chunk))
        write("form-rules", "table-%s-%d" % (kind, start // 5), header + body)
write("form-rules", "mixed-all-kinds", bytes([5 << 2 | 1]) + field("email", True, answer="Ann@Example.COM")
      + field("phone", code="39", answer="06 1234 5678") + field("rating", answer=5) + field("checkbox", True, answer=True)
      + field("radio", options=("a", "b"), answer="b ") + field("multi_line", answer="line one\r\nline two\u2028three"))
write("form-rules", "unknown-keys", bytes([0]) + field("single_line", answer="hello") + b"extra\0value\0f9\0x\0")

# timestamp: what Parley writes, what it reads, and edges of the calendar.
reset("timestamp")
stamps = set()
for name in sorted(os.listdir(fixtures)):
    stamps.update(re.findall(r'"(\d{4}-\d\d-\d\dT[0-9:.]+Z)"', open(os.path.join(fixtures, name), encoding="utf-8").read()))
stamps = sorted(stamps)[:6] + [
    "2026-11-21T19:40:55.125Z", "2026-11-21T19:40:55Z", "2026-11-21T20:40:55.125+01:00", "1970-01-01T00:00:00.000Z",
    "1600-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "2024-02-29T12:00:00.5Z", "2024-02-29T00:00:00.000Z",
    "2026-11-21T19:40:55.1234567Z", "2026-11-21T19:40:55-05:30", "1969-12-31T23:59:59.999Z", "2026-13-01T00:00:00Z",
]
for index, stamp in enumerate(stamps):
    write("timestamp", "%02d-%s" % (index, stamp), stamp)

# masking: every input of the shared masking table, with all built-ins on (flags byte 0).
reset("masking")
cases = open("Tests/ParleyTestSupport/MaskingCases.swift", encoding="utf-8").read()
for name, literal in re.findall(r'\.init\("((?:[^"\\]|\\.)*)",\s*"((?:[^"\\]|\\.)*)"', cases):
    write("masking", "table-" + name, b"\0" + swift_string(literal).encode())

# masking-rules: the test suites' accepted and refused patterns (flags byte 0: a fixed replacement),
# and the table's custom rules with their own replacements (flags byte 1).
reset("masking-rules")
suite = open("Tests/ParleyCoreTests/MaskingRulesTests.swift", encoding="utf-8").read()
patterns = re.findall(r'#"((?:[^"]|"(?!#))*)"#', suite) + ["x{2}y", "(", "[a-", "(a+)+b", "(a|ab)*c", "a*", "removed", "(?<x>a)"]
for index, pattern in enumerate(dict.fromkeys(patterns)):
    write("masking-rules", "pattern-%02d" % index, b"\0" + pattern.encode() + b"\0\0" + b"ORD-123456 secret: hunter2 4111 1111 1111 1111")
for index, (pattern, replacement) in enumerate(re.findall(r'pattern: #"((?:[^"]|"(?!#))*)"#, replacement: "([^"]*)"', cases)):
    write("masking-rules", "table-rule-%d" % index, b"\1" + pattern.encode() + b"\0" + replacement.encode() + b"\0" + b"ORD-123456 1234 567")

# file-type: each type's magic bytes, with a name and a declared type (FileTypeFuzzer's lists).
reset("file-type")
heads = {
    "png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "jpeg": b"\xff\xd8\xff\xe0\0\x10JFIF", "gif": b"GIF89a\x01\0\x01\0",
    "webp": b"RIFF\x24\0\0\0WEBPVP8 ", "pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", "zip": b"PK\x03\x04\x14\0\0\0",
    "ogg": b"OggS\0\x02\0\0", "mp3": b"ID3\x04\0\0\0\0\0\0", "mp3-frame": b"\xff\xfb\x90\x64",
    "mp4": b"\0\0\0\x18ftypisom\0\0\0\0", "mov": b"\0\0\0\x14ftypqt  \0\0\0\0", "m4a": b"\0\0\0\x1cftypM4A \0\0\0\0",
    "heic": b"\0\0\0\x18ftypheic\0\0\0\0", "exe": b"MZ\x90\0\x03\0", "elf": b"\x7fELF\x02\x01\x01",
    "macho": b"\xcf\xfa\xed\xfe\x07\0\0\x01", "gzip": b"\x1f\x8b\x08\0", "7z": b"7z\xbc\xaf\x27\x1c\0\x04",
    "rar": b"Rar!\x1a\x07\x01\0", "svg": b"\xef\xbb\xbf  <svg xmlns='http://www.w3.org/2000/svg'/>",
    "xml-svg": b"<?xml version='1.0'?>\n<svg/>", "html": b"\n<!DOCTYPE html><html>", "script": b"<SCRIPT>alert(1)</script>",
    "text": "Grüße, name;amount\n1;2\n".encode(), "text-cut": "abc €".encode()[:-1], "binary": b"\0\x01\x02\x03",
}
names = {"png": 1, "jpeg": 2, "gif": 4, "webp": 5, "pdf": 8, "zip": 13, "ogg": 19, "mp3": 17, "mp4": 21, "mov": 23,
         "m4a": 18, "heic": 6, "exe": 24, "text": 9, "html": 26, "svg": 28}
for index, (kind, head) in enumerate(heads.items()):
    write("file-type", "magic-" + kind, bytes([names.get(kind, 0), index % 32]) + head)
write("file-type", "zip-named-docx-declared-docx", bytes([14, 19]) + heads["zip"])
write("file-type", "text-named-csv-declared-csv", bytes([12, 16]) + heads["text"])

# tokens (pending, Pending/tokens/README.md): a token as text, claims to sign and tamper with, a JWT header.
ROOT = "Fuzz/Pending/tokens"
reset("Corpus")
ROOT = "Fuzz/Pending/tokens/Corpus"
jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIn0.not-a-valid-signature"
write("", "text-jwt", b"\0" + jwt.encode())
write("", "text-visitor-token-shape", b"\0pv1.eyJhcHAiOiJhcHBfMSJ9.c2lnbmF0dXJl")
write("", "claims-verified-visitor", b"\1app_01M7ZT0GEN5R8K2W6Y9C3F7H1Q\0vis_01M7ZT0GEN5R8K2W6Y9C3F7H1Q\0\1Ann \xc3\xa9\0"
      + (1795290055).to_bytes(8, "little") + b"\x05\0\x21")
write("", "header-rs256-kid", b"\2RS256\0\1key-2026\0")
PYTHON

count=$(find Fuzz/Corpus Fuzz/Pending/tokens/Corpus -type f | wc -l)
size=$(find Fuzz/Corpus Fuzz/Pending/tokens/Corpus -type f -exec cat {} + | wc -c)
echo "seed corpora: $count files, $size bytes"
