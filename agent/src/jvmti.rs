//! Minimal JNI and JVMTI bindings: only the types, functions and constants
//! the agent uses, laid out as `jni.h` and `jvmti.h` of JDK 17 lay them out
//! (the tables are append-only across JDK releases, so JDK 25 has the same
//! slots).
//!
//! The function tables are read by slot number (`jvmti.h` numbers JVMTI's
//! functions from 1; function `n` is at index `n - 1` of the table; JNI's
//! reserve four slots before `GetVersion`), rather than as structs of a few
//! hundred fields that would have to be spelt out in full. Why our own
//! bindings: no maintained crate covers JVMTI's early-phase capabilities and
//! the class file load hook with a layout we can check against the headers;
//! the few entries used here are checked against the JDK's headers by a test
//! (`tests/jvmti_layout.rs`).

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_uchar, c_void, CStr};

/// `jint`.
pub type jint = i32;
/// `jobject` (and `jclass`, `jthread`, `jthrowable`).
pub type jobject = *mut c_void;
/// `jvmtiError`.
pub type jvmtiError = u32;

/// `JNI_OK`.
pub const JNI_OK: jint = 0;
/// `JNI_ERR`.
pub const JNI_ERR: jint = -1;
/// `JVMTI_VERSION_11`: the first version that has every capability used here
/// (`can_generate_early_vmstart` came in 9).
pub const JVMTI_VERSION_11: jint = 0x300B_0000;
/// `JVMTI_ERROR_NONE`.
pub const JVMTI_ERROR_NONE: jvmtiError = 0;
/// `JVMTI_ENABLE`.
pub const JVMTI_ENABLE: jint = 1;
/// `JVMTI_EVENT_VM_INIT`.
pub const EVENT_VM_INIT: jint = 50;
/// `JVMTI_EVENT_VM_DEATH`.
pub const EVENT_VM_DEATH: jint = 51;
/// `JVMTI_EVENT_CLASS_FILE_LOAD_HOOK`.
pub const EVENT_CLASS_FILE_LOAD_HOOK: jint = 54;
/// `JVMTI_EVENT_VM_START`.
pub const EVENT_VM_START: jint = 57;
/// `JVMTI_PHASE_PRIMORDIAL`.
pub const PHASE_PRIMORDIAL: jint = 2;

/// A `JavaVM*`: a pointer to the invocation interface table.
pub type JavaVM = *const *const *const c_void;
/// A `JNIEnv*`: a pointer to the native interface table.
pub type JNIEnv = *const *const *const c_void;
/// A `jvmtiEnv*`: a pointer to the JVMTI function table.
pub type JvmtiEnv = *const *const *const c_void;

/// `jvmtiCapabilities`: 128 bits, the capabilities in declaration order
/// from the least significant bit of the first word (GCC's bit-field layout
/// on little-endian targets).
#[repr(C)]
#[derive(Default, Clone, Copy, Debug)]
pub struct Capabilities(pub [u32; 4]);

/// Bit of `can_generate_all_class_hook_events`.
pub const CAN_GENERATE_ALL_CLASS_HOOK_EVENTS: u32 = 26;
/// Bit of `can_generate_early_vmstart`.
pub const CAN_GENERATE_EARLY_VMSTART: u32 = 41;
/// Bit of `can_generate_early_class_hook_events`.
pub const CAN_GENERATE_EARLY_CLASS_HOOK_EVENTS: u32 = 42;

impl Capabilities {
    /// Sets capability bit `bit`.
    pub fn set(&mut self, bit: u32) {
        self.0[(bit / 32) as usize] |= 1 << (bit % 32);
    }

    /// Whether capability bit `bit` is set.
    pub fn has(&self, bit: u32) -> bool {
        self.0[(bit / 32) as usize] & (1 << (bit % 32)) != 0
    }
}

