#!/usr/bin/env bash
# Code size: the bytes of bytecode that weaving adds per advised join point
# shadow, major against ajc 1.9.5, with aspects/ObjectTracker.aj and
# aspects/ExecutionCounter.aj on guava. See bench/README.md ("Code size").
#
#   bench/code_size.sh [JAR]        (default /usr/share/java/guava.jar)
#
# Environment:
#   MAJOR_BENCH_JDK17   the JDK that runs ajc and major's javac
#                       (default /usr/lib/jvm/java-17-openjdk-amd64)
#   MAJOR_BENCH_KEEP    a directory to keep the woven jars in (default: a
#                       temporary directory, removed at the end)
#
# Prints, per aspect: the advised shadows (major's count; ajc's -showWeaveInfo
# lines), and the `code_length` added over the input classes in all, and per
# shadow, by each weaver. Only the input classes' methods are counted (not the
# aspect, runtime or extra classes). Exit status 0, also when a tool is missing
# (then `skipped: <reason>`); 1 when a weave fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

JAR=${1:-/usr/share/java/guava.jar}
JDK=${MAJOR_BENCH_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
ASPECTJRT=/usr/share/java/aspectjrt.jar
ASPECTJTOOLS=/usr/share/java/aspectjtools.jar
ASPECTS=(ObjectTracker ExecutionCounter)

skip() {
  echo "skipped: $*"
  exit 0
}
[ -f "$JAR" ] || skip "$JAR is missing"
[ -x "$JDK/bin/java" ] || skip "no JDK at $JDK (set MAJOR_BENCH_JDK17)"
[ -f "$ASPECTJTOOLS" ] && [ -f "$ASPECTJRT" ] || skip "ajc 1.9.5 is not installed (Debian package aspectj)"
command -v python3 >/dev/null || skip "python3 is missing"

if [ -n "${MAJOR_BENCH_KEEP:-}" ]; then
  WORK=$MAJOR_BENCH_KEEP
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi

cargo build --release -q -p major-weaver
MAJOR=$ROOT/target/release/major

printf '%-17s %8s %8s %10s %9s %10s %9s\n' aspect "shadows" "(ajc)" "major +B" "B/shadow" "ajc +B" "B/shadow"
for a in "${ASPECTS[@]}"; do
  m_out=$WORK/major-$a.jar
  a_out=$WORK/ajc-$a.jar
  if ! "$MAJOR" weave --java-home "$JDK" --cache-dir "$WORK/cache" --aspect "$ROOT/aspects/$a.aj" "$JAR" -o "$m_out" \
    >"$WORK/major-$a.log" 2>&1; then
    echo "major weave failed for $a: see $WORK/major-$a.log" >&2
    exit 1
  fi
  # ajc drops ajcore.*.txt dumps into its working directory: run it in $WORK.
  if ! (cd "$WORK" && "$JDK/bin/java" -Xmx4g -cp "$ASPECTJTOOLS:$ASPECTJRT" org.aspectj.tools.ajc.Main \
    -8 -inpath "$JAR" -cp "$ASPECTJRT" -outjar "$a_out" -Xlint:ignore -nowarn -showWeaveInfo \
    "$ROOT/aspects/$a.aj" >"$WORK/ajc-$a.log" 2>&1); then
    echo "ajc failed for $a: see $WORK/ajc-$a.log" >&2
    exit 1
  fi
  # "advised shadows: constructor-call 3691, method-execution 11646"
  m_shadows=$(grep -o 'advised shadows: .*' "$WORK/major-$a.log" | grep -o '[0-9][0-9]*' | awk '{ s += $1 } END { print s + 0 }')
  a_shadows=$(grep -c '^Join point' "$WORK/ajc-$a.log" || true)
  read -r _ _ _ m_added < <(python3 "$ROOT/bench/code_size.py" "$JAR" "$m_out" | tail -n 1)
  read -r _ _ _ a_added < <(python3 "$ROOT/bench/code_size.py" "$JAR" "$a_out" | tail -n 1)
  awk -v a="$a" -v ms="$m_shadows" -v as="$a_shadows" -v mb="$m_added" -v ab="$a_added" 'BEGIN {
    printf "%-17s %8d %8d %10d %9.2f %10d %9.2f\n", a, ms, as, mb, (ms ? mb / ms : 0), ab, (as ? ab / as : 0) }'
done
