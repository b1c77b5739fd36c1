//! Full coverage: the packages the weave adds to `java.base` (the runtime,
//! the aspects, their extra classes) made part of `java.base`'s module
//! descriptor and exported to every module.
//!
//! A JDK's run-time image carries its module descriptors as code: the
//! `SystemModules` classes jlink generated build each descriptor with
//! `jdk.internal.module.Builder` (JDK 9 to 25 alike). [`hook_builder`] makes
//! `Builder.build(int)`, for `java.base`, first add the new packages to the
//! builder's packages and an unqualified export of each to its exports. The
//! module system then knows the packages from its first moment, whether the
//! woven classes come from a `--patch-module` jar or a woven run-time image
//! (where nothing else would tell it), and every module and the class path
//! may call the aspects without `--add-exports`.

use major_classfile::opcodes::op;
use major_classfile::rewrite::transform_methods;
use major_classfile::{ClassHierarchy, Error, ErrorKind, Insn, Result};

/// `jdk.internal.module.Builder`.
pub const BUILDER: &str = "jdk/internal/module/Builder";

const SET: &str = "java/util/Set";
const HASH_SET: &str = "java/util/HashSet";

/// `Builder` with `build(int)` extended: when the builder's `name` is
/// `java.base`, `packages` and `exports` are replaced by copies holding
/// `packages` (dotted names) and their unqualified exports. An error if the
/// class does not have the shape this relies on.
pub fn hook_builder(
    bytes: &[u8],
    packages: &[String],
    hierarchy: &dyn ClassHierarchy,
) -> Result<Vec<u8>> {
    let (class, hooked) = transform_methods(
        bytes,
        hierarchy,
        |name, desc| name == "build" && desc == "(I)Ljava/lang/module/ModuleDescriptor;",
        |_, code, pool| {
            let name = pool.field_ref(BUILDER, "name", "Ljava/lang/String;")?;
            let packages_field = pool.field_ref(BUILDER, "packages", "Ljava/util/Set;")?;
            let exports_field = pool.field_ref(BUILDER, "exports", "Ljava/util/Set;")?;
            let equals =
                pool.method_ref("java/lang/String", "equals", "(Ljava/lang/Object;)Z", false)?;
            let hash_set = pool.class(HASH_SET)?;
            let copy = pool.method_ref(HASH_SET, "<init>", "(Ljava/util/Collection;)V", false)?;
            let add = pool.method_ref(SET, "add", "(Ljava/lang/Object;)Z", true)?;
            let empty = pool.method_ref(SET, "of", "()Ljava/util/Set;", true)?;
            let new_exports = pool.method_ref(
                BUILDER,
                "newExports",
                "(Ljava/util/Set;Ljava/lang/String;)Ljava/lang/module/ModuleDescriptor$Exports;",
                false,
            )?;
            let java_base = pool.string("java.base")?;
            let names: Vec<u16> = packages
                .iter()
                .map(|p| pool.string(p))
                .collect::<Result<_>>()?;
            let skip = code.new_label();
            let mut head = vec![
                Insn::Simple(op::ALOAD_0),
                Insn::Cp {
                    op: op::GETFIELD,
                    index: name,
                },
                Insn::Ldc {
                    index: java_base,
                    wide: java_base > 255,
                },
                Insn::Cp {
                    op: op::INVOKEVIRTUAL,
                    index: equals,
                },
                Insn::Jump {
                    op: op::IFEQ,
                    target: skip,
                },
            ];
            // this.packages = new HashSet(this.packages) + names;
            // this.exports = new HashSet(this.exports) + newExports(Set.of(), name)...
            for (field, exports) in [(packages_field, false), (exports_field, true)] {
                head.extend([
                    Insn::Simple(op::ALOAD_0),
                    Insn::Cp {
                        op: op::NEW,
                        index: hash_set,
                    },
                    Insn::Simple(op::DUP),
                    Insn::Simple(op::ALOAD_0),
                    Insn::Cp {
                        op: op::GETFIELD,
                        index: field,
                    },
                    Insn::Cp {
                        op: op::INVOKESPECIAL,
                        index: copy,
                    },
                ]);
                for &n in &names {
                    head.push(Insn::Simple(op::DUP));
                    if exports {
                        head.push(Insn::Cp {
                            op: op::INVOKESTATIC,
                            index: empty,
                        });
                        head.push(Insn::Ldc {
                            index: n,
                            wide: n > 255,
                        });
                        head.push(Insn::Cp {
                            op: op::INVOKESTATIC,
                            index: new_exports,
                        });
                    } else {
                        head.push(Insn::Ldc {
                            index: n,
                            wide: n > 255,
                        });
                    }
                    head.extend([
                        Insn::InvokeInterface {
                            index: add,
                            count: 2,
                        },
                        Insn::Simple(op::POP),
                    ]);
                }
                head.push(Insn::Cp {
                    op: op::PUTFIELD,
                    index: field,
                });
            }
            head.push(Insn::Label(skip));
            head.append(&mut code.insns);
            code.insns = head;
            Ok(())
        },
    )?;
    if hooked == 0 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            None,
            format!(
                "{BUILDER} has no build(int): the packages added to java.base cannot be \
                 declared to this JDK's module system"
            ),
        ));
    }
    Ok(class)
}
