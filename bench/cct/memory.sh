#!/usr/bin/env bash
# The CCT profiler's memory and how it grows with run length: each workload's
# main run N times in one JVM, plain and under `major run --aspect
# aspects/CctProfiler.aj` (single-phase, the whole JDK woven as it loads);
# after iterations 1, 2, 5, 10, 20, ... the live nodes and the heap in use
# after a full collection (bench/cct/Repeat.java, `repeat.memory`); the tree's
# memory is the woven run's heap less the plain run's, per node too.
#
#   bench/cct/memory.sh
#
# Environment: MAJOR_CCT_ITERATIONS (N, default 20), MAJOR_CCT_WORKLOADS
# (default "xalan antlr4 lucene"), MAJOR_BENCH_JDK17 (default
# /usr/lib/jvm/java-17-openjdk-amd64).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
JDK=${MAJOR_BENCH_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
ITER=${MAJOR_CCT_ITERATIONS:-20}
WORKLOADS=${MAJOR_CCT_WORKLOADS:-xalan antlr4 lucene}
cargo build --release -q -p major-weaver --bin major -p major-agent
MAJOR=$ROOT/target/release/major
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck disable=SC2086
cargo run --release -q -p major-tests --example prepare_workloads -- \
  "$JDK" "$WORK/prepared" $WORKLOADS > "$WORK/workloads.tsv"
"$JDK/bin/javac" -d "$WORK/driver" bench/cct/Repeat.java
printf '%-8s %9s %10s %10s %11s %12s %10s\n' workload iteration "plain ms" "woven ms" nodes "heap +MB" "bytes/node"
while IFS=$'\t' read -r name cp main inputs; do
  for mode in plain woven; do
    dir=$WORK/run-$name-$mode
    mkdir -p "$dir"
    opts=(-Xmx6g -Duser.language=en -Duser.country=US -Duser.timezone=UTC
      -Dfile.encoding=UTF-8 -Drepeat.clean=true -Drepeat.memory=true -cp "$WORK/driver:$cp" Repeat "$ITER" "$main" "$inputs")
    if [ "$mode" = plain ]; then
      (cd "$dir" && "$JDK/bin/java" "${opts[@]}" < /dev/null) 2> "$WORK/$name-$mode.out" > /dev/null
    else
      (cd "$dir" && "$MAJOR" run --java-home "$JDK" --aspect "$ROOT/aspects/CctProfiler.aj" \
        -- -Dmajor.cct.out="$WORK/$name.cct" "${opts[@]}" < /dev/null) 2> "$WORK/$name-$mode.out" > /dev/null
    fi
  done
  # iter I wall W cpu C (I from 0), and after some: memory I nodes N bytes B heap H
  for mode in plain woven; do
    awk '/^iter / { wall[$2 + 1] = $4 } /^memory / { print $2, wall[$2], $4, $8 }' \
      "$WORK/$name-$mode.out" > "$WORK/$name-$mode.mem"
  done
  paste -d' ' "$WORK/$name-plain.mem" "$WORK/$name-woven.mem" | awk -v w="$name" '{
      d = $8 - $4
      printf "%-8s %9s %10s %10s %11s %12.1f %10.0f\n", w, $1, $2, $6, $7, d / 1048576, ($7 > 0 ? d / $7 : 0)
    }'
done < "$WORK/workloads.tsv"
