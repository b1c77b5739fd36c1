/*
 * cct_oracle: a JVMTI agent that builds the calling-context tree (CCT) of a
 * program, independently of major, as the oracle for major's CCT profiler.
 *
 *   java -agentpath:/path/libcct_oracle.so=out=FILE[,format=cct][,start=PREFIX][,check=1][,show=1] ...
 *
 * From VM init on, every MethodEntry and MethodExit event (native methods
 * included; MethodExit is posted for exits by exception too) moves a
 * per-thread cursor in that thread's own tree (JVMTI thread-local storage):
 * an entry enters (or creates) the child of the current node named by the
 * method's frame name and adds one to its count, an exit goes back to the
 * parent. Frames already on a thread's stack when recording starts are not in
 * its tree: an exit with an empty stack is dropped (and counted).
 *
 * With start=PREFIX, a thread records only inside a frame whose name starts
 * with PREFIX (that frame is the root of its paths; the frames around it are
 * not recorded). With check=1, every event compares the thread's recorded
 * stack depth with its real one (GetFrameCount), and the number of
 * mismatches is printed at exit: zero when the entries and exits balance.
 * With show=1, the threads alive at VM init and their frames are printed.
 *
 * At VM death the trees of all threads are merged by frame name (thread
 * identity is dropped) and written to FILE as `calls.folded`: one line per
 * node, `frame;frame;...;frame COUNT`, the path from the outermost recorded
 * frame, COUNT the number of entries into that context; lines sorted
 * bytewise (siblings are written in bytewise order of their names, parents
 * before children: the same order as long as no frame name is a proper
 * prefix of a sibling's, which a name ending in its parameter list cannot
 * be). With format=cct, FILE is instead the node table of major's raw
 * profile format 2 (`major-cct 2`, `metrics calls`, `frames N` and N frame
 * names, `nodes M` and M lines `PARENT<TAB>FRAME<TAB>COUNT`, PARENT an
 * earlier line's number or -1): linear in the number of nodes, where the
 * folded form repeats every path (4.4 GB for javac's tree). A summary of
 * what was seen is printed to stderr.
 *
 * The frame name: `<binary class name with dots>.<method>(<parameter types in
 * source form, comma-separated>)`, e.g. `java.lang.String.<init>(byte[],byte)`;
 * hidden classes lose their `/0x...` suffix and lambda classes the number
 * after `$$Lambda$` (frame_name below; major's Rust and Java sides make the
 * same strings).
 *
 * Thread safety: each thread touches only its own tree; the frame names
 * (cached per jmethodID, interned to small integers) are shared under a raw
 * monitor, and each thread keeps its own cache of them. VM death waits for
 * the callbacks in flight to leave before it reads the trees.
 */
#include <jvmti.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (p == NULL) {
        fprintf(stderr, "cct_oracle: out of memory (%zu bytes)\n", n);
        exit(3);
    }
    return p;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (p == NULL) {
        fprintf(stderr, "cct_oracle: out of memory (%zu x %zu bytes)\n", n, size);
        exit(3);
    }
    return p;
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n);
    if (p == NULL) {
        fprintf(stderr, "cct_oracle: out of memory (%zu bytes)\n", n);
        exit(3);
    }
    return p;
}

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

/* A growable byte buffer. */
typedef struct {
    char *s;
    size_t len, cap;
} buf;

static void buf_put(buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap) {
            cap *= 2;
        }
        b->s = xrealloc(b->s, cap);
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_str(buf *b, const char *s) {
    buf_put(b, s, strlen(s));
}

/* ------------------------------------------------------------ frame names */

/* Appends the source form of the field descriptor at *d ("I", "[[Ljava/lang/String;")
 * and advances *d past it. */
static void type_name(buf *b, const char **d) {
    int dims = 0;
    while (**d == '[') {
        dims++;
        (*d)++;
    }
    const char *prim = NULL;
    switch (**d) {
    case 'B': prim = "byte"; break;
    case 'C': prim = "char"; break;
    case 'D': prim = "double"; break;
    case 'F': prim = "float"; break;
    case 'I': prim = "int"; break;
    case 'J': prim = "long"; break;
    case 'S': prim = "short"; break;
    case 'Z': prim = "boolean"; break;
    case 'V': prim = "void"; break;
    case 'L': {
        (*d)++;
        while (**d != '\0' && **d != ';') {
            char c = **d == '/' ? '.' : **d;
            buf_put(b, &c, 1);
            (*d)++;
        }
        if (**d == ';') {
            (*d)++;
        }
        break;
    }
    default:
        /* A malformed descriptor: keep the character, stop the walk. */
        buf_put(b, *d, **d ? 1 : 0);
        if (**d) {
            (*d)++;
        }
        break;
    }
    if (prim != NULL) {
        buf_str(b, prim);
        (*d)++;
    }
    while (dims-- > 0) {
        buf_str(b, "[]");
    }
}

