import org.aspectj.lang.JoinPoint;

aspect Parts {
    static String show(JoinPoint.StaticPart sp) {
        return "id=" + sp.getId() + " " + sp.toLongString() + " at " + sp.getSourceLocation().getFileName()
            + ":" + sp.getSourceLocation().getLine();
    }

    before(): (call(int Main.*(int)) || execution(* Main.m())) && !within(Parts) {
        System.out.println(show(thisJoinPointStaticPart) + " in " + show(thisEnclosingJoinPointStaticPart));
    }
}
