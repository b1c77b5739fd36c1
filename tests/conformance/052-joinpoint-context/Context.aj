import java.util.Arrays;
import org.aspectj.lang.JoinPoint;

public aspect Context {
    pointcut interesting(): (call(* Main.Box.*(..)) || execution(* Main.Box.*(..)) || call(Main.Box.new(..)) || execution(Main.Box.new(..)))
        && !execution(String Main.Box.toString()) && !call(String Main.Box.toString());

    before(): interesting() {
        show("before", thisJoinPoint);
    }

    after() returning(Object r): interesting() {
        show("after returning " + r, thisJoinPoint);
    }

    static void show(String what, JoinPoint jp) {
        System.out.println(what + " " + jp.toShortString());
        System.out.println("  args   " + Arrays.deepToString(jp.getArgs()));
        System.out.println("  this   " + jp.getThis());
        System.out.println("  target " + jp.getTarget());
    }
}
