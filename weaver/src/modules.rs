//! Modular jars. A `module-info.class` may list every package of its module
//! in a `ModulePackages` attribute (`jar --create` writes one), and the JDK
//! then takes the module's packages from that list instead of scanning the
//! jar: the packages of the classes a weave adds (the runtime, the aspects,
//! their extra classes) must be added to it, or the module cannot load them.

use std::collections::BTreeSet;

use major_classfile::class_writer::{write_class, ClassEdit};
use major_classfile::constant_pool::Constant;
use major_classfile::{ClassFile, Error, ErrorKind};

/// The package of an internal class name (`a/b/C` → `a/b`); `None` for the
/// unnamed package.
pub fn package_of(class: &str) -> Option<&str> {
    class.rfind('/').map(|i| &class[..i])
}

/// `module_info` with `packages` added to its `ModulePackages` attribute;
/// `None` when it has no such attribute (the JDK scans the jar) or already
/// lists them all. Everything else of the class stays as it was (the pool is
/// only appended to).
pub fn add_module_packages(
    module_info: &[u8],
    packages: &BTreeSet<String>,
) -> Result<Option<Vec<u8>>, Error> {
    let class = ClassFile::parse(module_info)?;
    let Some(attr) = class.attribute("ModulePackages") else {
        return Ok(None);
    };
    let bad = || {
        Error::new(
            ErrorKind::Malformed,
            Some(attr.data_offset()),
            "ModulePackages attribute: length does not match its package count",
        )
    };
    let data = attr.data;
    let count = u16::from_be_bytes([
        *data.first().ok_or_else(bad)?,
        *data.get(1).ok_or_else(bad)?,
    ]);
    if data.len() != 2 + 2 * count as usize {
        return Err(bad());
    }
    let mut indices: Vec<u16> = data[2..]
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    let mut listed = BTreeSet::new();
    for &i in &indices {
        match class.pool.get(i)? {
            Constant::Package(n) => {
                listed.insert(class.pool.utf8(n)?.into_owned());
            }
            _ => {
                return Err(Error::new(
                    ErrorKind::Malformed,
                    Some(attr.data_offset()),
                    format!("ModulePackages attribute: entry #{i} is not a package"),
                ))
            }
        }
    }
    let missing: Vec<&String> = packages.iter().filter(|p| !listed.contains(*p)).collect();
    if missing.is_empty() {
        return Ok(None);
    }
    let mut edit = ClassEdit::new(&class);
    for p in missing {
        indices.push(edit.pool.package(p)?);
    }
    if indices.len() > 0xFFFF {
        return Err(Error::new(
            ErrorKind::Unsupported,
            Some(attr.offset),
            "ModulePackages attribute: more than 65535 packages",
        ));
    }
    let written = write_class(&class, &edit);
    // The class attributes are copied last, as they were: the pool grew by
    // `shift` bytes.
    let shift = written.len() - module_info.len();
    let at = attr.offset + shift;
    let end = attr.data_offset() + data.len() + shift;
    let mut out = Vec::with_capacity(written.len() + 2 * indices.len());
    out.extend_from_slice(&written[..at]);
    out.extend_from_slice(&attr.name_index.to_be_bytes());
    out.extend_from_slice(&(2 + 2 * indices.len() as u32).to_be_bytes());
    out.extend_from_slice(&(indices.len() as u16).to_be_bytes());
    for i in &indices {
        out.extend_from_slice(&i.to_be_bytes());
    }
    out.extend_from_slice(&written[end..]);
    Ok(Some(out))
}
