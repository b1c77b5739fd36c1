#!/usr/bin/env bash
# Start-up benchmark of the single-phase agent (issue 13): a hello world and
# javac compiling one file, JDK 17, run
#
#   java                      plain
#   java -Xshare:off          what the agent's early class hook costs by itself
#                             (it turns class-data sharing off)
#   major run, no cache       every class woven in the hook (--no-class-cache)
#   major run, first run      the same, storing every class into an empty
#                             class cache (CACHE/woven-classes and
#                             CACHE/load-order removed first)
#   major run, cache cold     the same with the order in which a previous run
#                             loaded its classes kept (CACHE/load-order): the
#                             agent weaves ahead on a thread of its own, as
#                             after an edit of the aspect or of the class path
#   major run, cache warm     every class from the class cache
#   major run, woven JDK      the JDK woven ahead with the aspect, kept in the
#                             cache (--woven-jdk; made once before the rounds
#                             with --woven-jdk=build): the agent weaves only
#                             the class path's classes (from the class cache)
#                             and the JVM keeps class-data sharing
#   AspectJ LTW               -javaagent:aspectjweaver.jar with aop.xml: the
#                             application's classes only
#
# with ExecutionCounter (aspects/ExecutionCounter.aj, every execution counted;
# for LTW the same aspect compiled by ajc). Every `major run` has the aspect
# cache warm: the aspect's javac run (about 1 s, once per aspect edit and
# class path) is not what is measured here. Prints the best and the median of
# N wall times, the best CPU time (user + system of the process and its
# children: `major` and its `java`), the ratio of each best wall time to plain
# java's and the difference in ms, and the targets:
#
#   hello world: cache warm at most +60 ms (the woven JDK row: the cache's
#   warm form), cache cold (and first run) at most +150 ms over plain java; both programs: major run's first run
#   (weaving every class, with no help from an earlier run) faster than
#   AspectJ LTW (application classes only, which has no cache either).
#
#   bench/agent_startup.sh [hello] [javac]        (default: both)
#
# Environment: MAJOR_BENCH_RUNS (N, default 7), MAJOR_BENCH_JDK17 (default
# /usr/lib/jvm/java-17-openjdk-amd64), MAJOR_BENCH_PAUSE (seconds before each
# measured command, default 0.5), MAJOR_BENCH_KEEP (a directory to keep the
# work files in), MAJOR_BENCH_AGENT_B (another build of the agent library:
# adds its cold and warm rows, "(B)", with a cache directory of their own,
# for an A/B comparison in one run). Runs are interleaved: each round runs every variant once,
# starting at another variant each round.
#
# javac's "application classes" for LTW are its own (modules jdk.compiler and
# jdk.javadoc, defined by the application class loader, which the weaver's
# transformer sees): LTW weaves them as they load from the run-time image.
# AspectJ 1.9.5's ASM cannot read JDK 17's sealed classes and records
# (`PermittedSubclasses requires ASM9`): the first one it meets ends stack
# map generation for the rest of the run (every later class fails to weave,
# with an ajcore dump each). So aop.xml excludes those classes (found by
# reading the attributes of jdk.compiler's and jdk.javadoc's classes, about
# 20); LTW weaves the rest (about 840 classes with ExecutionCounter). The
# script fails if LTW leaves an ajcore dump or reports an error, or if any
# run's output differs from plain java's (javac: the class file it writes).
#
# Exit status: 0 when every run gave the right output (a missed target is
# reported, not an error), 1 otherwise. Nothing is installed: without the
# Debian package aspectj (ajc, /usr/share/java/aspectjweaver.jar) the LTW rows
# are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

RUNS=${MAJOR_BENCH_RUNS:-7}
JDK=${MAJOR_BENCH_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
PAUSE=${MAJOR_BENCH_PAUSE:-0.5}
ASPECT=$ROOT/aspects/ExecutionCounter.aj
WEAVER=/usr/share/java/aspectjweaver.jar
ASPECTJRT=/usr/share/java/aspectjrt.jar
case "$RUNS" in '' | *[!0-9]* | 0) echo "MAJOR_BENCH_RUNS must be a positive integer" >&2; exit 2 ;; esac
if [ ! -x "$JDK/bin/java" ]; then
  echo "skipped: no JDK at $JDK (set MAJOR_BENCH_JDK17)"
  exit 0