/// `void JNICALL VMStart(jvmtiEnv*, JNIEnv*)` (and `VMInit`, `VMDeath` with a thread).
pub type VmStartFn = unsafe extern "C" fn(JvmtiEnv, JNIEnv);
/// `void JNICALL VMInit(jvmtiEnv*, JNIEnv*, jthread)`; `VMDeath` has no thread.
pub type VmInitFn = unsafe extern "C" fn(JvmtiEnv, JNIEnv, jobject);
/// `void JNICALL ClassFileLoadHook(...)`.
pub type ClassFileLoadHookFn = unsafe extern "C" fn(
    jvmti: JvmtiEnv,
    jni: JNIEnv,
    class_being_redefined: jobject,
    loader: jobject,
    name: *const c_char,
    protection_domain: jobject,
    class_data_len: jint,
    class_data: *const c_uchar,
    new_class_data_len: *mut jint,
    new_class_data: *mut *mut c_uchar,
);

/// `jvmtiEventCallbacks`: the first eight events (50 to 57); JVMTI copies
/// only `size_of_callbacks` bytes, the later ones stay unset.
#[repr(C)]
#[derive(Default)]
pub struct EventCallbacks {
    /// 50: `VMInit`.
    pub vm_init: Option<VmInitFn>,
    /// 51: `VMDeath`.
    pub vm_death: Option<VmStartFn>,
    /// 52: `ThreadStart`.
    pub thread_start: Option<VmInitFn>,
    /// 53: `ThreadEnd`.
    pub thread_end: Option<VmInitFn>,
    /// 54: `ClassFileLoadHook`.
    pub class_file_load_hook: Option<ClassFileLoadHookFn>,
    /// 55: `ClassLoad`.
    pub class_load: Option<unsafe extern "C" fn()>,
    /// 56: `ClassPrepare`.
    pub class_prepare: Option<unsafe extern "C" fn()>,
    /// 57: `VMStart`.
    pub vm_start: Option<VmStartFn>,
}

/// JVMTI function slots (index into the table: `jvmti.h`'s number less one).
pub mod slot {
    /// `SetEventNotificationMode` (2).
    pub const SET_EVENT_NOTIFICATION_MODE: usize = 1;
    /// `GetClassSignature` (48).
    pub const GET_CLASS_SIGNATURE: usize = 47;
    /// `GetLoadedClasses` (78).
    pub const GET_LOADED_CLASSES: usize = 77;
    /// `Allocate` (46).
    pub const ALLOCATE: usize = 45;
    /// `Deallocate` (47).
    pub const DEALLOCATE: usize = 46;
    /// `SetEventCallbacks` (122).
    pub const SET_EVENT_CALLBACKS: usize = 121;
    /// `GetSystemProperty` (131).
    pub const GET_SYSTEM_PROPERTY: usize = 130;
    /// `GetPhase` (133).
    pub const GET_PHASE: usize = 132;
    /// `GetPotentialCapabilities` (140).
    pub const GET_POTENTIAL_CAPABILITIES: usize = 139;
    /// `AddCapabilities` (142).
    pub const ADD_CAPABILITIES: usize = 141;
    /// `GetMethodDeclaringClass` (65).
    pub const GET_METHOD_DECLARING_CLASS: usize = 64;
    /// `GetStackTrace` (104).
    pub const GET_STACK_TRACE: usize = 103;
}

