//! The semantic pass on well-formed aspects: what resolution produces (slots,
//! inlined references, inherited advice, resolved names).

use major_pointcut_lang::{compile, Program, SourceFile};

fn ok(files: &[(&str, &str)]) -> Program {
    let files = files.iter().map(|(n, t)| SourceFile::new(n, *t)).collect();
    compile(files).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn advice_pcs(p: &Program, aspect: &str) -> Vec<String> {
    p.aspects
        .iter()
        .find(|a| a.name.ends_with(aspect))
        .unwrap_or_else(|| panic!("no aspect {aspect}"))
        .advice
        .iter()
        .map(|a| a.pointcut.to_string())
        .collect()
}

#[test]
fn binding_on_every_branch_is_accepted() {
    let p = ok(&[(
        "A.aj",
        "aspect A { before(Object o): call(* *(..)) && this(o) || execution(* *(..)) && this(o) { } }",
    )]);
    assert_eq!(
        advice_pcs(&p, "A"),
        ["(|| (&& call(method{ returns=* name=* params=(..) }) this($0)) (&& execution(method{ returns=* name=* params=(..) }) this($0)))"]
    );
}

#[test]
fn slots_are_parameters_then_the_returning_formal() {
    let p = ok(&[(
        "A.aj",
        "aspect A { after(int a, String b) returning(Object r): call(* *(int, String)) && args(a, b) { } }",
    )]);
    let ad = &p.aspects[0].advice[0];
    let names: Vec<&str> = ad.formals.iter().map(|f| f.name.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "r"]);
    assert!(ad.pointcut.to_string().ends_with("args($0, $1))"));
}

#[test]
fn bindings_inside_cflow_and_through_references() {
    let p = ok(&[(
        "A.aj",
        "aspect A {
            pointcut entry(Object req): execution(* *..*Servlet.service(..)) && args(req, ..);
            before(Object r): call(* java.sql..*.execute*(..)) && cflow(entry(r)) { }
            before(): entry(String) { }
        }",
    )]);
    let pcs = advice_pcs(&p, "A");
    assert!(pcs[0].contains("cflow((&& execution("), "{}", pcs[0]);
    assert!(pcs[0].contains("args($0, ..)"), "{}", pcs[0]);
    assert!(pcs[1].contains("args(String="), "{}", pcs[1]);
}

#[test]
fn abstract_pointcuts_resolve_in_the_concrete_aspect_across_files() {
    let p = ok(&[
        (
            "lib/Base.aj",
            "package lib;
             public abstract aspect Base {
                 public abstract pointcut scope();
                 pointcut inScope(): scope() && !within(Base+);
                 before(): inScope() && execution(* *(..)) { }
             }",
        ),
        (
            "app/Mine.aj",
            "package app;
             import lib.Base;
             aspect Mine extends Base {
                 public pointcut scope(): within(app..*);
                 after() returning: scope() && call(* *(..)) { }
             }",
        ),
    ]);
    let base = p.aspects.iter().find(|a| a.name == "lib.Base").unwrap();
    assert!(base.is_abstract && base.advice.is_empty());
    let mine = p.aspects.iter().find(|a| a.name == "app.Mine").unwrap();
    assert_eq!(mine.advice.len(), 2);
    assert_eq!(mine.advice[0].declared_in, "app.Mine");
    assert_eq!(mine.advice[1].declared_in, "lib.Base");
    let inherited = mine.advice[1].pointcut.to_string();
    assert!(inherited.contains("within(app..*)"), "{inherited}");
    assert!(inherited.contains("within(Base+=lib/Base)"), "{inherited}");
    assert!(!inherited.contains("abstract"), "{inherited}");
}

#[test]
fn qualified_references_to_other_aspects() {
    let p = ok(&[(
        "A.aj",
        "package p;
         aspect Shared { public pointcut app(): within(com.acme..*); }
         aspect User { before(): Shared.app() && call(* *(..)) { } }
         aspect User2 { before(): p.Shared.app() && call(* *(..)) { } }",
    )]);
    assert!(advice_pcs(&p, "User")[0].contains("within(com.acme..*)"));
    assert!(advice_pcs(&p, "User2")[0].contains("within(com.acme..*)"));
}