fi
ltw=1
if [ ! -f "$WEAVER" ] || [ ! -f "$ASPECTJRT" ] || ! command -v ajc >/dev/null 2>&1; then
  echo "AspectJ LTW rows skipped: no ajc or $WEAVER (Debian package aspectj)" >&2
  ltw=0
fi
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(hello javac)
for p in "${programs[@]}"; do
  case "$p" in hello | javac) ;; *) echo "unknown program $p (known: hello, javac)" >&2; exit 2 ;; esac
done

echo "building major and the agent (release)..." >&2
cargo build --release -q -p major-weaver --bin major -p major-agent
MAJOR=$ROOT/target/release/major

if [ -n "${MAJOR_BENCH_KEEP:-}" ]; then
  WORK=$MAJOR_BENCH_KEEP
  rm -rf "$WORK"
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/major-startup-bench.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi
CACHE=$WORK/cache
CACHE_B=$WORK/cache-b
AGENT_B=${MAJOR_BENCH_AGENT_B:-}
if [ -n "$AGENT_B" ] && [ ! -f "$AGENT_B" ]; then
  echo "MAJOR_BENCH_AGENT_B=$AGENT_B: no such file" >&2
  exit 2
fi
JAVA=$JDK/bin/java

# --- the programs -------------------------------------------------------------
cat >"$WORK/Hello.java" <<'EOF'
public class Hello {
    public static void main(String[] args) {
        System.out.println("Hello, world");
    }
}
EOF
mkdir -p "$WORK/hello" "$WORK/ref" "$WORK/scratch" "$WORK/empty"
"$JDK/bin/javac" -d "$WORK/hello" "$WORK/Hello.java"
cp "$WORK/hello/Hello.class" "$WORK/ref/"

# The java arguments of a program (after `java [options]`); LTW adds its own
# class path entries in front.
program_args() { # program cp-prefix
  case "$1" in
    hello) echo "-cp $2$WORK/hello Hello" ;;
    javac) echo "-cp $2$WORK/empty com.sun.tools.javac.Main -d $WORK/out $WORK/Hello.java" ;;
  esac
}

# --- AspectJ LTW: the aspect compiled by ajc, aop.xml ------------------------------
LTW_DIR=$WORK/ltw
if [ "$ltw" = 1 ]; then
  echo "compiling the aspect with ajc, finding the classes ajc 1.9.5 cannot weave..." >&2
  mkdir -p "$LTW_DIR/META-INF"
  (cd "$WORK/scratch" && JAVA_OPTS=-Xmx4g ajc -1.8 -nowarn -Xlint:ignore -cp "$ASPECTJRT" \
    -d "$LTW_DIR" "$ASPECT") >"$WORK/ajc.log" 2>&1 || { cat "$WORK/ajc.log" >&2; exit 1; }
  # jdk.compiler's and jdk.javadoc's classes with a PermittedSubclasses or
  # Record attribute, as type patterns (nested types with dots).
  "$JDK/bin/jimage" extract --dir "$WORK/image" \
    --include 'regex:/jdk\.(compiler|javadoc)/.*' "$JDK/lib/modules"
  python3 - "$WORK/image" >"$WORK/excluded.txt" <<'EOF'
import os, struct, sys

