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

/// The return type of a method descriptor, which is checked as
/// [`method_types`] checks it, without listing the parameters (for patterns
/// whose parameter list is `(..)`).
pub fn method_return(d: &str) -> Option<TypeRef<'_>> {
    let b = d.as_bytes();
    if b.first() != Some(&b'(') {
        return None;
    }
    let mut i = 1;
    while *b.get(i)? != b')' {
        one(d, &mut i)?;
    }
    i += 1;
    let ret = one(d, &mut i)?;
    (i == d.len()).then_some(ret)
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
    fn return_type_alone_agrees_with_the_full_parse() {
        for d in [
            "()V",
            "(I[Ljava/lang/String;[[J)V",
            "(Ljava/util/List;)[Ljava/lang/Object;",
            "(JD)Z",
            "",
            "V",
            "(",
            "()",
            "(I",
            "(I)",
            "(Q)V",
            "(I)VV",
            "(Ljava/lang/String)V",
            "([)V",
        ] {
            assert_eq!(method_return(d), method_types(d).map(|(_, r)| r), "{d:?}");
        }
    }

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

/// A type read from a generic signature (JVMS 4.7.9.1): a class with its type
/// arguments, a primitive, an array or a type variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenericType {
    /// Internal class name (`java/util/List`, `p/Outer$Inner`), primitive
    /// keyword, or for a type variable its name.
    pub name: String,
    /// Whether `name` is a type variable (`T`).
    pub type_var: bool,
    /// Array dimensions.
    pub dims: u8,
    /// Type arguments of the (innermost) class; empty for a raw or
    /// non-generic type.
    pub args: Vec<GenericArg>,
}

/// One type argument in a generic signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenericArg {
    /// `*`: the unbounded wildcard `?`.
    Any,
    /// `+T`: `? extends T`.
    Extends(GenericType),
    /// `-T`: `? super T`.
    Super(GenericType),
    /// A type.
    Type(GenericType),
}

impl GenericType {
    /// The erased type the matcher compares names against (a type variable
    /// erases to `java/lang/Object` here; its bounds are not read).
    pub fn erased(&self) -> TypeRef<'_> {
        TypeRef {
            name: if self.type_var {
                "java/lang/Object"
            } else {
                &self.name
            },
            dims: self.dims,
        }
    }
}

/// The parameter and return types of a method's generic signature
/// (`<T:Ljava/lang/Object;>(Ljava/util/List<+TT;>;)V`), or `None` if it is
/// malformed.
pub fn method_signature(s: &str) -> Option<(Vec<GenericType>, GenericType)> {
    let b = s.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'<') {
        // Type parameters: `Name:Bound:Bound...`, up to the matching `>`.
        let mut depth = 0usize;
        while i < b.len() {
            match b[i] {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    if b.get(i) != Some(&b'(') {
        return None;
    }
    i += 1;
    let mut params = Vec::new();
    while b.get(i) != Some(&b')') {
        params.push(generic_type(b, &mut i)?);
    }
    i += 1;
    let ret = generic_type(b, &mut i)?;
    Some((params, ret))
}

/// Reads one generic type (`Ljava/util/List<TT;>;`, `TT;`, `[I`) of `s`
/// starting at byte `*i`, moving `*i` past it.
pub fn generic_type_at(s: &str, i: &mut usize) -> Option<GenericType> {
    generic_type(s.as_bytes(), i)
}

fn generic_type(b: &[u8], i: &mut usize) -> Option<GenericType> {
    let mut dims = 0u8;
    while b.get(*i) == Some(&b'[') {
        dims = dims.checked_add(1)?;
        *i += 1;
    }
    let c = *b.get(*i)?;
    *i += 1;
    let text = |from: usize, to: usize| std::str::from_utf8(b.get(from..to)?).ok();
    match c {
        b'T' => {
            let start = *i;
            while *b.get(*i)? != b';' {
                *i += 1;
            }
            let name = text(start, *i)?.to_string();
            *i += 1;
            Some(GenericType {
                name,
                type_var: true,
                dims,
                args: Vec::new(),
            })
        }
        b'L' => {
            let mut name = String::new();
            let mut args = Vec::new();
            let mut start = *i;
            loop {
                match *b.get(*i)? {
                    b'<' => {
                        name.push_str(text(start, *i)?);
                        *i += 1;
                        args.clear();
                        while *b.get(*i)? != b'>' {
                            args.push(generic_arg(b, i)?);
                        }
                        *i += 1;
                        start = *i;
                    }
                    b'.' => {
                        // An inner class of a parameterized outer class.
                        name.push_str(text(start, *i)?);
                        name.push('$');
                        *i += 1;
                        start = *i;
                    }
                    b';' => {
                        name.push_str(text(start, *i)?);
                        *i += 1;
                        return Some(GenericType {
                            name,
                            type_var: false,
                            dims,
                            args,
                        });
                    }
                    _ => *i += 1,
                }
            }
        }
        _ => Some(GenericType {
            name: primitive(c)?.to_string(),
            type_var: false,
            dims,
            args: Vec::new(),
        }),
    }
}

fn generic_arg(b: &[u8], i: &mut usize) -> Option<GenericArg> {
    match *b.get(*i)? {
        b'*' => {
            *i += 1;
            Some(GenericArg::Any)
        }
        b'+' => {
            *i += 1;
            generic_type(b, i).map(GenericArg::Extends)
        }
        b'-' => {
            *i += 1;
            generic_type(b, i).map(GenericArg::Super)
        }
        _ => generic_type(b, i).map(GenericArg::Type),
    }
}

#[cfg(test)]
mod generic_tests {
    use super::*;

    #[test]
    fn reads_method_signatures() {
        let (p, r) =
            method_signature("<T:Ljava/lang/Object;>(Ljava/util/List<+Ljava/lang/Number;>;[TT;I)V")
                .unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].name, "java/util/List");
        assert!(matches!(&p[0].args[..], [GenericArg::Extends(n)] if n.name == "java/lang/Number"));
        assert!(p[1].type_var && p[1].dims == 1);
        assert_eq!(p[2].name, "int");
        assert_eq!(r.name, "void");
        let (p, _) = method_signature("(Lp/Outer<Ljava/lang/String;>.Inner<*>;)V").unwrap();
        assert_eq!(p[0].name, "p/Outer$Inner");
        assert_eq!(p[0].args, vec![GenericArg::Any]);
        assert!(method_signature("(Ljava/util/List<").is_none());
        assert!(method_signature("").is_none());
    }
}
