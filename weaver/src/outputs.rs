//! Where a weave writes: one output for all inputs, or — an application of
//! several jars woven into a directory — one woven jar per input, under the
//! input's file name, with the classes major adds (aspects, their extra
//! classes, the runtime) in a jar of their own or in one of the woven jars.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use major_archive::{Archive, ArchiveKind, Compression, OutputArchive, OutputKind};

use crate::report::MajorError;

/// The jar the added classes go to when several inputs are woven into a
/// directory and no other name is given.
pub const DEFAULT_RUNTIME_JAR: &str = "major-runtime.jar";

/// The outputs of a weave and which input goes where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Every output: where it ends up and its kind.
    pub targets: Vec<(PathBuf, OutputKind)>,
    /// For each input, the index in `targets` of the output it is woven into.
    pub of_input: Vec<usize>,
    /// The output the aspect, extra and runtime classes go to.
    pub added: usize,
    /// For each output, whether it is the patch of a run-time image's
    /// module: only changed classes go there, and an empty one is not written.
    pub patches: Vec<bool>,
    /// How the zip outputs hold the classes the weave writes.
    pub compression: Compression,
}

impl Plan {
    /// Plans the outputs of weaving `inputs` into `output`.
    ///
    /// One output holds everything when there is one input or `output` names
    /// a jar/zip, unless `runtime_jar` is given. Otherwise `output` is a
    /// directory receiving one output per input, named as the input (a jar
    /// stays a jar, a class directory a directory), and the added classes
    /// go to the jar `runtime_jar` (default [`DEFAULT_RUNTIME_JAR`]): the
    /// woven input of that name if there is one, else a jar of its own.
    pub fn new(
        inputs: &[&Archive],
        output: &Path,
        runtime_jar: Option<&str>,
    ) -> Result<Plan, MajorError> {
        let out_kind = OutputArchive::kind_for(output);
        let per_input =
            out_kind == OutputKind::Directory && (inputs.len() > 1 || runtime_jar.is_some());
        if !per_input {
            if runtime_jar.is_some() {
                return Err(MajorError::Usage(format!(
                    "--runtime-jar: {} is a jar; the runtime jar is named only when \
                     the output is a directory of woven jars",
                    output.display()
                )));
            }
            return Ok(Plan {
                targets: vec![(output.to_path_buf(), out_kind)],
                of_input: vec![0; inputs.len()],
                added: 0,
                patches: vec![false],
                compression: Compression::Deflate,
            });
        }
        let runtime = runtime_jar.unwrap_or(DEFAULT_RUNTIME_JAR);
        if runtime.is_empty() || runtime.contains('/') || runtime == "." || runtime == ".." {
            return Err(MajorError::Usage(format!(
                "--runtime-jar {runtime:?}: expected a file name (no directory)"
            )));
        }
        let mut targets = Vec::new();
        let mut by_name: HashMap<String, &Path> = HashMap::new();
        for a in inputs {
            let name = a
                .path()
                .file_name()
                .ok_or_else(|| {
                    MajorError::Usage(format!(
                        "{}: an input woven into a directory needs a file name",
                        a.path().display()
                    ))
                })?
                .to_string_lossy()
                .into_owned();
            // A module of a run-time image becomes a jar for --patch-module.
            let name = if a.kind() == ArchiveKind::JImage {
                format!("{name}.jar")
            } else {
                name
            };
            if let Some(first) = by_name.insert(name.clone(), a.path()) {
                return Err(MajorError::Usage(format!(
                    "{} and {} would both be written as {}: each input is woven into \
                     {} under its own file name, so input names must differ",
                    first.display(),
                    a.path().display(),
                    output.join(&name).display(),
                    output.display()
                )));
            }
            let target = output.join(&name);
            let kind = match a.kind() {
                ArchiveKind::Zip => OutputKind::Zip,
                ArchiveKind::Directory => OutputKind::Directory,
                ArchiveKind::Jmod => OutputArchive::kind_for(&target),
                ArchiveKind::JImage => OutputKind::Zip,
            };
            targets.push((target, kind));
        }
        let of_input: Vec<usize> = (0..inputs.len()).collect();
        let mut patches: Vec<bool> = inputs
            .iter()
            .map(|a| a.kind() == ArchiveKind::JImage)
            .collect();
        let added = match targets
            .iter()
            .position(|(t, _)| t.file_name().is_some_and(|n| n == runtime))
        {
            Some(i) => i,
            None => {
                let target = output.join(runtime);
                let kind = OutputArchive::kind_for(&target);
                targets.push((target, kind));
                patches.push(false);
                targets.len() - 1
            }
        };
        Ok(Plan {
            targets,
            of_input,
            added,
            patches,
            compression: Compression::Deflate,
        })
    }

