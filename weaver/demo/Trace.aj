import java.util.List;

/** `major demo`'s tracer: an around advice, thisJoinPoint, a binding. */
public aspect Trace {
    double around(List shapes): execution(static double Main.total(List)) && args(shapes) {
        long start = System.nanoTime();
        double area = proceed(shapes);
        System.out.println("  [trace] " + thisJoinPointStaticPart.toShortString() + " over "
            + shapes.size() + " shapes took " + (System.nanoTime() - start) / 1000 + " us");
        return area;
    }

    before(): call(* Main.Shape+.area()) && within(Main) {
        System.out.println("  [trace] " + thisJoinPoint.getSignature().toShortString()
            + " at line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }
}
