#!/bin/sh
# dups-core.sh SRC OUT (e.g. tools/dups-core.sh . /tmp/core): copies the non-test Go files of SRC's index/, dao/, admin/ into OUT and lists their repeated six-line blocks.
src=$1; out=$2
rm -rf "$out"; mkdir -p "$out"
for d in index dao admin; do
  mkdir -p "$out/$d"
  for f in $(find "$src/$d" -name '*.go' ! -name '*_test.go'); do
    rel=${f#$src/}; mkdir -p "$out/$(dirname $rel)"; cp "$f" "$out/$rel"
  done
done
cd "$out" && duplicates --repo "$out" --most 200 --seconds 60
