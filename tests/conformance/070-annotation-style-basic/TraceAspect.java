import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.After;
import org.aspectj.lang.annotation.AfterReturning;
import org.aspectj.lang.annotation.AfterThrowing;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;

@Aspect
public class TraceAspect {
    @Around("execution(int Main.square(int)) && args(x)")
    public Object doubleArg(ProceedingJoinPoint pjp, int x) throws Throwable {
        System.out.println("around " + pjp.toShortString() + " x=" + x);
        return pjp.proceed(new Object[] {x + 1});
    }

    @Before("execution(* Main.*(..)) && !execution(* main(..))")
    public void before(JoinPoint jp) {
        System.out.println("before " + jp.getSignature().getName() + " " + java.util.Arrays.toString(jp.getArgs()));
    }

    @AfterReturning(pointcut = "execution(int Main.*(..))", returning = "r")
    public void returned(JoinPoint.StaticPart sp, int r) {
        System.out.println("returned " + r + " from " + sp.toShortString());
    }

    @AfterThrowing(pointcut = "execution(* Main.fail(..))", throwing = "e")
    public void threw(IllegalStateException e) {
        System.out.println("threw " + e.getMessage());
    }

    @After("execution(void Main.fail(String))")
    public void afterFail() {
        System.out.println("after fail");
    }
}