/* Appends the binary name with dots of a class given in internal form
 * ("java/util/HashMap", "Foo$$Lambda$14/0x0000000800c01234"), normalised:
 * a hidden class's `/0x...` (or `+0x...`, `.0x...`) suffix is dropped, and
 * the number after `$$Lambda$`. */
static void class_name(buf *b, const char *cls, size_t n) {
    /* The hidden-class suffix: a separator then 0x and hex digits to the end. */
    for (size_t i = n; i-- > 0;) {
        if (cls[i] == '/' || cls[i] == '+' || cls[i] == '.') {
            if (i + 2 < n && cls[i + 1] == '0' && cls[i + 2] == 'x') {
                size_t j = i + 3;
                while (j < n && strchr("0123456789abcdefABCDEF", cls[j]) != NULL) {
                    j++;
                }
                if (j == n) {
                    n = i;
                }
            }
            break;
        }
    }
    size_t start = b->len;
    for (size_t i = 0; i < n; i++) {
        char c = cls[i] == '/' ? '.' : cls[i];
        buf_put(b, &c, 1);
    }
    /* "$$Lambda$<digits>" at the end -> "$$Lambda" */
    const char *tag = "$$Lambda$";
    size_t tl = strlen(tag);
    char *name = b->s + start;
    size_t len = b->len - start;
    for (size_t i = 0; i + tl <= len; i++) {
        if (memcmp(name + i, tag, tl) == 0) {
            size_t j = i + tl;
            while (j < len && name[j] >= '0' && name[j] <= '9') {
                j++;
            }
            if (j > i + tl && j == len) {
                b->len = start + i + tl - 1;
                b->s[b->len] = '\0';
                break;
            }
        }
    }
}

/* The frame name of a method: class (internal form, or a signature "L...;"),
 * method name and method descriptor; a malloc'd string. */
static char *frame_name(const char *cls, const char *method, const char *desc) {
    buf b = {0};
    size_t n = strlen(cls);
    if (n >= 2 && cls[0] == 'L' && cls[n - 1] == ';') {
        cls++;
        n -= 2;
    }
    class_name(&b, cls, n);
    buf_str(&b, ".");
    buf_str(&b, method);
    buf_str(&b, "(");
    const char *d = desc;
    if (*d == '(') {
        d++;
    }
    int first = 1;
    while (*d != '\0' && *d != ')') {
        if (!first) {
            buf_str(&b, ",");
        }
        first = 0;
        type_name(&b, &d);
    }
    buf_str(&b, ")");
    return b.s;
}

/* ------------------------------------------------------------ shared state */

static jvmtiEnv *jvmti;
static jrawMonitorID lock;
static char out_path[4096];
static char start_prefix[1024];
static size_t start_len;
static int check;
static int show;
static int format_cct;

/* Interned frame names: id -> name, and name -> id by open addressing. */
static char **names;
static size_t names_len, names_cap;
static int32_t *name_index; /* ids + 1, 0 = empty */
static size_t name_index_cap;
/* Whether a frame starts a recorded region (start=PREFIX), by id. */
static unsigned char *is_start;

/* jmethodID -> frame id, shared (under the lock). */
typedef struct {
    jmethodID method;
    int32_t frame;
} method_slot;
static method_slot *methods;
static size_t methods_cap, methods_used;

/* Recording is on from VM init to VM death; callbacks in flight are counted
 * so that VM death can wait for them before it reads the trees. */
static atomic_int recording;
static atomic_int stopped;
static atomic_long in_flight;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    while (*s) {
        h = (h ^ (unsigned char) *s++) * 1099511628211ULL;
    }
    return h;
}

