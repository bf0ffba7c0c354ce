#!/usr/bin/env bash
# Builds ParleyKit's DocC catalog with warnings as errors, so a broken symbol link or an
# undocumented parameter fails CI. Uses its own build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
swift build --target ParleyKit --scratch-path .build-docs \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
# The dependencies' graphs come too; swift-crypto's docs link to Apple's CryptoKit pages, which do
# not resolve here, so its graphs are left out (ParleyKit's own links to its types still resolve).
rm -f "$graphs"/Crypto*.symbols.json
docc convert Sources/ParleyKit/ParleyKit.docc --additional-symbol-graph-dir "$graphs" \
    --output-path "$graphs/ParleyKit.doccarchive" --fallback-display-name ParleyKit \
    --fallback-bundle-identifier org.parley.ParleyKit --warnings-as-errors
echo "docs: ParleyKit's catalog builds without warnings"