/// JNI function slots (index into `JNINativeInterface_`: four reserved
/// slots, then `GetVersion` at 4).
pub mod jni_slot {
    /// `DefineClass`.
    pub const DEFINE_CLASS: usize = 5;
    /// `FindClass`.
    pub const FIND_CLASS: usize = 6;
    /// `ThrowNew`.
    pub const THROW_NEW: usize = 14;
    /// `IsInstanceOf`.
    pub const IS_INSTANCE_OF: usize = 32;
    /// `GetStringUTFChars`.
    pub const GET_STRING_UTF_CHARS: usize = 169;
    /// `ReleaseStringUTFChars`.
    pub const RELEASE_STRING_UTF_CHARS: usize = 170;
    /// `GetFieldID`.
    pub const GET_FIELD_ID: usize = 94;
    /// `GetObjectField`.
    pub const GET_OBJECT_FIELD: usize = 95;
    /// `ExceptionDescribe`.
    pub const EXCEPTION_DESCRIBE: usize = 16;
    /// `ExceptionClear`.
    pub const EXCEPTION_CLEAR: usize = 17;
    /// `DeleteLocalRef`.
    pub const DELETE_LOCAL_REF: usize = 23;
    /// `ExceptionCheck`.
    pub const EXCEPTION_CHECK: usize = 228;
}

/// `GetEnv` in the invocation interface.
const GET_ENV: usize = 6;

/// The function in slot `i` of the table `env` points to.
///
/// # Safety
/// `env` must be a valid JNI, JVMTI or invocation environment, and `F` the
/// function type of slot `i`.
unsafe fn function<F: Copy>(env: *const *const *const c_void, i: usize) -> F {
    let table = *env;
    let f = *table.add(i);
    assert!(!f.is_null(), "JNI/JVMTI slot {i} is empty");
    std::mem::transmute_copy::<*const c_void, F>(&f)
}

/// The JVMTI environment of `vm` at `version`.
///
/// # Safety
/// `vm` must be the `JavaVM*` the JVM passed to `Agent_OnLoad`.
pub unsafe fn get_env(vm: JavaVM, version: jint) -> Result<JvmtiEnv, jint> {
    let f: unsafe extern "C" fn(JavaVM, *mut *mut c_void, jint) -> jint = function(vm, GET_ENV);
    let mut env: *mut c_void = std::ptr::null_mut();
    let r = f(vm, &mut env, version);
    if r == JNI_OK && !env.is_null() {
        Ok(env as JvmtiEnv)
    } else {
        Err(r)
    }
}

/// A JVMTI environment (the pointer the JVM hands out; usable from any thread).
#[derive(Clone, Copy)]
pub struct Jvmti(pub JvmtiEnv);

// SAFETY: a jvmtiEnv may be used from every thread (JVMTI spec: "the JVM TI
// environment pointer ... is valid across threads").
unsafe impl Send for Jvmti {}
// SAFETY: as above.
unsafe impl Sync for Jvmti {}

impl Jvmti {
    fn check(r: jvmtiError, what: &str) -> Result<(), String> {
        if r == JVMTI_ERROR_NONE {
            Ok(())
        } else {
            Err(format!("JVMTI {what} failed with error {r}"))
        }
    }

    /// `GetPotentialCapabilities`.
    pub fn potential_capabilities(&self) -> Result<Capabilities, String> {
        let mut c = Capabilities::default();
        // SAFETY: slot and signature as in jvmti.h; `c` outlives the call.
        let r = unsafe {
            let f: unsafe extern "C" fn(JvmtiEnv, *mut Capabilities) -> jvmtiError =
                function(self.0, slot::GET_POTENTIAL_CAPABILITIES);
            f(self.0, &mut c)
        };
        Self::check(r, "GetPotentialCapabilities").map(|()| c)
    }

    /// `AddCapabilities`.
    pub fn add_capabilities(&self, c: &Capabilities) -> Result<(), String> {
        // SAFETY: slot and signature as in jvmti.h.
        let r = unsafe {
            let f: unsafe extern "C" fn(JvmtiEnv, *const Capabilities) -> jvmtiError =
                function(self.0, slot::ADD_CAPABILITIES);
            f(self.0, c)
        };
        Self::check(r, "AddCapabilities")
    }

