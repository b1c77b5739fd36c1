package app;

// x: execution(P.*(..)), w: within(P), s: staticinitialization(P)
public aspect Names {
    pointcut mine(): within(Names) || within(Log);
    before(): execution(static void Outer.*(..)) && !mine() { Log.add("x:Outer"); }
    before(): execution(static void Outer.Inner.*(..)) && !mine() { Log.add("x:Outer.Inner"); }
    before(): execution(static void Outer$Inner.*(..)) && !mine() { Log.add("x:Outer$Inner"); }
    before(): execution(static void app.Outer$Inner.*(..)) && !mine() { Log.add("x:app.Outer$Inner"); }
    before(): execution(static void app.Outer.Inner.*(..)) && !mine() { Log.add("x:app.Outer.Inner"); }
    before(): execution(static void *$Inner.*(..)) && !mine() { Log.add("x:*$Inner"); }
    before(): execution(static void *.Inner.*(..)) && !mine() { Log.add("x:*.Inner"); }
    before(): execution(static void Outer*.*(..)) && !mine() { Log.add("x:Outer*"); }
    before(): execution(static void *Inner.*(..)) && !mine() { Log.add("x:*Inner"); }
    before(): execution(static void Outer$*.*(..)) && !mine() { Log.add("x:Outer$*"); }
    before(): execution(static void Outer.*.*(..)) && !mine() { Log.add("x:Outer.*"); }
    before(): execution(static void Outer.Inner.*.*(..)) && !mine() { Log.add("x:Outer.Inner.*"); }
    before(): execution(static void Outer$Inner$Deep.*(..)) && !mine() { Log.add("x:Outer$Inner$Deep"); }
    before(): execution(static void Outer.Inner$Deep.*(..)) && !mine() { Log.add("x:Outer.Inner$Deep"); }
    before(): execution(static void Outer$Inner.Deep.*(..)) && !mine() { Log.add("x:Outer$Inner.Deep"); }
    before(): execution(static void *$Deep.*(..)) && !mine() { Log.add("x:*$Deep"); }
    before(): execution(static void Out*$In*.*(..)) && !mine() { Log.add("x:Out*$In*"); }
    before(): execution(static void app..*$Inner.*(..)) && !mine() { Log.add("x:app..*$Inner"); }
    before(): execution(static void *..Inner.*(..)) && !mine() { Log.add("x:*..Inner"); }
    before(): execution(static void Outer$Dollar.*(..)) && !mine() { Log.add("x:Outer$Dollar"); }
    before(): execution(static void Outer.Dollar.*(..)) && !mine() { Log.add("x:Outer.Dollar"); }
    before(): execution(static void *$Dollar.*(..)) && !mine() { Log.add("x:*$Dollar"); }
    before(): execution(static void Outer+.*(..)) && !mine() { Log.add("x:Outer+"); }
    before(): execution(static void Outer.Inner+.*(..)) && !mine() { Log.add("x:Outer.Inner+"); }
    before(): execution(static void Outer$Inner+.*(..)) && !mine() { Log.add("x:Outer$Inner+"); }
    before(): execution(static void *..*.*(..)) && !mine() { Log.add("x:*..*"); }
    before(): execution(static void app.*.*(..)) && !mine() { Log.add("x:app.*"); }
    before(): execution(static void *(..)) && within(Outer) && !mine() { Log.add("w:Outer"); }
    before(): execution(static void *(..)) && within(Outer.Inner) && !mine() { Log.add("w:Outer.Inner"); }
    before(): execution(static void *(..)) && within(Outer$Inner) && !mine() { Log.add("w:Outer$Inner"); }
    before(): execution(static void *(..)) && within(app.Outer$Inner) && !mine() { Log.add("w:app.Outer$Inner"); }
    before(): execution(static void *(..)) && within(app.Outer.Inner) && !mine() { Log.add("w:app.Outer.Inner"); }
    before(): execution(static void *(..)) && within(*$Inner) && !mine() { Log.add("w:*$Inner"); }
    before(): execution(static void *(..)) && within(*.Inner) && !mine() { Log.add("w:*.Inner"); }
    before(): execution(static void *(..)) && within(Outer*) && !mine() { Log.add("w:Outer*"); }
    before(): execution(static void *(..)) && within(*Inner) && !mine() { Log.add("w:*Inner"); }
    before(): execution(static void *(..)) && within(Outer$*) && !mine() { Log.add("w:Outer$*"); }
    before(): execution(static void *(..)) && within(Outer.*) && !mine() { Log.add("w:Outer.*"); }
    before(): execution(static void *(..)) && within(Outer.Inner.*) && !mine() { Log.add("w:Outer.Inner.*"); }
    before(): execution(static void *(..)) && within(Outer$Inner$Deep) && !mine() { Log.add("w:Outer$Inner$Deep"); }
    before(): execution(static void *(..)) && within(Outer.Inner$Deep) && !mine() { Log.add("w:Outer.Inner$Deep"); }
    before(): execution(static void *(..)) && within(Outer$Inner.Deep) && !mine() { Log.add("w:Outer$Inner.Deep"); }
    before(): execution(static void *(..)) && within(*$Deep) && !mine() { Log.add("w:*$Deep"); }
    before(): execution(static void *(..)) && within(Out*$In*) && !mine() { Log.add("w:Out*$In*"); }
    before(): execution(static void *(..)) && within(app..*$Inner) && !mine() { Log.add("w:app..*$Inner"); }
    before(): execution(static void *(..)) && within(*..Inner) && !mine() { Log.add("w:*..Inner"); }
    before(): execution(static void *(..)) && within(Outer$Dollar) && !mine() { Log.add("w:Outer$Dollar"); }
    before(): execution(static void *(..)) && within(Outer.Dollar) && !mine() { Log.add("w:Outer.Dollar"); }
    before(): execution(static void *(..)) && within(*$Dollar) && !mine() { Log.add("w:*$Dollar"); }
    before(): execution(static void *(..)) && within(Outer+) && !mine() { Log.add("w:Outer+"); }
    before(): execution(static void *(..)) && within(Outer.Inner+) && !mine() { Log.add("w:Outer.Inner+"); }
    before(): execution(static void *(..)) && within(Outer$Inner+) && !mine() { Log.add("w:Outer$Inner+"); }
    before(): execution(static void *(..)) && within(*..*) && !mine() { Log.add("w:*..*"); }
    before(): execution(static void *(..)) && within(app.*) && !mine() { Log.add("w:app.*"); }
    before(): staticinitialization(Outer) && !mine() { Log.add("s:Outer"); }
    before(): staticinitialization(Outer.Inner) && !mine() { Log.add("s:Outer.Inner"); }
    before(): staticinitialization(Outer$Inner) && !mine() { Log.add("s:Outer$Inner"); }
    before(): staticinitialization(app.Outer$Inner) && !mine() { Log.add("s:app.Outer$Inner"); }
    before(): staticinitialization(app.Outer.Inner) && !mine() { Log.add("s:app.Outer.Inner"); }
    before(): staticinitialization(*$Inner) && !mine() { Log.add("s:*$Inner"); }
    before(): staticinitialization(*.Inner) && !mine() { Log.add("s:*.Inner"); }
    before(): staticinitialization(Outer*) && !mine() { Log.add("s:Outer*"); }
    before(): staticinitialization(*Inner) && !mine() { Log.add("s:*Inner"); }
    before(): staticinitialization(Outer$*) && !mine() { Log.add("s:Outer$*"); }
    before(): staticinitialization(Outer.*) && !mine() { Log.add("s:Outer.*"); }
    before(): staticinitialization(Outer.Inner.*) && !mine() { Log.add("s:Outer.Inner.*"); }
    before(): staticinitialization(Outer$Inner$Deep) && !mine() { Log.add("s:Outer$Inner$Deep"); }
    before(): staticinitialization(Outer.Inner$Deep) && !mine() { Log.add("s:Outer.Inner$Deep"); }
    before(): staticinitialization(Outer$Inner.Deep) && !mine() { Log.add("s:Outer$Inner.Deep"); }
    before(): staticinitialization(*$Deep) && !mine() { Log.add("s:*$Deep"); }
    before(): staticinitialization(Out*$In*) && !mine() { Log.add("s:Out*$In*"); }
    before(): staticinitialization(app..*$Inner) && !mine() { Log.add("s:app..*$Inner"); }
    before(): staticinitialization(*..Inner) && !mine() { Log.add("s:*..Inner"); }
    before(): staticinitialization(Outer$Dollar) && !mine() { Log.add("s:Outer$Dollar"); }
    before(): staticinitialization(Outer.Dollar) && !mine() { Log.add("s:Outer.Dollar"); }
    before(): staticinitialization(*$Dollar) && !mine() { Log.add("s:*$Dollar"); }
    before(): staticinitialization(Outer+) && !mine() { Log.add("s:Outer+"); }
    before(): staticinitialization(Outer.Inner+) && !mine() { Log.add("s:Outer.Inner+"); }
    before(): staticinitialization(Outer$Inner+) && !mine() { Log.add("s:Outer$Inner+"); }
    before(): staticinitialization(*..*) && !mine() { Log.add("s:*..*"); }
    before(): staticinitialization(app.*) && !mine() { Log.add("s:app.*"); }
}
