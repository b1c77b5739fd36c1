//! The agent's own JNI/JVMTI bindings (`agent/src/jvmti.rs`) against the
//! headers of the installed JDKs: function slots, capability bits and the
//! order of the event callbacks.

use std::path::Path;

use major_agent::jvmti::{self, jni_slot, slot};
use major_tests::{jdk17, jdk25, skip};

/// The body of `typedef struct NAME {` ... `}` in `text`.
fn body<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let s = text.find(start).unwrap_or_else(|| panic!("no `{start}`"));
    let e = s + text[s..].find(end).unwrap_or_else(|| panic!("no `{end}`"));
    &text[s..e]
}

/// The names of the function pointers in a table, in order, with `jvmti.h`'s
/// number of each JVMTI function (`/*   N : ... */` before it), or the index
/// for JNI's table (which has no numbers; its reserved slots are `void *`).
fn pointers(table: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in table.lines() {
        let l = line.trim();
        if l.starts_with("void *reserved") {
            out.push("reserved".to_string());
        } else if let Some(i) = l.find("(JNICALL *") {
            let rest = &l[i + "(JNICALL *".len()..];
            out.push(rest[..rest.find(')').unwrap()].to_string());
        }
    }
    out
}

fn check(home: &Path) {
    let include = home.join("include");
    let (Ok(jvmti_h), Ok(jni_h)) = (
        std::fs::read_to_string(include.join("jvmti.h")),
        std::fs::read_to_string(include.join("jni.h")),
    ) else {
        return skip(&format!("{}: no include/jvmti.h, jni.h", home.display()));
    };
    let funcs = pointers(body(
        &jvmti_h,
        "typedef struct jvmtiInterface_1_",
        "} jvmtiInterface_1;",
    ));
    for (name, i) in [
        (
            "SetEventNotificationMode",
            slot::SET_EVENT_NOTIFICATION_MODE,
        ),
        ("Allocate", slot::ALLOCATE),
        ("Deallocate", slot::DEALLOCATE),
        ("SetEventCallbacks", slot::SET_EVENT_CALLBACKS),
        ("GetSystemProperty", slot::GET_SYSTEM_PROPERTY),
        ("GetPhase", slot::GET_PHASE),
        ("GetPotentialCapabilities", slot::GET_POTENTIAL_CAPABILITIES),
        ("AddCapabilities", slot::ADD_CAPABILITIES),
        ("GetClassSignature", slot::GET_CLASS_SIGNATURE),
        ("GetLoadedClasses", slot::GET_LOADED_CLASSES),
    ] {
        assert_eq!(
            funcs.get(i).map(String::as_str),
            Some(name),
            "JVMTI slot {i}"
        );
    }
    let jni = pointers(body(&jni_h, "struct JNINativeInterface_ {", "};"));
    for (name, i) in [
        ("DefineClass", jni_slot::DEFINE_CLASS),
        ("ExceptionDescribe", jni_slot::EXCEPTION_DESCRIBE),
        ("ExceptionClear", jni_slot::EXCEPTION_CLEAR),
        ("DeleteLocalRef", jni_slot::DELETE_LOCAL_REF),
        ("ExceptionCheck", jni_slot::EXCEPTION_CHECK),
    ] {
        assert_eq!(jni.get(i).map(String::as_str), Some(name), "JNI slot {i}");
    }
    let invoke = pointers(body(&jni_h, "struct JNIInvokeInterface_ {", "};"));
    assert_eq!(invoke.get(6).map(String::as_str), Some("GetEnv"));
    let caps: Vec<&str> = body(
        &jvmti_h,
        "typedef struct {\n    unsigned int can_tag_objects",
        "} jvmtiCapabilities;",
    )
    .lines()
    .filter_map(|l| l.trim().strip_prefix("unsigned int can_"))
    .map(|l| l.split_whitespace().next().unwrap())
    .collect();
    for (name, bit) in [
        (
            "generate_all_class_hook_events",
            jvmti::CAN_GENERATE_ALL_CLASS_HOOK_EVENTS,
        ),
        ("generate_early_vmstart", jvmti::CAN_GENERATE_EARLY_VMSTART),
        (
            "generate_early_class_hook_events",
            jvmti::CAN_GENERATE_EARLY_CLASS_HOOK_EVENTS,
        ),
    ] {
        assert_eq!(
            caps.get(bit as usize).copied(),
            Some(name),
            "capability bit {bit}"
        );
    }
    assert!(caps.len() <= 128 && std::mem::size_of::<jvmti::Capabilities>() == 16);
    let callbacks: Vec<&str> = body(
        &jvmti_h,
        "typedef struct {\n                              /*   50 : VM Initialization Event */",
        "} jvmtiEventCallbacks;",
    )
    .lines()
    .filter_map(|l| l.trim().strip_prefix("jvmtiEvent"))
    .map(|l| l.split_whitespace().next().unwrap())
    .collect();
    assert_eq!(
        &callbacks[..8],
        [
            "VMInit",
            "VMDeath",
            "ThreadStart",
            "ThreadEnd",
            "ClassFileLoadHook",
            "ClassLoad",
            "ClassPrepare",
            "VMStart"
        ]
    );
    assert_eq!(
        std::mem::size_of::<jvmti::EventCallbacks>(),
        8 * std::mem::size_of::<usize>()
    );
}

#[test]
fn bindings_match_the_jdk17_headers() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    check(&jdk);
}

#[test]
fn bindings_match_the_jdk25_headers() {
    let Some(jdk) = jdk25() else {
        return skip("JDK 25 is not installed");
    };
    check(&jdk);
}
