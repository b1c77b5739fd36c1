/*
 * method_counter: a JVMTI agent that counts method entries, independently of
 * major, as the oracle for execution counts of woven programs.
 *
 *   java -agentpath:/path/libmethod_counter.so=out=FILE[,prefix=PKG/][,bypass=1][,snapshot=CLASS] ...
 *
 * Every MethodEntry event from the end of VM initialization on is counted per
 * method. With bypass=1 (a JDK woven with major's full coverage), only entries
 * that woven code would advise are counted: once the VM has booted
 * (jdk.internal.misc.VM.initLevel >= 4, what VM.isBooted() tests) and while
 * the thread's bypass field (java.lang.Thread.major$dib) is clear; the others
 * are counted apart and their total printed to stderr. At VM death one line
 * per method whose class name (internal form) starts with the prefix is
 * written to FILE (first, with snapshot=CLASS, the static method dump() of
 * CLASS is called, with the bypass set and counting stopped: a woven counter
 * takes its snapshot at the same moment; with bypass=1 the bypass of every
 * thread is set before counting stops, so no thread adds to either count
 * after that):
 *
 *   <count> <class internal name>.<method name><descriptor>
 *
 * Methods are keyed by jmethodID in an open-addressing table guarded by a raw
 * monitor (MethodEntry events come from every thread).
 */
#include <jvmti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    jmethodID method;
    unsigned long long count;
} slot;

static jvmtiEnv *jvmti;
static jrawMonitorID lock;
static slot *table;
static size_t capacity = 1 << 16;
static size_t used;
static char out_path[4096];
static char prefix[1024];
static char snapshot[1024];
static int bypass;
static jfieldID dib_field;
static jclass vm_class;
static jfieldID init_level;
static volatile int booted;
/* Set by on_init: entries are counted from then on. */
static volatile int counting;
static unsigned long long bypassed;

static size_t hash(jmethodID m) {
    size_t h = (size_t) m;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static slot *find(slot *t, size_t cap, jmethodID m) {
    size_t i = hash(m) & (cap - 1);
    while (t[i].method != NULL && t[i].method != m) {
        i = (i + 1) & (cap - 1);
    }
    return &t[i];
}

static void grow(void) {
    size_t cap = capacity * 2;
    slot *t = calloc(cap, sizeof(slot));
    if (t == NULL) {
        fprintf(stderr, "method_counter: out of memory\n");
        exit(3);
    }
    for (size_t i = 0; i < capacity; i++) {
        if (table[i].method != NULL) {
            *find(t, cap, table[i].method) = table[i];
        }
    }
    free(table);
    table = t;
    capacity = cap;
}

/* Whether woven code would run its advice now (bypass=1), as
 * java.lang.MajorBypass.active() decides. */
static int advised(JNIEnv *jni, jthread thread) {
    if (!booted) {
        if ((*jni)->GetStaticIntField(jni, vm_class, init_level) < 4) {
            return 0;
        }
        booted = 1;
    }
    return thread != NULL && !(*jni)->GetBooleanField(jni, thread, dib_field);
}

static void JNICALL on_entry(jvmtiEnv *env, JNIEnv *jni, jthread thread, jmethodID method) {
    (void) env;
    if (!counting) {
        return;
    }
    if (bypass && !advised(jni, thread)) {
        (*jvmti)->RawMonitorEnter(jvmti, lock);
        bypassed++;
        (*jvmti)->RawMonitorExit(jvmti, lock);
        return;
    }
    (*jvmti)->RawMonitorEnter(jvmti, lock);
    slot *s = find(table, capacity, method);
    if (s->method == NULL) {
        s->method = method;
        if (++used * 2 > capacity) {
            grow();
            s = find(table, capacity, method);
        }
    }
    s->count++;
    (*jvmti)->RawMonitorExit(jvmti, lock);
}

/* bypass=1: JVMTI posts MethodEntry only from VM init on, a little after the
 * end of System.initPhase3, when woven code starts to advise. So that a woven
 * counter can tell its executions from before this point, the agent sets the
 * system property method_counter.live to "1" before it starts counting. */
static void JNICALL on_init(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
    (void) env;
    if (bypass) {
        jclass t = (*jni)->FindClass(jni, "java/lang/Thread");
        dib_field = t ? (*jni)->GetFieldID(jni, t, "major$dib", "Z") : NULL;
        jclass vm = (*jni)->FindClass(jni, "jdk/internal/misc/VM");
        init_level = vm ? (*jni)->GetStaticFieldID(jni, vm, "initLevel", "I") : NULL;
        if (dib_field == NULL || init_level == NULL) {
            (*jni)->ExceptionClear(jni);
            fprintf(stderr, "method_counter: bypass=1 needs a JDK woven with major's full coverage\n");
            exit(3);
        }
        vm_class = (jclass) (*jni)->NewGlobalRef(jni, vm);
        jclass system = (*jni)->FindClass(jni, "java/lang/System");
        jmethodID set = system ? (*jni)->GetStaticMethodID(jni, system, "setProperty",
            "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;") : NULL;
        if (set == NULL) {
            (*jni)->ExceptionClear(jni);
            fprintf(stderr, "method_counter: no System.setProperty\n");
            exit(3);
        }
        /* Set with the thread's bypass set: the call itself is advised nowhere
         * (and the oracle is not counting yet). */
        (*jni)->SetBooleanField(jni, thread, dib_field, JNI_TRUE);
        (*jni)->CallStaticObjectMethod(jni, system, set, (*jni)->NewStringUTF(jni, "method_counter.live"),
            (*jni)->NewStringUTF(jni, "1"));
        (*jni)->SetBooleanField(jni, thread, dib_field, JNI_FALSE);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionDescribe(jni);
            exit(3);
        }
    }
    counting = 1;
}

