package probe;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.AfterReturning;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;

/** An annotation-style aspect: compiles with plain javac against either runtime. */
@Aspect
public class Watch {
    @Before("execution(* probe.Shapes.stat(..)) && args(f, ..)")
    public void beforeStat(JoinPoint jp, float f) {
    }

    @AfterReturning(pointcut = "call(int probe.Shapes.twice(int))", returning = "r")
    public void returned(Object r) {
    }

    @Around("execution(int probe.Shapes.twice(int))")
    public Object around(ProceedingJoinPoint pjp) throws Throwable {
        return pjp.proceed();
    }
}
