package major.aspects;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.AfterReturning;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;
import org.aspectj.lang.annotation.Pointcut;

/** The annotation style: compiled by plain javac, woven by major. */
@Aspect
public class AnnotatedTracer {
    @Pointcut("execution(public * com.acme..*.*(..)) && !within(AnnotatedTracer)")
    void publicApi() {}

    @Pointcut("publicApi() && args(name, ..)")
    void withName(String name) {}

    @Before("withName(name)")
    public void enter(JoinPoint jp, String name) {
        System.err.println("enter " + jp.getSignature() + " for \"" + name + "\"");
    }

    @AfterReturning(pointcut = "publicApi()", returning = "result")
    public void leave(JoinPoint.StaticPart sjp, Object result) {
        System.err.println("leave " + sjp.getSignature() + " = " + result);
    }

    @Around("execution(* com.acme..*Repository.find*(..)) "
            + "&& @annotation(cached)")
    public Object cache(ProceedingJoinPoint pjp, Cached cached) throws Throwable {
        return pjp.proceed();
    }

    /** A marker the around advice binds. */
    public @interface Cached {}
}
