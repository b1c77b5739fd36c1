/*
 * method_counter: a JVMTI agent that counts method entries, independently of
 * major, as the oracle for execution counts of woven programs.
 *
 *   java -agentpath:/path/libmethod_counter.so=out=FILE[,prefix=PKG/] ...
 *
 * Every MethodEntry event from the end of VM initialization on is counted per
 * method; at VM death one line per method whose class name (internal form)
 * starts with the prefix is written to FILE:
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

static void JNICALL on_entry(jvmtiEnv *env, JNIEnv *jni, jthread thread, jmethodID method) {
    (void) env;
    (void) jni;
    (void) thread;
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

static void JNICALL on_init(jvmtiEnv *env, JNIEnv *jni, jthread thread) {
    (void) jni;
    (void) thread;
    (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
}

static void JNICALL on_death(jvmtiEnv *env, JNIEnv *jni) {
    (void) jni;
    (*env)->SetEventNotificationMode(env, JVMTI_DISABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
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
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return JNI_OK;
}
