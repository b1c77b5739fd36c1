import java.util.ArrayList;
import java.util.List;
import org.aspectj.lang.JoinPoint;

aspect Parts {
    static List<Object> seen = new ArrayList<Object>();

    static int index(Object p) {
        for (int i = 0; i < seen.size(); i++) {
            if (seen.get(i) == p) {
                return i;
            }
        }
        seen.add(p);
        return seen.size() - 1;
    }

    static String show(JoinPoint.StaticPart sp) {
        return "#" + index(sp) + " id=" + sp.getId() + " " + sp + " at " + sp.getSourceLocation();
    }

    before(): (call(int Main.f(int)) || execution(* Main.m())) && !within(Parts) {
        System.out.println(show(thisJoinPointStaticPart));
    }

    before(): call(int Main.g(int)) && !within(Parts) {
        System.out.println(show(thisJoinPointStaticPart) + " in " + show(thisEnclosingJoinPointStaticPart));
    }
}