static void JNICALL on_death(jvmtiEnv *env, JNIEnv *jni) {
    /* bypass=1: every thread's bypass is set first, so that woven code stops
     * advising in every thread while this agent still counts (entries with
     * the bypass set are not counted): daemon threads still running cannot
     * add to the woven counter after this agent stopped counting. */
    if (bypass) {
        jint n = 0;
        jthread *threads = NULL;
        if ((*env)->GetAllThreads(env, &n, &threads) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < n; i++) {
                (*jni)->SetBooleanField(jni, threads[i], dib_field, JNI_TRUE);
            }
            (*env)->Deallocate(env, (unsigned char *) threads);
        }
    }
    (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
    if (snapshot[0] != '\0') {
        jthread self = NULL;
        (*env)->GetCurrentThread(env, &self);
        /* Finding the class runs class-loading code: in the bypass too. */
        if (bypass && self != NULL) {
            (*jni)->SetBooleanField(jni, self, dib_field, JNI_TRUE);
        }
        jclass c = (*jni)->FindClass(jni, snapshot);
        jmethodID dump = c ? (*jni)->GetStaticMethodID(jni, c, "dump", "()V") : NULL;
        if (dump == NULL) {
            (*jni)->ExceptionDescribe(jni);
            fprintf(stderr, "method_counter: no static dump() in %s\n", snapshot);
        } else {
            (*jni)->CallStaticVoidMethod(jni, c, dump);
            if ((*jni)->ExceptionCheck(jni)) {
                (*jni)->ExceptionDescribe(jni);
            }
        }
    }
    (*env)->RawMonitorEnter(env, lock);
    FILE *f = fopen(out_path, "w");
    if (f == NULL) {
        fprintf(stderr, "method_counter: cannot write %s\n", out_path);
        (*env)->RawMonitorExit(env, lock);
        return;
    }
    size_t plen = strlen(prefix);
    for (size_t i = 0; i < capacity; i++) {
        if (table[i].method == NULL) {
            continue;
        }
        jclass cls;
        char *csig = NULL, *name = NULL, *msig = NULL;
        if ((*env)->GetMethodDeclaringClass(env, table[i].method, &cls) != JVMTI_ERROR_NONE
            || (*env)->GetClassSignature(env, cls, &csig, NULL) != JVMTI_ERROR_NONE
            || (*env)->GetMethodName(env, table[i].method, &name, &msig, NULL) != JVMTI_ERROR_NONE) {
            continue;
        }
        /* "Lapp/Main;" -> "app/Main" */
        size_t clen = strlen(csig);
        if (clen >= 2 && csig[0] == 'L' && csig[clen - 1] == ';') {
            csig[clen - 1] = '\0';
            if (strncmp(csig + 1, prefix, plen) == 0) {
                fprintf(f, "%llu %s.%s%s\n", table[i].count, csig + 1, name, msig);
            }
        }
        (*env)->Deallocate(env, (unsigned char *) csig);
        (*env)->Deallocate(env, (unsigned char *) name);
        (*env)->Deallocate(env, (unsigned char *) msig);
    }
    fclose(f);
    if (bypass) {
        fprintf(stderr, "method_counter: %llu entries not advised (before boot or in the bypass)\n", bypassed);
    }
    (*env)->RawMonitorExit(env, lock);
}

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
    option(options, "prefix", prefix, sizeof prefix);
    option(options, "snapshot", snapshot, sizeof snapshot);
    char flag[8];
    option(options, "bypass", flag, sizeof flag);
    bypass = flag[0] == '1';
    if (out_path[0] == '\0') {
        fprintf(stderr, "method_counter: usage: -agentpath:libmethod_counter.so=out=FILE[,prefix=PKG/]\n");
        return JNI_ERR;
    }
    if ((*vm)->GetEnv(vm, (void **) &jvmti, JVMTI_VERSION_11) != JNI_OK) {
        fprintf(stderr, "method_counter: no JVMTI 11\n");
        return JNI_ERR;
    }
    table = calloc(capacity, sizeof(slot));
    if (table == NULL) {
        return JNI_ERR;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_method_entry_events = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "method_counter: cannot get method entry events\n");
        return JNI_ERR;
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = on_init;
    cb.VMDeath = on_death;
    cb.MethodEntry = on_entry;
    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
    (*jvmti)->CreateRawMonitor(jvmti, "method_counter", &lock);
    /* MethodEntry is enabled from the start, though JVMTI posts it only
     * from VM init on and it is counted only once on_init has run: so every
     * thread interprets from the start, and no method compiled (with its
     * callees inlined, which post no events) before counting starts can
     * hide executions from this count. */
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return JNI_OK;
}
