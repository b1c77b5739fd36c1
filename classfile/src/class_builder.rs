//! Classes made from scratch (the weaver's extra classes and closures): a pool
//! built from nothing, fields, methods whose bodies are [`Code`] lists (frames
//! computed), written in one go.

use crate::code::Code;
use crate::error::Result;
use crate::frames::{self, MethodContext};
use crate::hierarchy::ClassHierarchy;
use crate::pool_builder::PoolBuilder;

/// A class being built.
pub struct ClassBuilder {
    pool: PoolBuilder<'static>,
    major_version: u16,
    access: u16,
    name: String,
    this_class: u16,
    super_class: u16,
    interfaces: Vec<u16>,
    fields: Vec<Vec<u8>>,
    methods: Vec<Vec<u8>>,
    attributes: Vec<Vec<u8>>,
}

impl ClassBuilder {
    /// A class `name` (internal name) extending `super_name`, for class-file
    /// version `major_version`.
    pub fn new(major_version: u16, access: u16, name: &str, super_name: &str) -> Result<Self> {
        let mut pool = PoolBuilder::empty();
        let this_class = pool.class(name)?;
        let super_class = pool.class(super_name)?;
        Ok(ClassBuilder {
            pool,
            major_version,
            access,
            name: name.to_string(),
            this_class,
            super_class,
            interfaces: Vec::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            attributes: Vec::new(),
        })
    }