    /// `SetEventCallbacks`.
    pub fn set_event_callbacks(&self, cb: &EventCallbacks) -> Result<(), String> {
        // SAFETY: slot and signature as in jvmti.h; JVMTI copies the struct.
        let r = unsafe {
            let f: unsafe extern "C" fn(JvmtiEnv, *const EventCallbacks, jint) -> jvmtiError =
                function(self.0, slot::SET_EVENT_CALLBACKS);
            f(self.0, cb, std::mem::size_of::<EventCallbacks>() as jint)
        };
        Self::check(r, "SetEventCallbacks")
    }

    /// `SetEventNotificationMode(JVMTI_ENABLE, event, NULL)`.
    pub fn enable_event(&self, event: jint) -> Result<(), String> {
        // SAFETY: slot and (variadic) signature as in jvmti.h.
        let r = unsafe {
            let f: unsafe extern "C" fn(JvmtiEnv, jint, jint, jobject, ...) -> jvmtiError =
                function(self.0, slot::SET_EVENT_NOTIFICATION_MODE);
            f(self.0, JVMTI_ENABLE, event, std::ptr::null_mut())
        };
        Self::check(r, &format!("SetEventNotificationMode({event})"))
    }

    /// `GetSystemProperty`: a property of the VM (available from the
    /// OnLoad phase on); `None` when it is not set.
    pub fn system_property(&self, name: &str) -> Option<String> {
        let key = std::ffi::CString::new(name).ok()?;
        let mut value: *mut c_char = std::ptr::null_mut();
        // SAFETY: slot and signature as in jvmti.h; the value is a
        // JVMTI-allocated C string, freed with Deallocate after copying.
        unsafe {
            let f: unsafe extern "C" fn(JvmtiEnv, *const c_char, *mut *mut c_char) -> jvmtiError =
                function(self.0, slot::GET_SYSTEM_PROPERTY);
            if f(self.0, key.as_ptr(), &mut value) != JVMTI_ERROR_NONE || value.is_null() {
                return None;
            }
            let s = std::ffi::CStr::from_ptr(value)
                .to_string_lossy()
                .into_owned();
            self.deallocate(value as *mut c_uchar);
            Some(s)
        }
    }

    /// `GetPhase`.
    pub fn phase(&self) -> jint {
        let mut p: jint = 0;
        // SAFETY: slot and signature as in jvmti.h.
        unsafe {
            let f: unsafe extern "C" fn(JvmtiEnv, *mut jint) -> jvmtiError =
                function(self.0, slot::GET_PHASE);
            f(self.0, &mut p);
        }
        p
    }

