#!/usr/bin/env bash
# Runs the class-file engine benchmark (weaver/benches/engine.rs) in the
# release profile. Arguments are passed to the benchmark (groups: jmods,
# reframe17, reframe25; default all); the environment is passed through
# (MAJOR_BENCH_RUNS, MAJOR_BENCH_JDK17, MAJOR_BENCH_JDK25). See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo bench -p major-weaver --bench engine -- "$@"