    /// The class's constant pool, for instructions to refer to.
    pub fn pool(&mut self) -> &mut PoolBuilder<'static> {
        &mut self.pool
    }

    /// Adds a direct super interface.
    pub fn add_interface(&mut self, name: &str) -> Result<()> {
        let i = self.pool.class(name)?;
        self.interfaces.push(i);
        Ok(())
    }

    /// Adds a field without attributes.
    pub fn add_field(&mut self, access: u16, name: &str, descriptor: &str) -> Result<()> {
        let f = self.field_head(access, name, descriptor, 0)?;
        self.fields.push(f);
        Ok(())
    }

    /// Adds a field with one runtime-visible annotation without elements, of
    /// type `annotation` (a descriptor: `Ljdk/internal/vm/annotation/Stable;`).
    pub fn add_annotated_field(
        &mut self,
        access: u16,
        name: &str,
        descriptor: &str,
        annotation: &str,
    ) -> Result<()> {
        let mut f = self.field_head(access, name, descriptor, 1)?;
        f.extend_from_slice(&self.pool.utf8("RuntimeVisibleAnnotations")?.to_be_bytes());
        f.extend_from_slice(&6u32.to_be_bytes());
        f.extend_from_slice(&1u16.to_be_bytes()); // one annotation
        f.extend_from_slice(&self.pool.utf8(annotation)?.to_be_bytes());
        f.extend_from_slice(&0u16.to_be_bytes()); // no element-value pairs
        self.fields.push(f);
        Ok(())
    }

    /// A `field_info` up to its attributes, `attributes` of which follow.
    fn field_head(
        &mut self,
        access: u16,
        name: &str,
        descriptor: &str,
        attributes: u16,
    ) -> Result<Vec<u8>> {
        let mut f = Vec::with_capacity(20);
        f.extend_from_slice(&access.to_be_bytes());
        f.extend_from_slice(&self.pool.utf8(name)?.to_be_bytes());
        f.extend_from_slice(&self.pool.utf8(descriptor)?.to_be_bytes());
        f.extend_from_slice(&attributes.to_be_bytes());
        Ok(f)
    }

    /// Adds a method; with `code`, its frames, max_stack and max_locals are computed
    /// first (so `code` may be built without caring about them).
    pub fn add_method(
        &mut self,
        access: u16,
        name: &str,
        descriptor: &str,
        code: Option<&mut Code>,
        hierarchy: &dyn ClassHierarchy,
    ) -> Result<()> {
        let mut m = Vec::new();
        m.extend_from_slice(&access.to_be_bytes());
        m.extend_from_slice(&self.pool.utf8(name)?.to_be_bytes());
        m.extend_from_slice(&self.pool.utf8(descriptor)?.to_be_bytes());
        match code {
            None => m.extend_from_slice(&0u16.to_be_bytes()),
            Some(code) => {
                let ctx = MethodContext {
                    class_name: &self.name,
                    name,
                    descriptor,
                    is_static: access & crate::class_reader::ACC_STATIC != 0,
                    major_version: self.major_version,
                };
                frames::compute(code, &ctx, &mut self.pool, hierarchy)?;
                let code_name = self.pool.utf8("Code")?;
                m.extend_from_slice(&1u16.to_be_bytes());
                code.write_attribute(code_name, &code.layout(), &mut m)
                    .map_err(|e| e.in_method(name, descriptor).in_class(self.name.as_str()))?;
            }
        }
        self.methods.push(m);
        Ok(())
    }

    /// Adds a `SourceFile` attribute.
    pub fn add_source_file(&mut self, file: &str) -> Result<()> {
        let mut a = Vec::with_capacity(8);
        a.extend_from_slice(&self.pool.utf8("SourceFile")?.to_be_bytes());
        a.extend_from_slice(&2u32.to_be_bytes());
        a.extend_from_slice(&self.pool.utf8(file)?.to_be_bytes());
        self.attributes.push(a);
        Ok(())
    }

    /// The class file.
    pub fn finish(self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&0xCAFE_BABEu32.to_be_bytes());
        out.extend_from_slice(&0u16.to_be_bytes());
        out.extend_from_slice(&self.major_version.to_be_bytes());
        self.pool.write(&mut out);
        out.extend_from_slice(&self.access.to_be_bytes());
        out.extend_from_slice(&self.this_class.to_be_bytes());
        out.extend_from_slice(&self.super_class.to_be_bytes());
        out.extend_from_slice(&(self.interfaces.len() as u16).to_be_bytes());
        for i in &self.interfaces {
            out.extend_from_slice(&i.to_be_bytes());
        }
        for list in [&self.fields, &self.methods] {
            out.extend_from_slice(&(list.len() as u16).to_be_bytes());
            for x in list {
                out.extend_from_slice(x);
            }
        }
        out.extend_from_slice(&(self.attributes.len() as u16).to_be_bytes());
        for a in &self.attributes {
            out.extend_from_slice(a);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::class_reader::ClassFile;
    use crate::code::Insn;
    use crate::hierarchy::ClassInfo;
    use crate::opcodes::op;

    struct NoClasses;
    impl ClassHierarchy for NoClasses {
        fn class_info(&self, _: &str) -> Option<ClassInfo> {
            None
        }
    }

    #[test]
    fn builds_a_class_that_parses() {
        let mut b = ClassBuilder::new(55, 0x0021, "p/Extra", "java/lang/Object").unwrap();
        b.add_field(0x0019, "COUNT", "I").unwrap();
        let f = b.pool().field_ref("p/Extra", "COUNT", "I").unwrap();
        let mut code = Code::empty();
        code.insns.extend([
            Insn::Simple(4),
            Insn::Cp {
                op: op::PUTSTATIC,
                index: f,
            },
            Insn::Simple(op::RETURN),
        ]);
        b.add_method(0x0008, "<clinit>", "()V", Some(&mut code), &NoClasses)
            .unwrap();
        b.add_source_file("Extra.java").unwrap();
        let bytes = b.finish();
        let c = ClassFile::parse(&bytes).unwrap();
        assert_eq!(c.name().unwrap(), "p/Extra");
        assert_eq!(c.fields.len(), 1);
        assert_eq!(c.methods.len(), 1);
        assert_eq!(code.max_stack, 1);
    }

    #[test]
    fn an_annotated_field_reads_back_with_its_annotation() {
        let mut b = ClassBuilder::new(61, 0x0021, "p/Flags", "java/lang/Object").unwrap();
        b.add_annotated_field(0x0009, "on", "Z", "Ljdk/internal/vm/annotation/Stable;")
            .unwrap();
        b.add_field(0x0009, "off", "Z").unwrap();
        let bytes = b.finish();
        let c = ClassFile::parse(&bytes).unwrap();
        let types = |i: usize| {
            crate::annotations::annotation_types(&c.fields[i].attributes, &c.pool)
                .unwrap()
                .into_iter()
                .map(|t| t.into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(c.member_name(&c.fields[0]).unwrap(), "on");
        assert_eq!(types(0), ["jdk/internal/vm/annotation/Stable"]);
        assert!(types(1).is_empty());
    }
}