    /// The same plan, its outputs holding the classes the weave writes as
    /// `compression` says. A full-coverage weave stores them: its outputs
    /// are JDK patches (or the staging of a woven image) that the JVM reads
    /// once at start, where stored entries save the compression at weave
    /// time and the inflation at every start (`bench/README.md`).
    pub fn with_compression(self, compression: Compression) -> Plan {
        Plan {
            compression,
            ..self
        }
    }

    /// Whether output `o` is the patch of a run-time image's module.
    pub fn is_patch(&self, o: usize) -> bool {
        self.patches[o]
    }

    /// The kind of the output input `input` goes to.
    pub fn kind_of_input(&self, input: usize) -> OutputKind {
        self.targets[self.of_input[input]].1
    }

    /// The kind of the output the added classes go to.
    pub fn added_kind(&self) -> OutputKind {
        self.targets[self.added].1
    }

    /// Starts every output (nothing appears at a target before it is
    /// finished). The directory that receives one output per input is created
    /// if missing; the returned guard removes it again unless
    /// [`CreatedDir::keep`] is called (once every output is in place), so a
    /// failed run leaves nothing behind.
    pub fn create(&self) -> Result<(Vec<OutputArchive>, CreatedDir), MajorError> {
        let parent = match self.targets.as_slice() {
            [_] => None,
            [(first, _), ..] => first.parent().filter(|p| !p.exists()),
            [] => None,
        };
        let guard = CreatedDir {
            path: parent.map(Path::to_path_buf),
        };
        let outs = self
            .targets
            .iter()
            .map(|(t, k)| OutputArchive::create(t, *k).map_err(MajorError::from))
            .collect::<Result<_, _>>()?;
        Ok((outs, guard))
    }
}

/// A directory a weave created for its outputs: removed when dropped (if
/// empty, as it is once the unfinished outputs are dropped), unless kept.
#[derive(Debug)]
#[must_use = "dropping it removes the directory"]
pub struct CreatedDir {
    path: Option<PathBuf>,
}

impl CreatedDir {
    /// Keeps the directory: the outputs in it are finished.
    pub fn keep(mut self) {
        self.path = None;
    }
}

impl Drop for CreatedDir {
    fn drop(&mut self) {
        if let Some(p) = &self.path {
            let _ = std::fs::remove_dir(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jar(dir: &Path, name: &str) -> Archive {
        let p = dir.join(name);
        let mut out = OutputArchive::create(&p, OutputKind::Zip).unwrap();
        out.write("a.txt", b"x").unwrap();
        out.finish().unwrap();
        Archive::open(&p).unwrap()
    }

    #[test]
    fn one_input_or_a_jar_output_is_one_output() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (jar(d.path(), "a.jar"), jar(d.path(), "b.jar"));
        let p = Plan::new(&[&a], &d.path().join("out"), None).unwrap();
        assert_eq!(p.targets.len(), 1);
        let p = Plan::new(&[&a, &b], &d.path().join("all.jar"), None).unwrap();
        assert_eq!(p.of_input, vec![0, 0]);
        assert_eq!(p.targets[0].1, OutputKind::Zip);
        assert!(Plan::new(&[&a, &b], &d.path().join("all.jar"), Some("r.jar")).is_err());
    }

    #[test]
    fn several_inputs_into_a_directory_are_one_jar_each() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (jar(d.path(), "a.jar"), jar(d.path(), "b.jar"));
        let out = d.path().join("out");
        let p = Plan::new(&[&a, &b], &out, None).unwrap();
        assert_eq!(
            p.targets,
            vec![
                (out.join("a.jar"), OutputKind::Zip),
                (out.join("b.jar"), OutputKind::Zip),
                (out.join(DEFAULT_RUNTIME_JAR), OutputKind::Zip),
            ]
        );
        assert_eq!((p.of_input.clone(), p.added), (vec![0, 1], 2));
        let p = Plan::new(&[&a, &b], &out, Some("b.jar")).unwrap();
        assert_eq!((p.targets.len(), p.added), (2, 1));
        assert!(Plan::new(&[&a, &b], &out, Some("x/y.jar")).is_err());
    }

    #[test]
    fn inputs_of_the_same_name_are_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("x")).unwrap();
        let (a, b) = (jar(d.path(), "a.jar"), jar(&d.path().join("x"), "a.jar"));
        let err = Plan::new(&[&a, &b], &d.path().join("out"), None).unwrap_err();
        assert!(err.to_string().contains("both be written as"), "{err}");
    }
}