def class_attributes(d):
    """The names of a class file's own attributes."""
    count = struct.unpack_from('>H', d, 8)[0]
    utf8, i, p = {}, 1, 10
    while i < count:
        tag = d[p]
        if tag == 1:
            n = struct.unpack_from('>H', d, p + 1)[0]
            utf8[i] = d[p + 3:p + 3 + n].decode('utf-8', 'replace')
            p += 3 + n
        elif tag in (7, 8, 16, 19, 20):
            p += 3
        elif tag == 15:
            p += 4
        elif tag in (3, 4, 9, 10, 11, 12, 17, 18):
            p += 5
        elif tag in (5, 6):
            p += 9
            i += 1
        else:
            raise ValueError(f'constant pool tag {tag}')
        i += 1
    p += 6
    p += 2 + 2 * struct.unpack_from('>H', d, p)[0]
    for _ in range(2):  # fields, methods
        members = struct.unpack_from('>H', d, p)[0]
        p += 2
        for _ in range(members):
            attributes = struct.unpack_from('>H', d, p + 6)[0]
            p += 8
            for _ in range(attributes):
                p += 6 + struct.unpack_from('>I', d, p + 2)[0]
    names = []
    for _ in range(struct.unpack_from('>H', d, p)[0]):
        p += 2
        names.append(utf8[struct.unpack_from('>H', d, p)[0]])
        p += 4 + struct.unpack_from('>I', d, p + 2)[0]
    return names

for root, _, files in os.walk(sys.argv[1]):
    for f in sorted(files):
        if not f.endswith('.class') or f == 'module-info.class':
            continue
        path = os.path.join(root, f)
        with open(path, 'rb') as c:
            attributes = class_attributes(c.read())
        if {'PermittedSubclasses', 'Record'} & set(attributes):
            module_relative = os.path.relpath(path, sys.argv[1]).split(os.sep, 1)[1]
            print(module_relative[:-len('.class')].replace('/', '.').replace('$', '.'))
EOF
  rm -rf "$WORK/image"
  {
    echo '<aspectj>'
    echo '  <aspects><aspect name="major.aspects.ExecutionCounter"/></aspects>'
    echo '  <weaver>'
    while read -r c; do echo "    <exclude within=\"$c\"/>"; done <"$WORK/excluded.txt"
    echo '  </weaver>'
    echo '</aspectj>'
  } >"$LTW_DIR/META-INF/aop.xml"
fi

# --- the variants ---------------------------------------------------------------
variants=(java xshare-off major-nocache major-first major-cold major-warm major-woven)
[ -n "$AGENT_B" ] && variants+=(major-cold-b major-warm-b)
[ "$ltw" = 1 ] && variants+=(ltw)
label() {
  case "$1" in
    java) echo "java" ;;
    xshare-off) echo "java -Xshare:off" ;;
    major-nocache) echo "major run, no class cache" ;;
    major-first) echo "major run, first run" ;;
    major-cold) echo "major run, class cache cold" ;;
    major-warm) echo "major run, class cache warm" ;;
    major-woven) echo "major run, woven JDK (cached)" ;;
    major-cold-b) echo "major run, class cache cold (B)" ;;
    major-warm-b) echo "major run, class cache warm (B)" ;;
    ltw) echo "AspectJ LTW (application classes)" ;;
  esac
}
# The command of a variant of a program, as one line whose words are split
# on spaces (no path may hold one: checked below).
command_of() { # variant program
  local major=("$MAJOR" run --java-home "$JDK" --cache-dir "$CACHE" --aspect "$ASPECT")
  case "$1" in
    java) echo "$JAVA $(program_args "$2" "")" ;;
    xshare-off) echo "$JAVA -Xshare:off $(program_args "$2" "")" ;;
    major-nocache) echo "${major[*]} --no-class-cache -- $(program_args "$2" "")" ;;
    major-first | major-cold | major-warm)
      echo "${major[*]} --woven-jdk=off -- $(program_args "$2" "")"
      ;;
    major-woven) echo "${major[*]} --woven-jdk=auto -- $(program_args "$2" "")" ;;
    major-cold-b | major-warm-b)
      echo "env MAJOR_AGENT_LIBRARY=$AGENT_B ${major[*]/$CACHE/$CACHE_B} --woven-jdk=off -- $(program_args "$2" "")"
      ;;
    ltw) echo "$JAVA -javaagent:$WEAVER $(program_args "$2" "$LTW_DIR:$ASPECTJRT:")" ;;
  esac
}
case "$WORK$ROOT$JDK$AGENT_B" in *' '*) echo "a path holds a space: $WORK $ROOT $JDK $AGENT_B" >&2; exit 2 ;; esac

