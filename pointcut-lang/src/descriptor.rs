//! Just enough of JVM descriptors for matching: `(ILjava/lang/String;[J)V` into
//! parameter and return types. (The crate deliberately does not depend on the
//! class-file crate.)

/// A type as the matcher sees it: an internal class name (`java/lang/String`) or
/// a primitive keyword (`int`, `void`), and array dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeRef<'a> {
    /// Internal name or primitive keyword.
    pub name: &'a str,
    /// Array dimensions.
    pub dims: u8,
}

impl<'a> TypeRef<'a> {
    /// A class type of dimension 0.
    pub fn class(name: &'a str) -> TypeRef<'a> {
        TypeRef { name, dims: 0 }
    }

    /// Whether this is a primitive (or `void`) of dimension 0.
    pub fn is_primitive(&self) -> bool {
        self.dims == 0 && crate::patterns::is_primitive(self.name)
    }
}

fn primitive(c: u8) -> Option<&'static str> {
    Some(match c {
        b'Z' => "boolean",
        b'B' => "byte",
        b'C' => "char",
        b'S' => "short",
        b'I' => "int",
        b'J' => "long",
        b'F' => "float",
        b'D' => "double",
        b'V' => "void",
        _ => return None,
    })
}

/// Reads one field type at `*i`.
fn one<'a>(d: &'a str, i: &mut usize) -> Option<TypeRef<'a>> {
    let b = d.as_bytes();
    let mut dims = 0u8;
    while *i < b.len() && b[*i] == b'[' {
        dims = dims.checked_add(1)?;
        *i += 1;
    }
    let c = *b.get(*i)?;
    if c == b'L' {
        let start = *i + 1;
        let end = start + d[start..].find(';')?;
        *i = end + 1;
        return Some(TypeRef {
            name: &d[start..end],
            dims,
        });
    }
    *i += 1;
    Some(TypeRef {
        name: primitive(c)?,
        dims,
    })
}

/// Parses a field descriptor (`Ljava/lang/String;`, `[I`).
pub fn field_type(d: &str) -> Option<TypeRef<'_>> {
    let mut i = 0;
    let t = one(d, &mut i)?;
    (i == d.len()).then_some(t)
}

/// Parses a method descriptor into parameter types and the return type.
pub fn method_types(d: &str) -> Option<(Vec<TypeRef<'_>>, TypeRef<'_>)> {
    let b = d.as_bytes();
    if b.first() != Some(&b'(') {
        return None;
    }
    let mut i = 1;
    let mut params = Vec::new();
    while *b.get(i)? != b')' {
        params.push(one(d, &mut i)?);
    }
    i += 1;
    let ret = one(d, &mut i)?;
    (i == d.len()).then_some((params, ret))
}

/// The internal name of an annotation given as a descriptor (`Ljava/lang/Deprecated;`)
/// or already as an internal name.
pub fn annotation_name(a: &str) -> &str {
    a.strip_prefix('L')
        .and_then(|x| x.strip_suffix(';'))
        .unwrap_or(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors() {
        let (p, r) = method_types("(I[Ljava/lang/String;[[J)V").unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(
            p[0],
            TypeRef {
                name: "int",
                dims: 0
            }
        );
        assert_eq!(
            p[1],
            TypeRef {
                name: "java/lang/String",
                dims: 1
            }
        );
        assert_eq!(
            p[2],
            TypeRef {
                name: "long",
                dims: 2
            }
        );
        assert_eq!(r.name, "void");
        assert!(method_types("(I").is_none());
        assert!(method_types("()Lfoo").is_none());
        assert_eq!(field_type("Ljava/util/Map;").unwrap().name, "java/util/Map");
        assert!(field_type("Q").is_none());
        assert_eq!(
            annotation_name("Ljava/lang/Deprecated;"),
            "java/lang/Deprecated"
        );
    }
}