/* Interns a name (the caller holds the lock); takes ownership of it. */
static int32_t intern(char *name) {
    if ((names_len + 1) * 2 > name_index_cap) {
        size_t cap = name_index_cap ? name_index_cap * 2 : 1 << 12;
        int32_t *t = xcalloc(cap, sizeof *t);
        for (size_t i = 0; i < names_len; i++) {
            size_t j = hash_str(names[i]) & (cap - 1);
            while (t[j] != 0) {
                j = (j + 1) & (cap - 1);
            }
            t[j] = (int32_t) i + 1;
        }
        free(name_index);
        name_index = t;
        name_index_cap = cap;
    }
    size_t j = hash_str(name) & (name_index_cap - 1);
    while (name_index[j] != 0) {
        if (strcmp(names[name_index[j] - 1], name) == 0) {
            free(name);
            return name_index[j] - 1;
        }
        j = (j + 1) & (name_index_cap - 1);
    }
    if (names_len == names_cap) {
        names_cap = names_cap ? names_cap * 2 : 1024;
        names = xrealloc(names, names_cap * sizeof *names);
        is_start = xrealloc(is_start, names_cap);
    }
    names[names_len] = name;
    is_start[names_len] = start_len == 0 || strncmp(name, start_prefix, start_len) == 0;
    name_index[j] = (int32_t) names_len + 1;
    return (int32_t) names_len++;
}

static method_slot *find_method(method_slot *t, size_t cap, jmethodID m) {
    size_t i = mix((uint64_t) (uintptr_t) m) & (cap - 1);
    while (t[i].method != NULL && t[i].method != m) {
        i = (i + 1) & (cap - 1);
    }
    return &t[i];
}

/* The frame id of a method, computed once per jmethodID (under the lock). */
static int32_t method_frame(JNIEnv *jni, jmethodID m) {
    (*jvmti)->RawMonitorEnter(jvmti, lock);
    method_slot *s = find_method(methods, methods_cap, m);
    if (s->method == NULL) {
        jclass cls = NULL;
        char *csig = NULL, *name = NULL, *msig = NULL;
        char *frame;
        if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) == JVMTI_ERROR_NONE
            && (*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL) == JVMTI_ERROR_NONE
            && (*jvmti)->GetMethodName(jvmti, m, &name, &msig, NULL) == JVMTI_ERROR_NONE) {
            frame = frame_name(csig, name, msig);
        } else {
            frame = strdup("?.?()");
        }
        if (cls != NULL) {
            (*jni)->DeleteLocalRef(jni, cls);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *) csig);
        (*jvmti)->Deallocate(jvmti, (unsigned char *) name);
        (*jvmti)->Deallocate(jvmti, (unsigned char *) msig);
        s->method = m;
        s->frame = intern(frame);
        if (++methods_used * 2 > methods_cap) {
            size_t cap = methods_cap * 2;
            method_slot *t = xcalloc(cap, sizeof *t);
            for (size_t i = 0; i < methods_cap; i++) {
                if (methods[i].method != NULL) {
                    *find_method(t, cap, methods[i].method) = methods[i];
                }
            }
            free(methods);
            methods = t;
            methods_cap = cap;
            s = find_method(methods, methods_cap, m);
        }
    }
    int32_t f = s->frame;
    (*jvmti)->RawMonitorExit(jvmti, lock);
    return f;
}

/* ------------------------------------------------------------------ trees */

/* A tree: node 0 is the root (no frame); children are found by
 * (parent, frame) in an open-addressing table. Parents come before their
 * children in the node array. */
typedef struct {
    int32_t *frame, *parent;
    uint64_t *count;
    size_t len, cap;
    int32_t *child; /* node ids + 1, 0 = empty */
    size_t child_cap;
} tree;

static void tree_init(tree *t) {
    memset(t, 0, sizeof *t);
    t->cap = 64;
    t->frame = xmalloc(t->cap * sizeof *t->frame);
    t->parent = xmalloc(t->cap * sizeof *t->parent);
    t->count = xmalloc(t->cap * sizeof *t->count);
    t->frame[0] = -1;
    t->parent[0] = -1;
    t->count[0] = 0;
    t->len = 1;
    t->child_cap = 128;
    t->child = xcalloc(t->child_cap, sizeof *t->child);
}