# Runs a command in $WORK/scratch (LTW's ajcore dumps land there), its output
# into $WORK/log; appends "<wall ms> <cpu ms>" to $1. CPU: user + system of the
# child and the children it waited for (wait4).
measure() { # file cmd...
  local file=$1
  shift
  sleep "$PAUSE"
  (cd "$WORK/scratch" && python3 - "$WORK/log" "$@" <<'EOF') >>"$file"
import os, subprocess, sys, time
with open(sys.argv[1], 'w') as log:
    t = time.perf_counter()
    p = subprocess.Popen(sys.argv[2:], stdout=log, stderr=subprocess.STDOUT)
    _, status, r = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t) * 1000
print(f"{wall:.1f} {(r.ru_utime + r.ru_stime) * 1000:.0f}")
sys.exit(os.waitstatus_to_exitcode(status))
EOF
}

# Checks the output of the run just measured (in $WORK/log, $WORK/out).
check() { # variant program
  local ok=1
  case "$2" in
    hello) grep -qx 'Hello, world' "$WORK/log" || ok=0 ;;
    javac) cmp -s "$WORK/out/Hello.class" "$WORK/ref/Hello.class" || ok=0 ;;
  esac
  case "$1" in
    major-* | ltw) grep -Eq '^ExecutionCounter: [1-9][0-9]* executions' "$WORK/log" || ok=0 ;;
  esac
  if [ "$1" = ltw ]; then
    grep -Eq 'AspectJ Internal Error|SEVERE|BCException|\] error ' "$WORK/log" && ok=0
    compgen -G "$WORK/scratch/ajcore*" >/dev/null && ok=0
  fi
  if [ "$ok" = 0 ]; then
    echo "FAILED: $(label "$1") on $2: wrong output:" >&2
    tail -20 "$WORK/log" >&2
    exit 1
  fi
}

run_variant() { # variant program
  [ "$1" = major-cold ] && rm -rf "$CACHE/woven-classes"
  [ "$1" = major-first ] && rm -rf "$CACHE/woven-classes" "$CACHE/load-order"
  [ "$1" = major-cold-b ] && rm -rf "$CACHE_B/woven-classes"
  rm -rf "$WORK/out"
  # shellcheck disable=SC2046 # the command's words
  if ! measure "$WORK/times-$2-$1" $(command_of "$1" "$2"); then
    echo "FAILED: $(label "$1") on $2 exited with an error:" >&2
    tail -20 "$WORK/log" >&2
    exit 1
  fi
  check "$1" "$2"
}