    /// `Allocate`: a copy of `bytes` in memory the JVM may free (what the
    /// class file load hook must return).
    pub fn allocate_copy(&self, bytes: &[u8]) -> Result<*mut c_uchar, String> {
        let mut mem: *mut c_uchar = std::ptr::null_mut();
        // SAFETY: slot and signature as in jvmti.h; the block is
        // `bytes.len()` long.
        unsafe {
            let f: unsafe extern "C" fn(JvmtiEnv, i64, *mut *mut c_uchar) -> jvmtiError =
                function(self.0, slot::ALLOCATE);
            Self::check(f(self.0, bytes.len() as i64, &mut mem), "Allocate")?;
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), mem, bytes.len());
        }
        Ok(mem)
    }

    /// The class of the innermost frame of the current thread whose class's
    /// signature is `signature` (`La/b/C;`), among the top `depth` frames
    /// (`GetStackTrace`, `GetMethodDeclaringClass`, `GetClassSignature`: no
    /// Java code runs). `Ok(None)`: no such frame. The class is a new local
    /// reference; the others are deleted.
    ///
    /// # Safety
    /// `jni` must be the current thread's JNI environment, in the live
    /// phase.
    pub unsafe fn frame_class(
        &self,
        jni: Jni,
        signature: &[u8],
        depth: usize,
    ) -> Result<Option<jobject>, String> {
        /// `jvmtiFrameInfo`.
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct FrameInfo {
            method: *mut c_void,
            location: i64,
        }
        let mut frames = vec![
            FrameInfo {
                method: std::ptr::null_mut(),
                location: 0,
            };
            depth
        ];
        let mut count: jint = 0;
        // SAFETY: slots and signatures as in jvmti.h and jni.h; the frame
        // buffer holds `depth` entries; the strings are the JVM's, freed with
        // Deallocate.
        unsafe {
            let trace: unsafe extern "C" fn(
                JvmtiEnv,
                jobject,
                jint,
                jint,
                *mut FrameInfo,
                *mut jint,
            ) -> jvmtiError = function(self.0, slot::GET_STACK_TRACE);
            Self::check(
                trace(
                    self.0,
                    std::ptr::null_mut(),
                    0,
                    depth as jint,
                    frames.as_mut_ptr(),
                    &mut count,
                ),
                "GetStackTrace",
            )?;
            let declaring: unsafe extern "C" fn(JvmtiEnv, *mut c_void, *mut jobject) -> jvmtiError =
                function(self.0, slot::GET_METHOD_DECLARING_CLASS);
            let class_signature: unsafe extern "C" fn(
                JvmtiEnv,
                jobject,
                *mut *mut c_char,
                *mut *mut c_char,
            ) -> jvmtiError = function(self.0, slot::GET_CLASS_SIGNATURE);
            let delete: unsafe extern "C" fn(JNIEnv, jobject) =
                function(jni.0, jni_slot::DELETE_LOCAL_REF);
            for frame in &frames[..count.max(0) as usize] {
                let mut class: jobject = std::ptr::null_mut();
                Self::check(
                    declaring(self.0, frame.method, &mut class),
                    "GetMethodDeclaringClass",
                )?;
                let mut sig: *mut c_char = std::ptr::null_mut();
                let found = class_signature(self.0, class, &mut sig, std::ptr::null_mut())
                    == JVMTI_ERROR_NONE
                    && !sig.is_null()
                    && CStr::from_ptr(sig).to_bytes() == signature;
                if !sig.is_null() {
                    self.deallocate(sig as *mut c_uchar);
                }
                if found {
                    return Ok(Some(class));
                }
                delete(jni.0, class);
            }
        }
        Ok(None)
    }

    /// The signatures (`Ljava/lang/Object;`, `[I`, `I`) of every class
    /// loaded (`GetLoadedClasses`, `GetClassSignature`); each class's local
    /// reference is deleted as soon as its signature is read.
    ///
    /// # Safety
    /// `jni` must be the current thread's JNI environment, in the live
    /// phase.
    pub unsafe fn loaded_class_signatures(&self, jni: Jni) -> Result<Vec<String>, String> {
        let mut count: jint = 0;
        let mut classes: *mut jobject = std::ptr::null_mut();
        // SAFETY: slots and signatures as in jvmti.h and jni.h; the array
        // and the strings are the JVM's, freed with Deallocate.
        unsafe {
            let loaded: unsafe extern "C" fn(JvmtiEnv, *mut jint, *mut *mut jobject) -> jvmtiError =
                function(self.0, slot::GET_LOADED_CLASSES);
            Self::check(loaded(self.0, &mut count, &mut classes), "GetLoadedClasses")?;
            let signature: unsafe extern "C" fn(
                JvmtiEnv,
                jobject,
                *mut *mut c_char,
                *mut *mut c_char,
            ) -> jvmtiError = function(self.0, slot::GET_CLASS_SIGNATURE);
            let delete: unsafe extern "C" fn(JNIEnv, jobject) =
                function(jni.0, jni_slot::DELETE_LOCAL_REF);
            let mut out = Vec::with_capacity(count.max(0) as usize);
            for i in 0..count.max(0) as usize {
                let class = *classes.add(i);
                let mut sig: *mut c_char = std::ptr::null_mut();
                if signature(self.0, class, &mut sig, std::ptr::null_mut()) == JVMTI_ERROR_NONE
                    && !sig.is_null()
                {
                    out.push(CStr::from_ptr(sig).to_string_lossy().into_owned());
                    self.deallocate(sig as *mut c_uchar);
                }
                delete(jni.0, class);
            }
            self.deallocate(classes as *mut c_uchar);
            Ok(out)
        }
    }

    /// `Deallocate`.
    ///
    /// # Safety
    /// `mem` must come from `Allocate` (or a JVMTI function that allocates).
    pub unsafe fn deallocate(&self, mem: *mut c_uchar) {
        let f: unsafe extern "C" fn(JvmtiEnv, *mut c_uchar) -> jvmtiError =
            function(self.0, slot::DEALLOCATE);
        f(self.0, mem);
    }
}

