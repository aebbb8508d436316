#!/usr/bin/env bash
# Seeds the fuzz corpora (fuzz/corpus/<target>/) from the conformance corpus in tests/corpus/.
#
# Each seed starts with the selector byte of the entry point its file name names
# (`<stem>.<entry>.onnxtxt`: model 0, graph 1, function 2, node 4; see fuzz/src/lib.rs), so
# that it reaches the entry point it was written for. The `print` target gets the protobuf
# files (`.pb`) with the selector of their message type. Files over 16 KiB are left out: they
# slow the fuzzer down and add nothing that the small ones lack.
set -euo pipefail
cd "$(dirname "$0")"
corpus=../tests/corpus
selector() {
    case "$1" in
        *.model.*) printf '\x00' ;;
        *.graph.*) printf '\x01' ;;
        *.function.*) printf '\x02' ;;
        *.node.*) printf '\x04' ;;
        *) return 1 ;;
    esac
}
for target in parse check roundtrip format print infer inline check_model; do
    mkdir -p "corpus/$target"
done
find "$corpus" -name '*.onnxtxt' -size -16k | while read -r file; do
    name=$(basename "$file" .onnxtxt)
    for target in parse check roundtrip format; do
        { selector "$file"; cat "$file"; } > "corpus/$target/$name"
    done
done
# The inline target takes model texts; the fuzzer finds the other selectors.
find "$corpus" -name '*.model.onnxtxt' -size -16k | while read -r file; do
    { printf '\x00'; cat "$file"; } > "corpus/inline/$(basename "$file" .onnxtxt)"
done
find "$corpus" -name '*.pb' -size -16k | while read -r file; do
    { selector "$file"; cat "$file"; } > "corpus/print/$(basename "$file")"
done
# infer reads an even selector as protobuf: the models' bytes.
find "$corpus" -name '*.model.pb' -size -16k | while read -r file; do
    { printf '\x00'; cat "$file"; } > "corpus/infer/$(basename "$file")"
done
# check_model reads raw bytes: every binary model, as it is.
find "$corpus" \( -name '*.model.pb' -o -name '*.model.source.pb' \) -size -16k | while read -r file; do
    cp "$file" "corpus/check_model/$(basename "$file")"
done
for target in parse check roundtrip format print infer inline check_model; do
    echo "$target: $(ls "corpus/$target" | wc -l) seeds"
done
# The eval target: hand-written models of the ai.onnx.ml operators (seeds/eval), which the
# conformance corpus lacks, so that the fuzzer starts inside the tree, SVM and linear kernels.
mkdir -p corpus/eval
for file in seeds/eval/*.onnxtxt; do
    { printf '\x00'; cat "$file"; } > "corpus/eval/$(basename "$file" .onnxtxt)"
done