static size_t child_slot(const tree *t, int32_t *tab, size_t cap, int32_t parent, int32_t frame) {
    size_t i = mix(((uint64_t) (uint32_t) parent << 32) | (uint32_t) frame) & (cap - 1);
    while (tab[i] != 0) {
        int32_t n = tab[i] - 1;
        if (t->parent[n] == parent && t->frame[n] == frame) {
            break;
        }
        i = (i + 1) & (cap - 1);
    }
    return i;
}

/* The child of `parent` named `frame`, created with count 0 if new. */
static int32_t tree_child(tree *t, int32_t parent, int32_t frame) {
    size_t i = child_slot(t, t->child, t->child_cap, parent, frame);
    if (t->child[i] != 0) {
        return t->child[i] - 1;
    }
    if (t->len == t->cap) {
        t->cap *= 2;
        t->frame = xrealloc(t->frame, t->cap * sizeof *t->frame);
        t->parent = xrealloc(t->parent, t->cap * sizeof *t->parent);
        t->count = xrealloc(t->count, t->cap * sizeof *t->count);
    }
    int32_t n = (int32_t) t->len++;
    t->frame[n] = frame;
    t->parent[n] = parent;
    t->count[n] = 0;
    t->child[i] = n + 1;
    if (t->len * 2 > t->child_cap) {
        size_t cap = t->child_cap * 2;
        int32_t *tab = xcalloc(cap, sizeof *tab);
        for (size_t k = 1; k < t->len; k++) {
            tab[child_slot(t, tab, cap, t->parent[k], t->frame[k])] = (int32_t) k + 1;
        }
        free(t->child);
        t->child = tab;
        t->child_cap = cap;
    }
    return n;
}

/* ------------------------------------------------------- per-thread state */

typedef struct thread_state {
    tree tree;
    /* The recorded stack: node ids, or -1 for a frame not recorded (outside
     * a start frame). */
    int32_t *stack;
    size_t depth, stack_cap;
    /* check=1: the real frame count minus the recorded depth, from the first event. */
    jint base;
    /* This thread's cache of frame ids. */
    method_slot *cache;
    size_t cache_cap, cache_used;
    struct thread_state *next;
} thread_state;

static thread_state *threads; /* all states, under the lock */
static size_t thread_count;
static atomic_ulong entries, exits, exits_by_exception, dropped_exits, depth_mismatches;

static int32_t thread_frame(thread_state *ts, JNIEnv *jni, jmethodID m) {
    method_slot *s = find_method(ts->cache, ts->cache_cap, m);
    if (s->method == m) {
        return s->frame;
    }
    int32_t f = method_frame(jni, m);
    s->method = m;
    s->frame = f;
    if (++ts->cache_used * 2 > ts->cache_cap) {
        size_t cap = ts->cache_cap * 2;
        method_slot *t = xcalloc(cap, sizeof *t);
        for (size_t i = 0; i < ts->cache_cap; i++) {
            if (ts->cache[i].method != NULL) {
                *find_method(t, cap, ts->cache[i].method) = ts->cache[i];
            }
        }
        free(ts->cache);
        ts->cache = t;
        ts->cache_cap = cap;
    }
    return f;
}

static thread_state *current(int create) {
    thread_state *ts = NULL;
    (*jvmti)->GetThreadLocalStorage(jvmti, NULL, (void **) &ts);
    if (ts != NULL || !create) {
        return ts;
    }
    ts = xcalloc(1, sizeof *ts);
    tree_init(&ts->tree);
    ts->stack_cap = 256;
    ts->stack = xmalloc(ts->stack_cap * sizeof *ts->stack);
    ts->cache_cap = 256;
    ts->cache = xcalloc(ts->cache_cap, sizeof *ts->cache);
    ts->base = -1;
    (*jvmti)->SetThreadLocalStorage(jvmti, NULL, ts);
    (*jvmti)->RawMonitorEnter(jvmti, lock);
    ts->next = threads;
    threads = ts;
    thread_count++;
    (*jvmti)->RawMonitorExit(jvmti, lock);
    return ts;
}

/* check=1: compares the real frame count with the recorded depth plus
 * `extra`. At an entry the new frame is on the stack, and at an exit the
 * exiting one still is. The first event of a thread fixes the base. */
