#!/usr/bin/env bash
# Builds ParleyKit's DocC catalog with warnings as errors, so a broken symbol link or an
# undocumented parameter fails CI. Uses its own build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
swift build --target ParleyKit --scratch-path .build-docs \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
# Only our own modules' symbols: dependencies' graphs (swift-crypto's doc comments link to Apple's
# documentation, which docc cannot resolve here) are not ours to fix.
find "$graphs" -name '*.symbols.json' ! -name 'ParleyKit*' ! -name 'ParleyCore*' -delete
docc convert Sources/ParleyKit/ParleyKit.docc --additional-symbol-graph-dir "$graphs" \
    --output-path "$graphs/ParleyKit.doccarchive" --fallback-display-name ParleyKit \
    --fallback-bundle-identifier org.parley.ParleyKit --warnings-as-errors
echo "docs: ParleyKit's catalog builds without warnings"
