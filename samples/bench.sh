#!/usr/bin/env bash
# 'make bench': every benchmark, one after the other (they compare against a
# baseline in the same run, so a busy machine slows both sides alike).
# Usage: samples/bench.sh BUILD_DIR [name...]   (names: locate track track_cams referee rules overlay record replay render scenario http hall)
set -eu
build="${1:-build}"
shift || true
names="${*:-locate track track_cams referee rules overlay record replay render scenario http hall}"
cache="${TT_BENCH_CACHE:-$build/bench-frames}"  # in the build folder: no fixed name in /tmp
mkdir -p "$cache"
for n in $names; do
  echo "================ bench_$n"
  case "$n" in
    locate) "$build/tests/locate/bench_locate" --frames 3 --repeat 5 ;;
    track)  "$build/tests/track/bench_track" --frames 90 --cache "$cache" ;;
    track_cams) "$build/tests/track/bench_track_cams" --frames 24 --cache "$cache" ;;
    referee) "$build/tests/track/bench_referee" --rounds 9 ;;
    rules)  "$build/tests/rules/bench_rules" ;;
    overlay) "$build/tests/overlay/bench_overlay" ;;
    record) "$build/tests/record/bench_record" ;;
    replay) "$build/tests/record/bench_replay_referee" ;;
    render) "$build/tests/render_tests/bench_render" --frames 3 ;;
    scenario) "$build/tests/hostile/bench_scenario_load" ;;
    http) python3 "$(dirname "$0")/../tests/http/bench_http.py" "$build/tabletrack" "$build/tt-render" "$cache" ;;
    hall) python3 "$(dirname "$0")/../tests/hall/bench_hall.py" "$build/tabletrack" "$build/tt-rec-sample" 50 ;;
    *) echo "unknown benchmark $n" >&2; exit 2 ;;
  esac
  echo
done
