#!/usr/bin/env bash
# Runs the class-file engine benchmark (weaver/benches/engine.rs) in the
# release profile. Arguments are passed to the benchmark (groups: jmods,
# reframe17, reframe25; default all); the environment is passed through
# (MAJOR_BENCH_RUNS, MAJOR_BENCH_JDK17, MAJOR_BENCH_JDK25). See bench/README.md.
#
# `bench/run.sh weave [guava] [commons-lang3]` runs the weaving benchmark
# against ajc instead (bench/weave_vs_ajc.sh); `bench/run.sh java-base` the
# full-coverage weave of JDK 17's java.base against ajc, a read and copy and the
# whole JDK (bench/java_base_vs_ajc.sh); `bench/run.sh startup [hello] [javac]`
# the single-phase agent's start-up against plain java and AspectJ load-time
# weaving (bench/agent_startup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = weave ]; then
  shift
  exec bench/weave_vs_ajc.sh "$@"
fi
if [ "${1:-}" = java-base ]; then
  shift
  exec bench/java_base_vs_ajc.sh "$@"
fi
if [ "${1:-}" = startup ]; then
  shift
  exec bench/agent_startup.sh "$@"
fi
exec cargo bench -p major-weaver --bench engine -- "$@"