/// A JNI environment, valid in the thread and event it was given for.
#[derive(Clone, Copy)]
pub struct Jni(pub JNIEnv);

impl Jni {
    /// `DefineClass(name, loader, bytes)`; on failure the pending exception
    /// is printed (`ExceptionDescribe`) and cleared, and the error says so.
    /// The local reference to the class is deleted.
    ///
    /// # Safety
    /// `self` must be the current thread's JNI environment, and `loader`
    /// null (the boot loader) or a live reference to a class loader.
    pub unsafe fn define_class(
        &self,
        name: &str,
        loader: jobject,
        bytes: &[u8],
    ) -> Result<(), String> {
        let cname = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: slots and signatures as in jni.h; `self.0` is the current
        // thread's JNIEnv; the buffer outlives the call.
        unsafe {
            let define: unsafe extern "C" fn(
                JNIEnv,
                *const c_char,
                jobject,
                *const i8,
                jint,
            ) -> jobject = function(self.0, jni_slot::DEFINE_CLASS);
            let class = define(
                self.0,
                cname.as_ptr(),
                loader,
                bytes.as_ptr() as *const i8,
                bytes.len() as jint,
            );
            let check: unsafe extern "C" fn(JNIEnv) -> u8 =
                function(self.0, jni_slot::EXCEPTION_CHECK);
            if class.is_null() || check(self.0) != 0 {
                let describe: unsafe extern "C" fn(JNIEnv) =
                    function(self.0, jni_slot::EXCEPTION_DESCRIBE);
                let clear: unsafe extern "C" fn(JNIEnv) =
                    function(self.0, jni_slot::EXCEPTION_CLEAR);
                if check(self.0) != 0 {
                    describe(self.0);
                    clear(self.0);
                }
                return Err(format!("JNI DefineClass({name}) failed"));
            }
            let delete: unsafe extern "C" fn(JNIEnv, jobject) =
                function(self.0, jni_slot::DELETE_LOCAL_REF);
            delete(self.0, class);
        }
        Ok(())
    }

    /// The characters of the string `s` (modified UTF-8, as
    /// `GetStringUTFChars` gives them); `None` if `s` is null or the JVM is
    /// out of memory (an exception is then pending).
    ///
    /// # Safety
    /// `self` must be the current thread's JNI environment, and `s` null or
    /// a live reference to a `java.lang.String`.
    pub unsafe fn string_bytes(&self, s: jobject) -> Option<Vec<u8>> {
        if s.is_null() {
            return None;
        }
        // SAFETY: slots and signatures as in jni.h; the characters are
        // released once copied.
        unsafe {
            let get: unsafe extern "C" fn(JNIEnv, jobject, *mut u8) -> *const c_char =
                function(self.0, jni_slot::GET_STRING_UTF_CHARS);
            let release: unsafe extern "C" fn(JNIEnv, jobject, *const c_char) =
                function(self.0, jni_slot::RELEASE_STRING_UTF_CHARS);
            let chars = get(self.0, s, std::ptr::null_mut());
            if chars.is_null() {
                return None;
            }
            let bytes = CStr::from_ptr(chars).to_bytes().to_vec();
            release(self.0, s, chars);
            Some(bytes)
        }
    }

