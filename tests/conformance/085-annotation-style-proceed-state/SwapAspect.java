import java.util.Arrays;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;

@Aspect
public class SwapAspect {
    @Around("call(int Main.Counter.add(int)) && target(c) && args(k) && within(Main)")
    public Object swap(ProceedingJoinPoint pjp, Main.Counter c, int k) throws Throwable {
        System.out.println("around " + c + " k=" + k + " getTarget " + pjp.getTarget());
        Object r = pjp.proceed(new Object[] {Main.SPARE, k * 10});
        System.out.println("around after proceed getArgs " + Arrays.toString(pjp.getArgs()));
        return r;
    }

    @Before("call(int Main.Counter.add(int)) && args(k) && target(c) && within(Main)")
    public void inside(JoinPoint jp, int k, Main.Counter c) {
        System.out.println("before binds " + c + " k=" + k + ", getTarget " + jp.getTarget()
                + " getArgs " + Arrays.toString(jp.getArgs()));
    }

    @Around("execution(int Main.twice(int)) && this(m)")
    public Object twice(Main m, ProceedingJoinPoint pjp) throws Throwable {
        Object first = pjp.proceed();
        Object second = pjp.proceed(new Object[] {m, 7});
        System.out.println("twice " + first + " then " + second);
        return second;
    }
}
