#!/usr/bin/env bash
# Full-coverage weave-time benchmark (issue 12): JDK 17's java.base woven with
# ObjectTracker by `major weave --full-coverage`, by AspectJ's ajc 1.9.5 (on the
# classes it accepts) and a plain read and copy of the same jmod, measured in
# the same run, interleaved; then the whole JDK 17 woven by `major weave --jdk`
# in both forms (patch, image). See bench/README.md ("Full coverage: weave time
# against ajc").
#
#   bench/java_base_vs_ajc.sh
#   bench/run.sh java-base
#
# Environment:
#   MAJOR_BENCH_RUNS           N in best-of-N (default 3)
#   MAJOR_BENCH_JDK17          the JDK whose jmods are woven, which runs ajc and
#                              compiles major's aspect
#                              (default /usr/lib/jvm/java-17-openjdk-amd64)
#   MAJOR_BENCH_AJC_JAVA_OPTS  JVM options for ajc (default -Xmx4g)
#   MAJOR_BENCH_KEEP           a directory to keep the outputs in (default: a
#                              temporary directory, removed at the end)
#   MAJOR_BENCH_PAUSE          seconds to wait before each measured command
#                              (default 0.5)
#
# Exit status: 0 when every weave succeeded (a missed target is reported, not an
# error), 1 when a weave failed, 2 on bad usage. Nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

