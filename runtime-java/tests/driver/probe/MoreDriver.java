package probe;

import dump.Dump;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import major.runtime.Factory;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.Signature;

/**
 * The join points of More.java as ajc's weaving with Trace.aj makes them, built
 * through major.runtime.Factory (see Driver). Line numbers are More.java's.
 */
public final class MoreDriver {
    private MoreDriver() {
    }

    static void d(JoinPoint.StaticPart sp, JoinPoint.StaticPart esp, Object self, Object target, Object[] args) {
        Dump.jp(Factory.makeJP(sp, self, target, args), sp, esp);
    }

    static void e(JoinPoint.StaticPart sp, Object self, Object[] args) {
        d(sp, sp, self, self, args);
    }

    static Object[] a(Object... values) {
        return values;
    }

    public static void main(String[] args) throws Exception {
        Factory f = new Factory("More.java", More.class);
        Factory fLeaf = new Factory("More.java", More.Mid.Leaf.class);
        String none = "";

        Signature clinitSig = f.makeInitializerSig(8, "probe.More");
        Signature forName = f.makeMethodSig(9, "forName", "java.lang.Class", "(Ljava/lang/String;)Ljava/lang/Class;",
                "className", "java.lang.ClassNotFoundException");
        Signature catchCnfe = f.makeCatchClauseSig("probe.More", "java.lang.ClassNotFoundException", "<missing>");
        Signature createdSig = f.makeFieldSig(8, "created", "probe.More", "Ljava/lang/Object;");
        Signature mainSig = f.makeMethodSig(9, "main", "probe.More", "([Ljava/lang/String;)V", "args",
                "java.lang.Exception");
        Signature valueOf = f.makeMethodSig(9, "valueOf", "java.lang.Integer", "(I)Ljava/lang/Integer;", "i", none);
        Signature newMore = f.makeConstructorSig(128, "probe.More", "([Ljava/lang/Object;)V", "parts",
                "java.io.IOException,java.lang.InterruptedException");
        Signature gridSig = f.makeFieldSig(0, "grid", "probe.More", "[[C");
        Signature leavesSig = f.makeFieldSig(0, "leaves", "probe.More", "[Lprobe/More$Mid$Leaf;");
        Signature goSig = f.makeMethodSig(136, "go", "probe.More$Mid$Leaf", "([Lprobe/More$Mid$Leaf;)V", "leaves",
                none);
        Signature leafClinit = fLeaf.makeInitializerSig(8, "probe.More$Mid$Leaf");
        Signature newHashMap = f.makeConstructorSig(1, "java.util.HashMap", "()V", none, none);
        Signature put = f.makeMethodSig(1025, "put", "java.util.Map",
                "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", "arg0,arg1", none);
        Signature entrySet = f.makeMethodSig(1025, "entrySet", "java.util.Map", "()Ljava/util/Set;", none, none);
        Signature iterator = f.makeMethodSig(1025, "iterator", "java.util.Set", "()Ljava/util/Iterator;", none, none);
        Signature next = f.makeMethodSig(1025, "next", "java.util.Iterator", "()Ljava/lang/Object;", none, none);
        Signature getKey = f.makeMethodSig(1025, "getKey", "java.util.Map$Entry", "()Ljava/lang/Object;", none, none);
        Signature compareTo = f.makeMethodSig(1025, "compareTo", "java.lang.Comparable", "(Ljava/lang/Object;)I",
                "arg0", none);
        Signature countSig = f.makeFieldSig(8, "count", "probe.More$Mid$Leaf", "J");

        JoinPoint.StaticPart clinit = f.makeESJP(JoinPoint.STATICINITIALIZATION, clinitSig, 12);
        JoinPoint.StaticPart main = f.makeESJP(JoinPoint.METHOD_EXECUTION, mainSig, 29);
        JoinPoint.StaticPart pre = f.makeESJP(JoinPoint.PREINITIALIZATION, newMore, 21);
        JoinPoint.StaticPart init = f.makeESJP(JoinPoint.INITIALIZATION, newMore, 21);
        JoinPoint.StaticPart ctor = f.makeESJP(JoinPoint.CONSTRUCTOR_EXECUTION, newMore, 21);
        JoinPoint.StaticPart leafClinitSp = fLeaf.makeESJP(JoinPoint.STATICINITIALIZATION, leafClinit, 0);
        JoinPoint.StaticPart goExec = fLeaf.makeESJP(JoinPoint.METHOD_EXECUTION, goSig, 46);

        More m = new More("p", 2);
        More.Mid.Leaf[] leaves = new More.Mid.Leaf[2];
        HashMap<String, Integer> map = new HashMap<String, Integer>();
        map.put("k", 1);
        Set<Map.Entry<String, Integer>> entries = map.entrySet();
        Iterator<Map.Entry<String, Integer>> it = entries.iterator();
        Map.Entry<String, Integer> entry = it.next();

        // More.<clinit>
        e(clinit, null, a());
        d(f.makeSJP(JoinPoint.METHOD_CALL, forName, 12), clinit, null, null, a("no.such.Type"));
        d(f.makeSJP(JoinPoint.EXCEPTION_HANDLER, catchCnfe, 13), clinit, null, null,
                a(new ClassNotFoundException()));
        d(f.makeSJP(JoinPoint.FIELD_SET, createdSig, 14), clinit, null, null, a("none"));
        // main: new More("p", 2)
        e(main, null, a((Object) new String[0]));
        d(f.makeSJP(JoinPoint.METHOD_CALL, valueOf, 30), main, null, null, a(2));
        Object[] ctorArgs = a((Object) new Object[] {"p", 2});
        d(f.makeSJP(JoinPoint.CONSTRUCTOR_CALL, newMore, 30), main, null, null, ctorArgs);
        d(pre, pre, null, null, ctorArgs);
        e(init, m, ctorArgs);
        e(ctor, m, ctorArgs);
        d(f.makeSJP(JoinPoint.FIELD_SET, gridSig, 18), ctor, m, m, a((Object) new char[][] {{'a'}}));
        d(f.makeSJP(JoinPoint.FIELD_SET, leavesSig, 23), ctor, m, m, a((Object) leaves));
        // Mid.Leaf.go(m.leaves)
        d(f.makeSJP(JoinPoint.FIELD_GET, leavesSig, 31), main, null, m, a());
        d(f.makeSJP(JoinPoint.METHOD_CALL, goSig, 31), main, null, null, a((Object) leaves));
        e(leafClinitSp, null, a());
        e(goExec, null, a((Object) leaves));
        // the map
        d(f.makeSJP(JoinPoint.CONSTRUCTOR_CALL, newHashMap, 32), main, null, null, a());
        d(f.makeSJP(JoinPoint.METHOD_CALL, valueOf, 33), main, null, null, a(1));
        d(f.makeSJP(JoinPoint.METHOD_CALL, put, 33), main, null, map, a("k", 1));
        d(f.makeSJP(JoinPoint.METHOD_CALL, entrySet, 34), main, null, map, a());
        d(f.makeSJP(JoinPoint.METHOD_CALL, iterator, 34), main, null, entries, a());
        d(f.makeSJP(JoinPoint.METHOD_CALL, next, 34), main, null, it, a());
        d(f.makeSJP(JoinPoint.METHOD_CALL, getKey, 35), main, null, entry, a());
        d(f.makeSJP(JoinPoint.METHOD_CALL, compareTo, 37), main, null, "k", a("j"));
        // Mid.Leaf.count += cmp + m.grid[0][0];
        d(f.makeSJP(JoinPoint.FIELD_GET, gridSig, 38), main, null, m, a());
        d(f.makeSJP(JoinPoint.FIELD_GET, countSig, 39), main, null, null, a());
        d(f.makeSJP(JoinPoint.FIELD_SET, countSig, 39), main, null, null, a(98L));
    }
}