    /// Throws a new exception of the class `class` (an internal name) with
    /// `message`, pending when the native method returns.
    ///
    /// # Safety
    /// `self` must be the current thread's JNI environment.
    pub unsafe fn throw(&self, class: &std::ffi::CStr, message: &str) {
        let message = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
        // SAFETY: slots and signatures as in jni.h; the strings are
        // NUL-terminated and outlive the calls.
        unsafe {
            let find: unsafe extern "C" fn(JNIEnv, *const c_char) -> jobject =
                function(self.0, jni_slot::FIND_CLASS);
            let throw_new: unsafe extern "C" fn(JNIEnv, jobject, *const c_char) -> jint =
                function(self.0, jni_slot::THROW_NEW);
            let c = find(self.0, class.as_ptr());
            if !c.is_null() {
                throw_new(self.0, c, message.as_ptr());
            }
        }
    }

    /// The loader through which HotSpot resolves the names in the code of a
    /// class defined by `loader`: the parent of a reflection
    /// `jdk.internal.reflect.DelegatingClassLoader` (its `parent` field,
    /// read as HotSpot reads it: no Java code runs), else `loader` itself.
    /// The result is `loader` or a new local reference (null: the boot
    /// loader).
    ///
    /// # Safety
    /// `self` must be the current thread's JNI environment (live phase), and
    /// `loader` null or a live reference to a class loader.
    pub unsafe fn non_reflection_loader(&self, loader: jobject) -> Result<jobject, String> {
        if loader.is_null() {
            return Ok(loader);
        }
        // SAFETY: slots and signatures as in jni.h; `self.0` is the current
        // thread's JNIEnv; the strings are NUL-terminated.
        unsafe {
            let find: unsafe extern "C" fn(JNIEnv, *const c_char) -> jobject =
                function(self.0, jni_slot::FIND_CLASS);
            let delete: unsafe extern "C" fn(JNIEnv, jobject) =
                function(self.0, jni_slot::DELETE_LOCAL_REF);
            let check: unsafe extern "C" fn(JNIEnv) -> u8 =
                function(self.0, jni_slot::EXCEPTION_CHECK);
            let clear: unsafe extern "C" fn(JNIEnv) = function(self.0, jni_slot::EXCEPTION_CLEAR);
            let failed = |what: &str| {
                if check(self.0) != 0 {
                    clear(self.0);
                }
                Err(format!(
                    "cannot find the reflection loader's parent: {what}"
                ))
            };
            let delegating = find(
                self.0,
                c"jdk/internal/reflect/DelegatingClassLoader".as_ptr(),
            );
            if delegating.is_null() {
                return failed("no class jdk.internal.reflect.DelegatingClassLoader");
            }
            let is_instance: unsafe extern "C" fn(JNIEnv, jobject, jobject) -> u8 =
                function(self.0, jni_slot::IS_INSTANCE_OF);
            let reflective = is_instance(self.0, loader, delegating) != 0;
            delete(self.0, delegating);
            if !reflective {
                return Ok(loader);
            }
            let class_loader = find(self.0, c"java/lang/ClassLoader".as_ptr());
            if class_loader.is_null() {
                return failed("no class java.lang.ClassLoader");
            }
            let field_id: unsafe extern "C" fn(
                JNIEnv,
                jobject,
                *const c_char,
                *const c_char,
            ) -> *mut c_void = function(self.0, jni_slot::GET_FIELD_ID);
            let parent = field_id(
                self.0,
                class_loader,
                c"parent".as_ptr(),
                c"Ljava/lang/ClassLoader;".as_ptr(),
            );
            delete(self.0, class_loader);
            if parent.is_null() {
                return failed("no field ClassLoader.parent");
            }
            let get: unsafe extern "C" fn(JNIEnv, jobject, *mut c_void) -> jobject =
                function(self.0, jni_slot::GET_OBJECT_FIELD);
            Ok(get(self.0, loader, parent))
        }
    }
}