static void check_depth(thread_state *ts, jthread thread, jint extra) {
    jint n = 0;
    if ((*jvmti)->GetFrameCount(jvmti, thread, &n) != JVMTI_ERROR_NONE) {
        return;
    }
    jint expected = (jint) ts->depth + extra;
    if (ts->base < 0) {
        ts->base = n - expected;
    } else if (n != ts->base + expected) {
        if (atomic_fetch_add(&depth_mismatches, 1) < 10) {
            fprintf(stderr, "cct_oracle: depth mismatch: %d frames, %d recorded + base %d\n", (int) n,
                (int) expected, (int) ts->base);
        }
        ts->base = n - expected;
    }
}

static int enter(void) {
    atomic_fetch_add(&in_flight, 1);
    if (!atomic_load(&recording) || atomic_load(&stopped)) {
        atomic_fetch_sub(&in_flight, 1);
        return 0;
    }
    return 1;
}

static void leave(void) {
    atomic_fetch_sub(&in_flight, 1);
}

static void JNICALL on_method_entry(jvmtiEnv *env, JNIEnv *jni, jthread thread, jmethodID method) {
    (void) env;
    if (!enter()) {
        return;
    }
    thread_state *ts = current(1);
    int32_t frame = thread_frame(ts, jni, method);
    int32_t top = ts->depth ? ts->stack[ts->depth - 1] : 0;
    int32_t node = -1;
    if (top >= 0) {
        /* Inside a recorded frame (or at the root): record. */
        if (top > 0 || is_start[frame]) {
            node = tree_child(&ts->tree, top, frame);
        }
    } else if (is_start[frame]) {
        node = tree_child(&ts->tree, 0, frame);
    }
    if (node >= 0) {
        ts->tree.count[node]++;
    }
    if (ts->depth == ts->stack_cap) {
        ts->stack_cap *= 2;
        ts->stack = xrealloc(ts->stack, ts->stack_cap * sizeof *ts->stack);
    }
    ts->stack[ts->depth++] = node;
    atomic_fetch_add(&entries, 1);
    if (check) {
        check_depth(ts, thread, 0);
    }
    leave();
}

static void JNICALL on_method_exit(jvmtiEnv *env, JNIEnv *jni, jthread thread, jmethodID method,
    jboolean was_popped_by_exception, jvalue return_value) {
    (void) env;
    (void) jni;
    (void) method;
    (void) return_value;
    if (!enter()) {
        return;
    }
    thread_state *ts = current(check);
    if (ts == NULL || ts->depth == 0) {
        /* A frame from before recording started. */
        atomic_fetch_add(&dropped_exits, 1);
        if (ts != NULL && check) {
            check_depth(ts, thread, 0);
            ts->base--;
        }
        leave();
        return;
    }
    if (check) {
        check_depth(ts, thread, 0);
    }
    ts->depth--;
    atomic_fetch_add(&exits, 1);
    if (was_popped_by_exception) {
        atomic_fetch_add(&exits_by_exception, 1);
    }
    leave();
}

/* --------------------------------------------------------------- the dump */

static const tree *sort_tree;
static int by_name(const void *a, const void *b) {
    int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
    return strcmp(names[sort_tree->frame[x]], names[sort_tree->frame[y]]);
}

/* Writes the merged tree: depth-first, siblings in bytewise order. */
static void write_folded(const tree *t, FILE *f) {
    /* Children lists: first[n] .. first[n+1] in kids. */
    size_t *first = xcalloc(t->len + 1, sizeof *first);
    for (size_t n = 1; n < t->len; n++) {
        first[t->parent[n] + 1]++;
    }
    for (size_t n = 0; n < t->len; n++) {
        first[n + 1] += first[n];
    }
    int32_t *kids = xmalloc(t->len * sizeof *kids);
    size_t *fill = xmalloc(t->len * sizeof *fill);
    memcpy(fill, first, t->len * sizeof *fill);
    for (size_t n = 1; n < t->len; n++) {
        kids[fill[t->parent[n]]++] = (int32_t) n;
    }
    sort_tree = t;
    for (size_t n = 0; n < t->len; n++) {
        qsort(kids + first[n], first[n + 1] - first[n], sizeof *kids, by_name);
    }
    /* An explicit stack of (node, next child index), and the path so far. */
    typedef struct {
        int32_t node;
        size_t next;
        size_t path_len;
    } item;
    size_t cap = 64, sp = 0;
    item *st = xmalloc(cap * sizeof *st);
    buf path = {0};
    buf_put(&path, "", 0);
    st[sp++] = (item) {0, first[0], 0};
    while (sp > 0) {
        item *it = &st[sp - 1];
        if (it->next == first[it->node + 1]) {
            sp--;
            continue;
        }
        int32_t c = kids[it->next++];
        path.len = it->path_len;
        if (path.len > 0) {
            buf_put(&path, ";", 1);
        }
        buf_str(&path, names[t->frame[c]]);
        fprintf(f, "%s %llu\n", path.s, (unsigned long long) t->count[c]);
        if (sp == cap) {
            cap *= 2;
            st = xrealloc(st, cap * sizeof *st);
        }
        st[sp++] = (item) {c, first[c], path.len};
    }
    free(path.s);
    free(st);
    free(fill);
    free(kids);
    free(first);
}

