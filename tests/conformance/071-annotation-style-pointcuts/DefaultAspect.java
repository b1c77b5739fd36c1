import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

@Aspect
public class DefaultAspect {
    @Around("call(Integer Main.Store.get(String))")
    public Object orDefault(ProceedingJoinPoint pjp) throws Throwable {
        Object v = pjp.proceed();
        System.out.println("  default? " + (v == null));
        return v == null ? Integer.valueOf(-1) : v;
    }
}