echo "start-up, JDK 17 ($JDK), ExecutionCounter, best of $RUNS, interleaved"
echo "machine: $(nproc) cores; uptime at start: $(uptime)"
for p in "${programs[@]}"; do
  # Warm-up (not measured): javac's reference output, the aspect compiled
  # into the aspect cache for this class path, the class cache filled; and
  # what each weaver weaves.
  rm -rf "$WORK/out"
  # shellcheck disable=SC2046
  (cd "$WORK/scratch" && $(command_of java "$p") >/dev/null)
  [ "$p" = javac ] && cp "$WORK/out/Hello.class" "$WORK/ref/Hello.class"
  # shellcheck disable=SC2046
  (cd "$WORK/scratch" && $(command_of major-warm "$p" | sed 's/ -- / --verbose -- /') \
    >"$WORK/log" 2>&1) || { cat "$WORK/log" >&2; exit 1; }
  seen=$(sed -n 's/^major agent: \([0-9]*\) classes seen, \([0-9]*\) woven.*/saw \1 classes, wove \2/p' "$WORK/log")
  # The woven JDK, made once (the same for both programs), and a run on it.
  # shellcheck disable=SC2046
  (cd "$WORK/scratch" && $(command_of major-woven "$p" | sed 's/--woven-jdk=auto -- /--woven-jdk=build --verbose -- /') \
    >"$WORK/log" 2>&1) || { cat "$WORK/log" >&2; exit 1; }
  grep -q '^major agent: on a woven JDK' "$WORK/log" || { cat "$WORK/log" >&2; exit 1; }
  seen_woven=$(sed -n 's/^major agent: \([0-9]*\) classes seen, \([0-9]*\) woven.*/saw \1 classes, wove \2/p' "$WORK/log")
  if [ -n "$AGENT_B" ]; then
    # shellcheck disable=SC2046
    (cd "$WORK/scratch" && $(command_of major-warm-b "$p") >"$WORK/log" 2>&1) ||
      { cat "$WORK/log" >&2; exit 1; }
  fi
  ltw_note=""
  if [ "$ltw" = 1 ]; then
    rm -rf "$WORK/out"
    # shellcheck disable=SC2046
    (cd "$WORK/scratch" && $(command_of ltw "$p" | sed 's/-javaagent/-Dorg.aspectj.weaver.showWeaveInfo=true -javaagent/') \
      >"$WORK/log" 2>&1) || { cat "$WORK/log" >&2; exit 1; }
    n=$(sed -n "s/.*weaveinfo Join point .* in Type '\([^']*\)'.*/\1/p" "$WORK/log" | sort -u | wc -l)
    ltw_note="; AspectJ LTW wove $n classes"
    [ "$p" = javac ] && ltw_note+=" ($(wc -l <"$WORK/excluded.txt") sealed classes and records excluded)"
  fi
  echo
  echo "$p: major's agent ${seen:-?} (on the woven JDK: ${seen_woven:-?})$ltw_note"
  for ((r = 0; r < RUNS; r++)); do
    n=${#variants[@]}
    for ((i = 0; i < n; i++)); do
      v=${variants[$(((r + i) % n))]}
      run_variant "$v" "$p"
    done
    echo "  round $((r + 1)) done, load $(cut -d' ' -f1 /proc/loadavg)" >&2
  done
  python3 - "$WORK" "$p" "${variants[@]}" <<'EOF'
import statistics, sys
work, program, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
labels = {
    'java': 'java', 'xshare-off': 'java -Xshare:off',
    'major-nocache': 'major run, no class cache', 'major-first': 'major run, first run',
    'major-cold': 'major run, class cache cold',
    'major-warm': 'major run, class cache warm',
    'major-woven': 'major run, woven JDK (cached)', 'ltw': 'AspectJ LTW (application classes)',
    'major-cold-b': 'major run, class cache cold (B)',
    'major-warm-b': 'major run, class cache warm (B)',
}
times = {}
for v in variants:
    with open(f'{work}/times-{program}-{v}') as f:
        rows = [tuple(map(float, line.split())) for line in f]
    walls = sorted(w for w, _ in rows)
    times[v] = (walls[0], statistics.median_low(walls), min(c for _, c in rows))
base = times['java'][0]
print(f"{'':36} {'best s':>7} {'median':>7} {'CPU s':>7} {'ratio':>7} {'+ms':>6}")
for v in variants:
    best, median, cpu = times[v]
    print(f"{labels[v]:36} {best / 1e3:7.3f} {median / 1e3:7.3f} {cpu / 1e3:7.3f} "
          f"{best / base:6.2f}x {best - base:+6.0f}")
def target(name, ok):
    print(f"  target: {name}: {'ok' if ok else 'MISSED'}")
if program == 'hello':
    target('cache warm (woven JDK) at most +60 ms over java', times['major-woven'][0] - base <= 60)
    target('cache cold at most +150 ms over java', times['major-cold'][0] - base <= 150)
    target('first run at most +150 ms over java', times['major-first'][0] - base <= 150)
if 'ltw' in times:
    ltw = times['ltw'][0]
    target(f"major run (first run) faster than AspectJ LTW ({ltw / times['major-first'][0]:.2f}x; "
           f"cache cold {ltw / times['major-cold'][0]:.2f}x, warm {ltw / times['major-warm'][0]:.2f}x)",
           times['major-first'][0] < ltw)
EOF
done
echo
echo "uptime at end: $(uptime)"
