//! The agent's options: `-agentpath:libmajor_agent.so=OPTIONS`, a
//! comma-separated list of `key=value` items and flags:
//!
//! * `aspect=PATH` (repeatable, at least one): an aspect source (`.aj`, or
//!   an `@Aspect` `.java` file);
//! * `cache=DIR`: the aspect cache (default: `major`'s, see
//!   `major_weaver::aspects::cache::default_dir`); `major run --aspect`
//!   compiles the aspects into it before starting `java`, so that the agent
//!   finds javac's output there and never runs javac itself;
//! * `class-cache=DIR`: the cache of woven classes (default:
//!   `woven-classes` in the aspect cache directory; see [`crate::class_cache`]);
//! * `no-class-cache`: weave every class, neither reading nor writing the
//!   cache of woven classes;
//! * `no-weave-ahead`: no thread weaving ahead the classes a previous run
//!   of the program loaded (see `weave_ahead` in the crate's code; on by
//!   default when the cache of woven classes is);
//! * `class-cache-max=MB`: the bound on that cache's size (default 512);
//! * `jdk=HOME`: the JDK whose javac compiles the aspects on a cache miss
//!   (default: the running JVM's `java.home`, else `JAVA_HOME`/`PATH`);
//! * `bypass=guards|duplicate`: the form of the bypass checks, as `major
//!   weave --bypass` (default: as there);
//! * `verbose`: a summary at exit (classes seen, woven, failed) and each
//!   class's failure as it happens;
//! * `dump=DIR`: every class the agent changes is written to
//!   `DIR/<internal name>.class` as the JVM got it (its extra class beside
//!   it), the classes it adds to `DIR/added/`, and the names of all the
//!   classes the hook saw to `DIR/seen.txt` (those the cache of woven
//!   classes missed to `DIR/cache-misses.txt`): for comparing with
//!   `major weave --jdk`;
//! * `fatal`: a class that fails to weave ends the JVM (exit status 70)
//!   instead of being loaded as it was (for CI);
//! * `added-jar=JAR`: the classes the weave adds are on `--patch-module
//!   java.base=JAR` (`major run --aspect` writes it, see
//!   `major_weaver::load_time::added_classes_jar`): the agent checks that
//!   JAR holds exactly its added classes and does not define them itself.
//!   Needed on JDK 25, which verifies the classes the hook changed while the
//!   VM starts, before the agent can define anything.
//! * `woven-image`: the JVM runs on a JDK woven by `major weave --jdk` (image
//!   form) with these aspects and bypass form (`major run --aspect` keeps
//!   one per aspect set in its cache, see
//!   `major_weaver::load_time::WovenJdkCache`): the JDK's classes are woven
//!   already and the added classes are in its `java.base`, so the agent
//!   asks for no early class hook (which would turn class-data sharing
//!   off), defines nothing, passes every class whose bytes are the image's
//!   as it is, and weaves the others (the class path's, custom loaders',
//!   generated classes). It checks at start that the image's added classes
//!   are the ones it would add.
//!
//! Paths cannot hold commas there; `@FILE` instead of the list reads the
//! items from FILE, one a line (a path may then hold commas; `major run
//! --aspect` writes such a file when one does).

use std::path::PathBuf;

/// The parsed options.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Options {
    /// Aspect sources.
    pub aspects: Vec<PathBuf>,
    /// The aspect cache directory.
    pub cache: Option<PathBuf>,
    /// The cache of woven classes, when not the default.
    pub class_cache: Option<PathBuf>,
    /// No cache of woven classes.
    pub no_class_cache: bool,
    /// No thread weaving ahead.
    pub no_weave_ahead: bool,
    /// The bound on the size of the cache of woven classes, in bytes.
    pub class_cache_max: Option<u64>,
    /// The JDK whose javac compiles the aspects.
    pub jdk: Option<PathBuf>,
    /// Report a summary and every failure.
    pub verbose: bool,
    /// A class that fails to weave ends the JVM.
    pub fatal: bool,
    /// Where woven and added classes are written.
    pub dump: Option<PathBuf>,
    /// The form of the bypass checks.
    pub bypass: major_weaver::weave::bypass::BypassForm,
    /// The jar on `--patch-module java.base` that holds the added classes.
    pub added_jar: Option<PathBuf>,
    /// The running JDK is woven with these aspects already.
    pub woven_image: bool,
}

