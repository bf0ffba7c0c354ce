#!/usr/bin/env bash
# Builds ParleyKit's DocC catalog with warnings as errors, so a broken symbol link or an
# undocumented parameter fails CI. Uses its own build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
mkdir "$graphs/all" "$graphs/parley"
swift build --target ParleyKit --scratch-path .build-docs \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs/all"
# Only Parley's own modules: the dependencies' graphs (swift-crypto's) carry links into Apple's
# documentation that no resolver here can follow, and their docs are not ours to check.
cp "$graphs"/all/ParleyKit*.symbols.json "$graphs"/all/ParleyCore*.symbols.json "$graphs/parley/"
docc convert Sources/ParleyKit/ParleyKit.docc --additional-symbol-graph-dir "$graphs/parley" \
    --output-path "$graphs/ParleyKit.doccarchive" --fallback-display-name ParleyKit \
    --fallback-bundle-identifier org.parley.ParleyKit --warnings-as-errors
echo "docs: ParleyKit's catalog builds without warnings"