/* format=cct: the merged tree as major's raw profile format 2. Node n of the
 * tree (n >= 1; node 0 is the root, not written) is line n - 1; parents come
 * before their children in the node array, as the format needs. Only the
 * frames the tree uses are listed, renumbered in order of first use. */
static void write_cct(const tree *t, FILE *f) {
    int32_t *renumber = xmalloc((names_len ? names_len : 1) * sizeof *renumber);
    for (size_t i = 0; i < names_len; i++) {
        renumber[i] = -1;
    }
    int32_t used = 0;
    for (size_t n = 1; n < t->len; n++) {
        if (renumber[t->frame[n]] < 0) {
            renumber[t->frame[n]] = used++;
        }
    }
    int32_t *order = xmalloc((used ? used : 1) * sizeof *order);
    for (size_t i = 0; i < names_len; i++) {
        if (renumber[i] >= 0) {
            order[renumber[i]] = (int32_t) i;
        }
    }
    fprintf(f, "major-cct 2\nmetrics calls\nframes %d\n", (int) used);
    for (int32_t i = 0; i < used; i++) {
        fprintf(f, "%s\n", names[order[i]]);
    }
    fprintf(f, "nodes %zu\n", t->len - 1);
    for (size_t n = 1; n < t->len; n++) {
        fprintf(f, "%d\t%d\t%llu\n", (int) t->parent[n] - 1, (int) renumber[t->frame[n]],
            (unsigned long long) t->count[n]);
    }
    free(order);
    free(renumber);
}

/* show=1: prints every thread at VM init with the frames on its stack. */
static void show_threads(jvmtiEnv *env, JNIEnv *jni) {
    jint n = 0;
    jthread *all = NULL;
    if ((*env)->GetAllThreads(env, &n, &all) != JVMTI_ERROR_NONE) {
        return;
    }
    for (jint i = 0; i < n; i++) {
        jvmtiThreadInfo info;
        memset(&info, 0, sizeof info);
        (*env)->GetThreadInfo(env, all[i], &info);
        jvmtiFrameInfo frames[64];
        jint depth = 0;
        (*env)->GetStackTrace(env, all[i], 0, 64, frames, &depth);
        fprintf(stderr, "cct_oracle: at VM init, thread \"%s\"%s: %d frames\n", info.name ? info.name : "?",
            info.is_daemon ? " (daemon)" : "", (int) depth);
        for (jint k = 0; k < depth; k++) {
            jclass cls = NULL;
            char *csig = NULL, *name = NULL, *msig = NULL;
            if ((*env)->GetMethodDeclaringClass(env, frames[k].method, &cls) == JVMTI_ERROR_NONE
                && (*env)->GetClassSignature(env, cls, &csig, NULL) == JVMTI_ERROR_NONE
                && (*env)->GetMethodName(env, frames[k].method, &name, &msig, NULL) == JVMTI_ERROR_NONE) {
                char *frame = frame_name(csig, name, msig);
                fprintf(stderr, "cct_oracle:     %s\n", frame);
                free(frame);
            }
            (*env)->Deallocate(env, (unsigned char *) csig);
            (*env)->Deallocate(env, (unsigned char *) name);
            (*env)->Deallocate(env, (unsigned char *) msig);
        }
        (*env)->Deallocate(env, (unsigned char *) info.name);
    }
    (*env)->Deallocate(env, (unsigned char *) all);
    (void) jni;
}

static void JNICALL on_init(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
    (void) thread;
    if (show) {
        show_threads(env, jni);
    }
    atomic_store(&recording, 1);
}