impl Options {
    /// Parses the option string given after `=` in `-agentpath:` (empty
    /// when there is none).
    pub fn parse(s: &str) -> Result<Options, String> {
        if let Some(file) = s.strip_prefix('@') {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("the options file {file}: {e}"))?;
            return Options::parse_items(text.lines());
        }
        Options::parse_items(s.split(','))
    }

    /// The options from their items (`key=value`, flags); empty items are
    /// skipped.
    fn parse_items<'a>(items: impl Iterator<Item = &'a str>) -> Result<Options, String> {
        let mut o = Options::default();
        for item in items.filter(|i| !i.is_empty()) {
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (item, None),
            };
            let need = |v: Option<&str>| {
                v.filter(|v| !v.is_empty())
                    .map(PathBuf::from)
                    .ok_or_else(|| format!("option `{key}` needs a value: {key}=..."))
            };
            match key {
                "aspect" => o.aspects.push(need(value)?),
                "cache" => o.cache = Some(need(value)?),
                "jdk" => o.jdk = Some(need(value)?),
                "class-cache" => o.class_cache = Some(need(value)?),
                "no-class-cache" if value.is_none() => o.no_class_cache = true,
                "no-weave-ahead" if value.is_none() => o.no_weave_ahead = true,
                "class-cache-max" => {
                    let v = value.unwrap_or_default();
                    let mb: u64 = v.parse().map_err(|_| {
                        format!("class-cache-max={v}: expected a size in MiB (class-cache-max=512)")
                    })?;
                    o.class_cache_max = Some(mb << 20);
                }
                "dump" => o.dump = Some(need(value)?),
                "added-jar" => o.added_jar = Some(need(value)?),
                "bypass" => {
                    let v = value.unwrap_or_default();
                    o.bypass = major_weaver::load_time::bypass_form(v).ok_or_else(|| {
                        format!("bypass={v}: expected bypass=guards or bypass=duplicate")
                    })?
                }
                "verbose" if value.is_none() => o.verbose = true,
                "fatal" if value.is_none() => o.fatal = true,
                "woven-image" if value.is_none() => o.woven_image = true,
                _ => {
                    return Err(format!(
                        "unknown option `{item}` (expected aspect=PATH, cache=DIR, jdk=HOME, \
                         class-cache=DIR, no-class-cache, no-weave-ahead, class-cache-max=MB, \
                         dump=DIR, bypass=FORM, added-jar=JAR, woven-image, verbose, fatal; \
                         separated by commas)"
                    ))
                }
            }
        }
        if o.aspects.is_empty() {
            return Err("no aspect given: -agentpath:libmajor_agent.so=aspect=PATH.aj".into());
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_items_and_flags() {
        let o = Options::parse("aspect=/a/A.aj,aspect=B.aj,cache=/c,verbose").unwrap();
        assert_eq!(
            o.aspects,
            vec![PathBuf::from("/a/A.aj"), PathBuf::from("B.aj")]
        );
        assert_eq!(o.cache, Some(PathBuf::from("/c")));
        assert!(o.verbose && !o.fatal);
        assert!(!o.no_class_cache && o.class_cache.is_none());
        let o =
            Options::parse("aspect=A.aj,class-cache=/w,class-cache-max=3,no-class-cache").unwrap();
        assert_eq!(o.class_cache, Some(PathBuf::from("/w")));
        assert_eq!(o.class_cache_max, Some(3 << 20));
        assert!(o.no_class_cache && !o.woven_image);
        assert!(
            Options::parse("aspect=A.aj,woven-image")
                .unwrap()
                .woven_image
        );
        assert!(Options::parse("aspect=A.aj,class-cache-max=lots")
            .unwrap_err()
            .contains("size in MiB"));
    }

    #[test]
    fn reads_an_options_file_one_item_a_line() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("options");
        std::fs::write(&f, "aspect=/a,b/A.aj\n\ncache=/c,d\nverbose\n").unwrap();
        let o = Options::parse(&format!("@{}", f.display())).unwrap();
        assert_eq!(o.aspects, vec![PathBuf::from("/a,b/A.aj")]);
        assert_eq!(o.cache, Some(PathBuf::from("/c,d")));
        assert!(o.verbose);
        let missing = Options::parse("@/no/such/options").unwrap_err();
        assert!(missing.contains("/no/such/options"), "{missing}");
    }

    #[test]
    fn rejects_what_it_does_not_know() {
        assert!(Options::parse("").unwrap_err().contains("no aspect"));
        assert!(Options::parse("aspect=A.aj,colour=red")
            .unwrap_err()
            .contains("unknown option `colour=red`"));
        assert!(Options::parse("aspect=")
            .unwrap_err()
            .contains("needs a value"));
        assert!(Options::parse("aspect=A.aj,verbose=yes").is_err());
        assert!(Options::parse("aspect=A.aj,bypass=sometimes")
            .unwrap_err()
            .contains("bypass=guards or bypass=duplicate"));
        assert_eq!(
            Options::parse("aspect=A.aj,bypass=duplicate")
                .unwrap()
                .bypass,
            major_weaver::weave::bypass::BypassForm::Duplicate
        );
    }
}
