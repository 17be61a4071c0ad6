#!/bin/sh
# run_fuzz.sh HARNESS CORPUS ARTIFACTS [SECONDS]
# Fuzz one libFuzzer harness for SECONDS (default $FUZZ_SECONDS, else 20),
# starting from a scratch copy of the committed corpus (new inputs are not
# written back into the repository).  A crash, leak, UBSan report or timeout
# fails the run; the reproducer is left in ARTIFACTS: commit it under
# tests/fuzz/corpus/NAME/ (then fuzz_corpus_NAME replays it in every test
# build) and fix the bug.
set -eu
bin=$1
corpus=$2
art=$3
secs=${4:-${FUZZ_SECONDS:-20}}
work=$(mktemp -d "${TMPDIR:-/tmp}/tt_fuzz_corpus_XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$corpus"/. "$work"/
mkdir -p "$art"
name=$(basename "$bin")
echo "$name: fuzzing for ${secs}s from $(ls "$corpus" | wc -l) seed(s)"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
  -artifact_prefix="$art/$name-" "$work"