static void JNICALL on_death(jvmtiEnv *env, JNIEnv *jni) {
    (void) jni;
    atomic_store(&stopped, 1);
    while (atomic_load(&in_flight) > 0) {
        sched_yield();
    }
    (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
    (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_METHOD_EXIT, NULL);
    (*env)->RawMonitorEnter(env, lock);
    tree merged;
    tree_init(&merged);
    int32_t *map = NULL;
    size_t map_cap = 0, open = 0;
    for (thread_state *ts = threads; ts != NULL; ts = ts->next) {
        const tree *t = &ts->tree;
        if (t->len > map_cap) {
            map_cap = t->len;
            map = xrealloc(map, map_cap * sizeof *map);
        }
        map[0] = 0;
        for (size_t n = 1; n < t->len; n++) {
            map[n] = tree_child(&merged, map[t->parent[n]], t->frame[n]);
            merged.count[map[n]] += t->count[n];
        }
        open += ts->depth;
    }
    FILE *f = fopen(out_path, "w");
    if (f == NULL) {
        fprintf(stderr, "cct_oracle: cannot write %s\n", out_path);
    } else {
        if (format_cct) {
            write_cct(&merged, f);
        } else {
            write_folded(&merged, f);
        }
        if (fclose(f) != 0) {
            fprintf(stderr, "cct_oracle: error writing %s\n", out_path);
        }
    }
    fprintf(stderr,
        "cct_oracle: %zu threads, %zu nodes, %zu methods, %lu entries, %lu exits (%lu by exception), "
        "%lu exits of earlier frames dropped, %zu frames open at exit",
        thread_count, merged.len - 1, methods_used, atomic_load(&entries), atomic_load(&exits),
        atomic_load(&exits_by_exception), atomic_load(&dropped_exits), open);
    if (check) {
        fprintf(stderr, ", %lu depth mismatches", atomic_load(&depth_mismatches));
    }
    fprintf(stderr, "\n");
    free(map);
    (*env)->RawMonitorExit(env, lock);
}

/* ------------------------------------------------------------------ setup */

static void option(const char *options, const char *key, char *dst, size_t n) {
    dst[0] = '\0';
    if (options == NULL) {
        return;
    }
    size_t klen = strlen(key);
    const char *p = options;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t) (end - p) : strlen(p);
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t v = len - klen - 1;
            if (v >= n) {
                v = n - 1;
            }
            memcpy(dst, p + klen + 1, v);
            dst[v] = '\0';
            return;
        }
        p += len;
        if (*p == ',') {
            p++;
        }
    }
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void) reserved;
    option(options, "out", out_path, sizeof out_path);
    option(options, "start", start_prefix, sizeof start_prefix);
    start_len = strlen(start_prefix);
    char flag[8];
    option(options, "check", flag, sizeof flag);
    check = flag[0] == '1';
    option(options, "show", flag, sizeof flag);
    show = flag[0] == '1';
    option(options, "format", flag, sizeof flag);
    if (flag[0] != '\0' && strcmp(flag, "cct") != 0 && strcmp(flag, "folded") != 0) {
        fprintf(stderr, "cct_oracle: unknown format=%s (folded or cct)\n", flag);
        return JNI_ERR;
    }
    format_cct = strcmp(flag, "cct") == 0;
    if (out_path[0] == '\0') {
        fprintf(stderr, "cct_oracle: usage: -agentpath:libcct_oracle.so=out=FILE[,format=cct][,start=PREFIX][,check=1][,show=1]\n");
        return JNI_ERR;
    }
    if ((*vm)->GetEnv(vm, (void **) &jvmti, JVMTI_VERSION_11) != JNI_OK) {
        fprintf(stderr, "cct_oracle: no JVMTI 11\n");
        return JNI_ERR;
    }
    methods_cap = 1 << 14;
    methods = xcalloc(methods_cap, sizeof *methods);
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_method_entry_events = 1;
    caps.can_generate_method_exit_events = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "cct_oracle: cannot get method entry and exit events\n");
        return JNI_ERR;
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = on_init;
    cb.VMDeath = on_death;
    cb.MethodEntry = on_method_entry;
    cb.MethodExit = on_method_exit;
    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
    (*jvmti)->CreateRawMonitor(jvmti, "cct_oracle", &lock);
    /* Enabled from the start (posted from VM init on): every thread
     * interprets from the start, so no compiled code with inlined callees
     * hides calls. */
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_METHOD_EXIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return JNI_OK;
}
