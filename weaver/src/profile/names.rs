//! The frame name of a method: the one string per method that the CCT
//! profiler's runtime, the JVMTI oracle (`tests/jvmti/cct_oracle.c`,
//! `frame_name` there) and these outputs all use.
//!
//! `<binary class name with dots>.<method name>(<parameter types in source
//! form, comma-separated, no spaces>)`, no return type:
//! `java.util.HashMap.hash(java.lang.Object)`, `java.lang.String.<init>(byte[],byte)`,
//! `Foo$Bar.<clinit>()`. Hidden and generated classes are normalised: the
//! `/0x...` suffix of a hidden class's name is dropped, and the number after
//! `$$Lambda$` (`Foo$$Lambda$14/0x0000000800c01234` becomes `Foo$$Lambda`).

/// The frame name of method `method_name` with `descriptor` (`(I[J)V`) in the
/// class `class_internal_name` (`java/util/HashMap`; a hidden class's name may
/// carry its `/0x...` suffix, which is dropped). A malformed descriptor keeps
/// what could be read of it: the name is for people and for matching, not
/// for the VM.
pub fn frame_name(class_internal_name: &str, method_name: &str, descriptor: &str) -> String {
    let mut out = class_binary_name(class_internal_name);
    out.push('.');
    out.push_str(method_name);
    out.push('(');
    let params = descriptor.strip_prefix('(').unwrap_or(descriptor);
    let params = params.split(')').next().unwrap_or("");
    let mut rest = params;
    let mut first = true;
    while !rest.is_empty() {
        if !first {
            out.push(',');
        }
        first = false;
        rest = push_type(&mut out, rest);
    }
    out.push(')');
    out
}

/// The normalised binary name, with dots, of a class in internal form: a
/// hidden class's `/0x<hex>` (or `+0x<hex>`, `.0x<hex>`) suffix dropped, and
/// a trailing number after `$$Lambda$`.
pub fn class_binary_name(class_internal_name: &str) -> String {
    let mut name = class_internal_name;
    if let Some(i) = name.rfind(['/', '+', '.']) {
        let suffix = &name[i + 1..];
        if let Some(hex) = suffix.strip_prefix("0x") {
            if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                name = &name[..i];
            }
        }
    }
    let mut out = name.replace('/', ".");
    const LAMBDA: &str = "$$Lambda$";
    if let Some(i) = out.rfind(LAMBDA) {
        let digits = &out[i + LAMBDA.len()..];
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            out.truncate(i + LAMBDA.len() - 1);
        }
    }
    out
}

/// Appends the source form of the field type at the start of `desc` and
/// returns the rest of `desc`.
fn push_type<'a>(out: &mut String, desc: &'a str) -> &'a str {
    let dims = desc.bytes().take_while(|&b| b == b'[').count();
    let rest = &desc[dims..];
    let prim = match rest.as_bytes().first() {
        Some(b'B') => "byte",
        Some(b'C') => "char",
        Some(b'D') => "double",
        Some(b'F') => "float",
        Some(b'I') => "int",
        Some(b'J') => "long",
        Some(b'S') => "short",
        Some(b'Z') => "boolean",
        Some(b'V') => "void",
        _ => "",
    };
    let rest = if !prim.is_empty() {
        out.push_str(prim);
        &rest[1..]
    } else if let Some(body) = rest.strip_prefix('L') {
        let end = body.find(';').unwrap_or(body.len());
        out.push_str(&body[..end].replace('/', "."));
        body.get(end + 1..).unwrap_or("")
    } else {
        // Malformed: keep one character and go on.
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        chars.as_str()
    };
    for _ in 0..dims {
        out.push_str("[]");
    }
    rest
}

/// The class part of a frame name (`java.util.HashMap` of
/// `java.util.HashMap.hash(java.lang.Object)`): everything before the last
/// dot ahead of the parameter list.
pub fn frame_class(frame: &str) -> &str {
    let head = frame.split('(').next().unwrap_or(frame);
    head.rfind('.').map_or("", |i| &head[..i])
}

/// Whether a frame's class is in the JDK: its package is one of the run-time
/// image's (`java.`, `javax.`, `jdk.`, `sun.`, `com.sun.`, `org.xml.sax.`,
/// `org.w3c.dom.`, `org.ietf.jgss.`, `org.jcp.xml.dsig.`). The default JDK
/// predicate of [`super::Options`].
pub fn is_jdk_frame(frame: &str) -> bool {
    const PACKAGES: &[&str] = &[
        "java.",
        "javax.",
        "jdk.",
        "sun.",
        "com.sun.",
        "org.xml.sax.",
        "org.w3c.dom.",
        "org.ietf.jgss.",
        "org.jcp.xml.dsig.",
    ];
    let class = frame_class(frame);
    PACKAGES.iter().any(|p| class.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_names_of_tricky_descriptors() {
        let cases = [
            (
                "java/util/HashMap",
                "hash",
                "(Ljava/lang/Object;)I",
                "java.util.HashMap.hash(java.lang.Object)",
            ),
            (
                "java/lang/String",
                "<init>",
                "([BB)V",
                "java.lang.String.<init>(byte[],byte)",
            ),
            ("Foo$Bar", "<clinit>", "()V", "Foo$Bar.<clinit>()"),
            (
                "Main",
                "main",
                "([Ljava/lang/String;)V",
                "Main.main(java.lang.String[])",
            ),
            (
                "a/b/C$D$E",
                "m",
                "([[I[[[Ljava/util/Map$Entry;JZ[D)[[Ljava/lang/Object;",
                "a.b.C$D$E.m(int[][],java.util.Map$Entry[][][],long,boolean,double[])",
            ),
            (
                "p/Q",
                "all",
                "(BCDFIJSZ)V",
                "p.Q.all(byte,char,double,float,int,long,short,boolean)",
            ),
            (
                "Foo$$Lambda$14/0x0000000800c01234",
                "run",
                "()V",
                "Foo$$Lambda.run()",
            ),
            (
                "p/Foo$$Lambda/0x000075a1c8012345",
                "apply",
                "(Ljava/lang/Object;)Ljava/lang/Object;",
                "p.Foo$$Lambda.apply(java.lang.Object)",
            ),
            (
                "java/lang/invoke/LambdaForm$MH+0x0000000800c01234",
                "invoke",
                "(Ljava/lang/Object;I)V",
                "java.lang.invoke.LambdaForm$MH.invoke(java.lang.Object,int)",
            ),
            // A name that only looks hidden is kept.
            ("p/0xZZ", "m", "()V", "p.0xZZ.m()"),
            ("Foo$$Lambda$", "m", "()V", "Foo$$Lambda$.m()"),
        ];
        for (class, method, desc, want) in cases {
            assert_eq!(
                frame_name(class, method, desc),
                want,
                "{class} {method}{desc}"
            );
        }
    }

    #[test]
    fn frame_class_and_jdk_predicate() {
        assert_eq!(
            frame_class("java.util.HashMap.hash(java.lang.Object)"),
            "java.util.HashMap"
        );
        assert_eq!(frame_class("Main.main(java.lang.String[])"), "Main");
        assert!(is_jdk_frame("java.util.HashMap.hash(java.lang.Object)"));
        assert!(is_jdk_frame(
            "com.sun.tools.javac.Main.main(java.lang.String[])"
        ));
        assert!(!is_jdk_frame("Main.main(java.lang.String[])"));
        assert!(!is_jdk_frame("javafoo.X.m()"));
        assert!(!is_jdk_frame("org.apache.xalan.X.m(java.lang.String)"));
    }
}