#[test]
fn type_names_resolve_through_imports() {
    let p = ok(&[(
        "A.aj",
        "package com.acme;
         import java.util.List;
         import java.io.*;
         aspect A { before(): within(List) || within(Order) || within(String) || within(Reader) { } }",
    )]);
    let pc = &advice_pcs(&p, "A")[0];
    for want in [
        "List=java/util/List",
        "Order=com/acme/Order",
        "String=com/acme/String",
        "Reader=com/acme/Reader",
    ] {
        assert!(pc.contains(want), "{want} in {pc}");
    }
    // Candidates keep every reading, for the matcher to pick the one that exists.
    let a = &p.aspects[0];
    assert_eq!(
        a.scope.candidates("Reader"),
        ["com/acme/Reader", "java/io/Reader", "java/lang/Reader"]
    );
}

#[test]
fn singleton_per_clause_privileged_and_declares() {
    let p = ok(&[(
        "A.aj",
        "privileged aspect A issingleton() {
            declare precedence: A, com.acme..*;
            declare error: set(* com.acme.Config.*) && !withincode(com.acme.Config.new(..)): \"Config is immutable\";
            declare warning: call(* java.util.Vector.*(..)): \"no \" + \"Vector\";
         }",
    )]);
    let a = &p.aspects[0];
    assert_eq!(a.precedence.len(), 1);
    assert_eq!(a.declares.len(), 2);
    assert!(a.declares[0].is_error);
    assert_eq!(a.declares[1].message, "no Vector");
}

#[test]
fn annotation_style_with_precedence_warning_and_if() {
    let p = ok(&[(
        "Checks.java",
        r#"package com.acme;
        import org.aspectj.lang.annotation.*;
        @Aspect
        @DeclarePrecedence("Checks, *")
        public class Checks {
            @DeclareWarning("call(* java.util.Vector.*(..))")
            static final String VECTOR = "Vector is " + "slow";

            @Pointcut("execution(* *(..)) && args(n) && if()")
            public static boolean big(int n) { return n > 10; }

            @Before("big(n)")
            public void before(int n) { }

            @AfterThrowing(pointcut = "execution(* com.acme..*(..))", throwing = "e")
            public void failed(RuntimeException e) { }
        }"#,
    )]);
    let a = &p.aspects[0];
    assert!(a.annotation_style);
    assert_eq!(a.precedence.len(), 1);
    assert_eq!(a.declares.len(), 1);
    assert_eq!(a.declares[0].message, "Vector is slow");
    assert_eq!(a.advice.len(), 2);
    assert!(
        a.advice[0].pointcut.to_string().contains("if()[n=$0]"),
        "{}",
        a.advice[0].pointcut
    );
    assert_eq!(a.advice[1].kind.name(), "after throwing");
    assert_eq!(a.advice[1].formals[0].name.name, "e");
}

#[test]
fn diagnostics_name_file_line_and_column() {
    let files = vec![SourceFile::new(
        "x/A.aj",
        "aspect A {\n  before(): nope() { }\n}\n",
    )];
    let err = compile(files).unwrap_err();
    assert_eq!(err.0.len(), 1);
    assert_eq!(err.0[0].line_col(), Some((2, 13)));
    assert_eq!(
        err.to_string(),
        "x/A.aj:2:13: unknown pointcut or designator `nope`"
    );
}

#[test]
fn contradictory_kinds_give_a_warning_not_an_error() {
    let p = ok(&[(
        "A.aj",
        "aspect A { before(): call(* *(..)) && execution(* *(..)) { } }",
    )]);
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(p.warnings[0].code, "pointcut::never-matches");
    assert_eq!(p.warnings[0].line_col(), Some((1, 22)));
    let p = ok(&[(
        "A.aj",
        "aspect A { before(): (call(* *(..)) || execution(* *(..))) && execution(* *(..)) { } }",
    )]);
    assert!(p.warnings.is_empty());
}