RUNS=${MAJOR_BENCH_RUNS:-3}
JDK=${MAJOR_BENCH_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
AJC_JAVA_OPTS=${MAJOR_BENCH_AJC_JAVA_OPTS:--Xmx4g}
PAUSE=${MAJOR_BENCH_PAUSE:-0.5}
ASPECTJRT=/usr/share/java/aspectjrt.jar
ASPECTJTOOLS=/usr/share/java/aspectjtools.jar
ASPECT=$ROOT/aspects/ObjectTracker.aj
JMOD=$JDK/jmods/java.base.jmod
# Targets of issue 12: java.base in at most TIME_TARGET s, at least
# SPEED_TARGET times faster than ajc, at most 1/MEM_TARGET of its peak memory,
# at most COPY_TARGET times the read and copy; the whole JDK in at most
# JDK_TARGET s.
TIME_TARGET=0.3
SPEED_TARGET=30
MEM_TARGET=5
COPY_TARGET=2
JDK_TARGET=2

case "$RUNS" in '' | *[!0-9]* | 0) echo "MAJOR_BENCH_RUNS must be a positive integer" >&2; exit 2 ;; esac
[ $# -eq 0 ] || { echo "usage: bench/java_base_vs_ajc.sh (no arguments; see the environment in its header)" >&2; exit 2; }

skip() {
  echo "skipped: $*"
  exit 0
}

# --- what can run -----------------------------------------------------------
[ -x "$JDK/bin/java" ] || skip "no JDK at $JDK (set MAJOR_BENCH_JDK17)"
[ -f "$JMOD" ] || skip "$JMOD is missing: the JDK has no jmods (Debian package openjdk-17-jmods)"
[ -f "$ASPECTJTOOLS" ] && [ -f "$ASPECTJRT" ] ||
  skip "ajc 1.9.5 is not installed (Debian package aspectj: $ASPECTJTOOLS, $ASPECTJRT)"
command -v python3 >/dev/null 2>&1 || skip "no python3 (it measures, selects ajc's subset and is the copy baseline)"
command -v unzip >/dev/null 2>&1 || skip "no unzip (the read-only baseline)"

# --- build major ------------------------------------------------------------
echo "building major (release)..." >&2
cargo build --release -q -p major-weaver --bin major
MAJOR=$ROOT/target/release/major

if [ -n "${MAJOR_BENCH_KEEP:-}" ]; then
  WORK=$MAJOR_BENCH_KEEP
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/major-java-base-bench.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi

# --- helpers (Python) -------------------------------------------------------
# measure.py OUTFILE CMD...: runs CMD (output to OUTFILE.log) and writes
# "<wall s> <peak RSS KB> <user+sys CPU s>" to OUTFILE: the monotonic clock
# (milliseconds), and getrusage(RUSAGE_CHILDREN) of this fresh process, i.e.
# of CMD and everything it waited for (the peak RSS is the largest of any
# single one of those processes, the CPU time their sum).
cat >"$WORK/measure.py" <<'PY'
import resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
with open(out + ".log", "wb") as log:
    t = time.monotonic()
    rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
    wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    f.write("%.3f %d %.3f\n" % (wall, ru.ru_maxrss, ru.ru_utime + ru.ru_stime))
sys.exit(rc)
PY

# subset.py JMOD OUT.jar: the classes of JMOD that ajc 1.9.5 accepts, i.e.
# without a PermittedSubclasses or Record class attribute (ajc's ASM aborts:
# "PermittedSubclasses requires ASM9") and without module-info; prints the
# counts and the names left out.
cat >"$WORK/subset.py" <<'PY'
import struct, sys, zipfile

def class_attributes(data, name):
    """The names of the class-level attributes of the class file `data`."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError(name + ": not a class file")
    count = struct.unpack_from(">H", data, 8)[0]
    pos, i, utf8 = 10, 1, {}
    while i < count:  # the constant pool: keep the Utf8 entries
        tag = data[pos]
        if tag == 1:
            n = struct.unpack_from(">H", data, pos + 1)[0]
            utf8[i] = data[pos + 3:pos + 3 + n]
            pos += 3 + n
        elif tag in (3, 4, 9, 10, 11, 12, 17, 18):
            pos += 5
        elif tag in (5, 6):  # long, double: two slots
            pos += 9
            i += 1
        elif tag in (7, 8, 16, 19, 20):
            pos += 3
        elif tag == 15:
            pos += 4
        else:
            raise ValueError("%s: constant pool tag %d at offset %d" % (name, tag, pos))
        i += 1
    pos += 6  # access flags, this class, super class
    pos += 2 + 2 * struct.unpack_from(">H", data, pos)[0]  # interfaces
    for _ in range(2):  # fields, then methods: skip their attributes
        members = struct.unpack_from(">H", data, pos)[0]
        pos += 2
        for _ in range(members):
            attributes = struct.unpack_from(">H", data, pos + 6)[0]
            pos += 8
            for _ in range(attributes):
                pos += 6 + struct.unpack_from(">I", data, pos + 2)[0]
    names = []
    for _ in range(struct.unpack_from(">H", data, pos)[0]):
        index, length = struct.unpack_from(">HI", data, pos + 2)
        names.append(utf8[index].decode("utf-8", "replace"))
        pos += 6 + length
    return names

src, out = sys.argv[1], sys.argv[2]
total, left_out = 0, {"PermittedSubclasses": [], "Record": []}
with zipfile.ZipFile(src) as z, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as w:
    for e in z.infolist():
        if not e.filename.startswith("classes/") or not e.filename.endswith(".class"):
            continue
        total += 1
        name = e.filename[len("classes/"):]
        if name == "module-info.class":
            continue
        attributes = set(class_attributes(z.read(e), src + "!" + e.filename))
        hit = [a for a in left_out if a in attributes]
        for a in hit:
            left_out[a].append(name[:-len(".class")])
        if not hit:
            w.writestr(name, z.read(e))
sealed, records = left_out["PermittedSubclasses"], left_out["Record"]
excluded = len(set(sealed) | set(records)) + 1
print("%d %d %d %d" % (total, excluded, len(sealed), len(records)))
for a, names in left_out.items():
    print("  %s: %s" % (a, " ".join(names)), file=sys.stderr)
PY

# copy.py JMOD OUT.jar: the read-and-copy baseline: every class entry of the
# jmod read (inflated) and written into a jar, deflated at level 1 (the level of
# the entries major writes).
cat >"$WORK/copy.py" <<'PY'
import sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as z, \
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as w:
    for e in z.infolist():
        if e.filename.startswith("classes/") and e.filename.endswith(".class"):
            w.writestr(e.filename[len("classes/"):], z.read(e))
PY

# changed.py A.jar B.jar: how many classes of A have other bytes in B (the
# classes ajc wove: it writes the others unchanged).
cat >"$WORK/changed.py" <<'PY'
import sys, zipfile
a, b = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2])
names = set(b.namelist())
print(sum(1 for n in a.namelist() if n in names and a.read(n) != b.read(n)))
PY

measure() { # OUTFILE CMD...
  sleep "$PAUSE"
  python3 "$WORK/measure.py" "$@"
}

run_major() {
  rm -f "$WORK/major.jar"
  measure "$WORK/major.time" "$MAJOR" weave --full-coverage --java-home "$JDK" --cache-dir "$WORK/cache" \
    -a "$ASPECT" "$JMOD" -o "$WORK/major.jar" && [ -s "$WORK/major.jar" ]
}
run_ajc() {
  rm -f "$WORK/ajc.jar"
  # ajc drops ajcore.*.txt dumps into its working directory: run it in $WORK.
  # It runs on JDK 17 and takes the class library from the JDK's own image;
  # -8: its default source level 1.4 rejects the aspect's generics.
  # shellcheck disable=SC2086 # AJC_JAVA_OPTS is a list of options
  (cd "$WORK" && measure "$WORK/ajc.time" "$JDK/bin/java" $AJC_JAVA_OPTS \
    -cp "$ASPECTJTOOLS:$ASPECTJRT" org.aspectj.tools.ajc.Main \
    -8 -inpath "$WORK/subset.jar" -cp "$ASPECTJRT" -outjar "$WORK/ajc.jar" -Xlint:ignore -nowarn "$ASPECT") &&
    [ -s "$WORK/ajc.jar" ]
}
run_copy() {
  rm -f "$WORK/copy.jar"
  measure "$WORK/copy.time" python3 "$WORK/copy.py" "$JMOD" "$WORK/copy.jar" && [ -s "$WORK/copy.jar" ]
}
run_read() {
  # unzip warns (status 1) about the 4-byte jmod header before the zip data.
  measure "$WORK/read.time" sh -c 'unzip -p "$1" "classes/*" >/dev/null; [ $? -le 1 ]' sh "$JMOD"
}
run_jdk() { # form
  rm -rf "$WORK/jdk-$1"
  measure "$WORK/jdk-$1.time" "$MAJOR" weave --jdk="$JDK" --jdk-form "$1" --cache-dir "$WORK/cache" \
    -a "$ASPECT" -o "$WORK/jdk-$1" || return 1
  # the patch form runs with java @OUT/java.args, the image form is a JDK home
  if [ "$1" = patch ]; then [ -s "$WORK/jdk-$1/java.args" ]; else [ -x "$WORK/jdk-$1/bin/java" ]; fi
}

failed=0
fail() { # what logfile
  echo "FAILED: $1:" >&2
  tail -20 "$2" >&2
  failed=1
}

echo "java.base of $JDK woven with ObjectTracker: major --full-coverage, ajc 1.9.5 ($AJC_JAVA_OPTS -8 -inpath), read and copy;" >&2
echo "best of $RUNS interleaved runs; machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- not timed: ajc's subset, warm caches -------------------------------------
read -r classes excluded sealed records < <(python3 "$WORK/subset.py" "$JMOD" "$WORK/subset.jar")
echo "ajc's subset: $((classes - excluded)) of $classes classes; left out: $sealed sealed (PermittedSubclasses), $records records, module-info" >&2
# Warm up: compiles the aspect into major's cache (the --jdk runs key it
# separately), and brings the jmod into the page cache.
"$MAJOR" weave --full-coverage --java-home "$JDK" --cache-dir "$WORK/cache" -a "$ASPECT" "$JMOD" \
  -o "$WORK/major.jar" >"$WORK/warm.log" 2>&1 || fail "major weave --full-coverage (warm-up)" "$WORK/warm.log"
rm -rf "$WORK/jdk-patch"
"$MAJOR" weave --jdk="$JDK" --jdk-form patch --cache-dir "$WORK/cache" -a "$ASPECT" -o "$WORK/jdk-patch" \
  >"$WORK/warm.log" 2>&1 || fail "major weave --jdk (warm-up)" "$WORK/warm.log"
[ $failed = 0 ] || exit 1

# --- timed, interleaved -------------------------------------------------------
declare -A all # name -> "wall kb cpu;wall kb cpu;..."
record() { all[$1]+="$(tail -1 "$WORK/$1.time");"; }
for ((i = 1; i <= RUNS; i++)); do
  line="  run $i:"
  for what in major ajc copy read jdk-patch jdk-image; do
    case $what in
      jdk-*) run_jdk "${what#jdk-}" ;;
      *) "run_$what" ;;
    esac || { fail "$what (run $i)" "$WORK/$what.time.log"; break 2; }
    record "$what"
    line+=" $what $(tail -1 "$WORK/$what.time")"
  done
  echo "$line (s KB cpu-s)" >&2
done
[ $failed = 0 ] || exit 1

woven_major=$(grep -o 'woven [0-9]* of [0-9]* classes' "$WORK/major.time.log" | head -1)
woven_ajc=$(python3 "$WORK/changed.py" "$WORK/subset.jar" "$WORK/ajc.jar")

# --- the table ----------------------------------------------------------------
# stats "w k c;w k c;...": "best-wall best-kb best-cpu min-max-wall min-max-cpu"
stats() {
  echo "$1" | tr ';' '\n' | awk 'NF == 3 {
    if (n == 0 || $1 < w) w = $1; if (n == 0 || $1 > W) W = $1;
    if (n == 0 || $2 < k) k = $2;
    if (n == 0 || $3 < c) c = $3; if (n == 0 || $3 > C) C = $3; n++ }
    END { printf "%s %s %s %s-%s %s-%s\n", w, k, c, w, W, c, C }'
}
read -r m_s m_kb m_cpu m_sp m_cpusp < <(stats "${all[major]}")
read -r a_s a_kb a_cpu a_sp a_cpusp < <(stats "${all[ajc]}")
read -r c_s c_kb c_cpu c_sp c_cpusp < <(stats "${all[copy]}")
read -r r_s r_kb r_cpu r_sp r_cpusp < <(stats "${all[read]}")
read -r p_s p_kb p_cpu p_sp p_cpusp < <(stats "${all[jdk-patch]}")
read -r i_s i_kb i_cpu i_sp i_cpusp < <(stats "${all[jdk-image]}")

echo
awk -v m_s="$m_s" -v m_kb="$m_kb" -v m_cpu="$m_cpu" -v a_s="$a_s" -v a_kb="$a_kb" -v a_cpu="$a_cpu" \
  -v c_s="$c_s" -v c_cpu="$c_cpu" -v r_s="$r_s" -v r_cpu="$r_cpu" \
  -v p_s="$p_s" -v p_kb="$p_kb" -v p_cpu="$p_cpu" -v i_s="$i_s" -v i_kb="$i_kb" -v i_cpu="$i_cpu" \
  -v tt="$TIME_TARGET" -v st="$SPEED_TARGET" -v mt="$MEM_TARGET" -v ct="$COPY_TARGET" -v jt="$JDK_TARGET" -v q="'" 'BEGIN {
  ok = "ok"; no = "MISSED"
  speed = a_s / m_s; mem = m_kb / a_kb; copy = m_s / c_s
  printf "%-26s %7s %7s %7s %8s %8s %7s %7s %7s\n", "workload", "major s", "ajc s", "speed", "major MB", "ajc MB", "memory", "copy s", "vs copy"
  printf "%-26s %7.3f %7.3f %6.1fx %8.0f %8.0f %7.3f %7.3f %6.2fx\n", "java.base + ObjectTracker", m_s, a_s, speed, m_kb / 1024, a_kb / 1024, mem, c_s, copy
  printf "%-26s %7.3f %7.3f %6.1fx %8s %8s %7s %7.3f %6.2fx\n", "  (CPU user+sys)", m_cpu, a_cpu, a_cpu / m_cpu, "", "", "", c_cpu, m_cpu / c_cpu
  printf "%-26s %7.3f %7s %7s %8.0f\n", "whole JDK 17, patch form", p_s, "-", "-", p_kb / 1024
  printf "%-26s %7.3f %7s %7s %8s\n", "  (CPU user+sys)", p_cpu, "", "", ""
  printf "%-26s %7.3f %7s %7s %8.0f\n", "whole JDK 17, image form", i_s, "-", "-", i_kb / 1024
  printf "%-26s %7.3f %7s %7s %8s\n", "  (CPU user+sys)", i_cpu, "", "", ""
  printf "\ntargets (wall times):\n"
  t = "  %-38s %-6s (%s)\n"
  printf t, "java.base in <= " tt " s", (m_s <= tt ? ok : no), sprintf("%.3f s", m_s)
  printf t, ">= " st "x faster than ajc", (speed >= st ? ok : no), sprintf("%.1fx", speed)
  printf t, "<= 1/" mt " of ajc" q "s memory", (mem * mt <= 1 ? ok : no), sprintf("1/%.1f", 1 / mem)
  printf t, "<= " ct "x the read and copy", (copy <= ct ? ok : no), sprintf("%.2fx; read only, unzip -p: %.3f s, %.2fx", copy, r_s, m_s / r_s)
  printf t, "whole JDK 17 in <= " jt " s, patch form", (p_s <= jt ? ok : no), sprintf("%.3f s", p_s)
  printf t, "whole JDK 17 in <= " jt " s, image form", (i_s <= jt ? ok : no), sprintf("%.3f s", i_s)
}'
echo
echo "spread over the $RUNS runs (wall s; CPU s):"
printf '  %-10s %-14s %s\n' major "$m_sp" "$m_cpusp" ajc "$a_sp" "$a_cpusp" copy "$c_sp" "$c_cpusp" \
  "read" "$r_sp" "$r_cpusp" jdk-patch "$p_sp" "$p_cpusp" jdk-image "$i_sp" "$i_cpusp"
echo
echo "major: $woven_major of java.base (all of it, module-info included); ajc: woven $woven_ajc of the"
echo "$((classes - excluded)) classes it accepts ($sealed sealed, $records records and module-info left out)."
echo "speed = ajc s / major s; memory = major MB / ajc MB (peak RSS, MB = 2^20 bytes); vs copy = major s / copy s;"
echo "best of $RUNS interleaved runs, each figure taken separately; the aspect cached (no javac in major's runs);"
echo "copy: Python zipfile reading every class of the jmod and writing it deflated (level 1) into a jar;"
echo "whole JDK: major weave --jdk (every module), peak RSS of its largest process."
exit $failed
