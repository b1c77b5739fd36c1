#!/usr/bin/env bash
# Incremental weaving benchmark: guava's classes (/usr/share/java/guava.jar,
# unpacked into a class directory) woven into a directory, fully and then
# incrementally after a one-class change (a string literal in a method body
# of com/google/common/base/Strings, so the class's bytes change and nothing
# another class looks up does) and after no change. Prints the best of N
# wall times of the `major weave` process and the ratio of each incremental
# weave to the full one, for two aspects: CallCounter (call shadows: every
# call's declaring type is looked up) and ExecutionCounter.
#
#   bench/incremental.sh
#
# Environment: MAJOR_BENCH_RUNS (N, default 5). Every incremental output is
# compared with a full weave of the same classes (diff -r), and the run fails
# if they differ.
#
# Two numbers per change: the whole `major weave` run, and the run with the
# aspects' javac output taken from the cache ("aspects cached"). The aspect
# cache keys on the stamps (size, time) of every file of the inputs, which
# are on javac's class path, so a changed input class makes javac compile the
# aspects again; the second measurement keeps the input's stamps (the aspects
# here name no guava class, so javac's output is the same) to tell that cost
# from the weave's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${MAJOR_BENCH_RUNS:-5}
JAR=/usr/share/java/guava.jar
if [ ! -f "$JAR" ]; then
    echo "skipped: $JAR missing (Debian package libguava-java)"
    exit 0
fi
cargo build --release -p major-weaver --bin major >/dev/null 2>&1
MAJOR=$ROOT/target/release/major
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/guava"
(cd "$WORK/guava" && unzip -q "$JAR")
CLASS=$WORK/guava/com/google/common/base/Strings.class
CACHE=$WORK/cache

# Milliseconds of one `major weave` of the classes into $1 (extra options after).
weave() {
    local out=$1
    shift
    local t0 t1
    t0=$(date +%s%N)
    "$MAJOR" weave --cache-dir "$CACHE" --aspect "$ASPECT" "$WORK/guava" -o "$out" "$@" 2>"$WORK/log" \
        || { cat "$WORK/log"; exit 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

# Best of a list of numbers.
best() { printf '%s\n' "$@" | sort -n | head -1; }

# Changes the one class: toggles a letter of a string literal.
edit() {
    python3 - "$CLASS" <<'EOF'
import sys
p = sys.argv[1]
d = open(p, 'rb').read()
a, b = b'invalid count: %s', b'invalid Count: %s'
d = d.replace(a, b) if a in d else d.replace(b, a)
open(p, 'wb').write(d)
EOF
}

# The stamps of every input file, to put back after an edit ("aspects cached").
save_stamps() { (cd "$WORK/guava" && find . -type f -printf '%p %T@\n') >"$WORK/stamps"; }
restore_stamps() {
    while read -r f t; do touch -d "@$t" "$WORK/guava/$f"; done <"$WORK/stamps"
}

printf '%-18s %-34s %9s %7s\n' aspect run ms ratio
for A in CallCounter ExecutionCounter; do
    ASPECT=$ROOT/aspects/$A.aj
    rm -rf "$CACHE" "$WORK/inc"
    weave "$WORK/warm" >/dev/null # the aspects into the cache
    full=()
    for _ in $(seq "$RUNS"); do
        rm -rf "$WORK/full"
        full+=("$(weave "$WORK/full")")
    done
    weave "$WORK/inc" >/dev/null # the state
    same=()
    change=()
    cached=()
    for _ in $(seq "$RUNS"); do
        same+=("$(weave "$WORK/inc")")
        edit
        change+=("$(weave "$WORK/inc")")
        grep -q "re-wove 1 of" "$WORK/log" || { echo "not one class re-woven:"; cat "$WORK/log"; exit 1; }
        # The change undone, the input's stamps kept: the aspects' javac
        # output is the cached one of the weave above.
        save_stamps
        edit
        restore_stamps
        cached+=("$(weave "$WORK/inc")")
        grep -q "re-wove 1 of" "$WORK/log" || { echo "not one class re-woven:"; cat "$WORK/log"; exit 1; }
    done
    rm -rf "$WORK/full"
    weave "$WORK/full" >/dev/null
    diff -r "$WORK/inc" "$WORK/full" >/dev/null || { echo "incremental output differs from a full weave"; exit 1; }
    f=$(best "${full[@]}")
    for row in "full weave:$f" "no change:$(best "${same[@]}")" \
        "one class changed:$(best "${change[@]}")" \
        "one class changed, aspects cached:$(best "${cached[@]}")"; do
        name=${row%%:*}
        ms=${row##*:}
        printf '%-18s %-34s %9s %7s\n' "$A" "$name" "$ms" "$(python3 -c "print(f'{$ms/$f:.3f}')")"
    done
done
