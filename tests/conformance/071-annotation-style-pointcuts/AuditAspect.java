import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.AfterReturning;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;
import org.aspectj.lang.annotation.DeclarePrecedence;
import org.aspectj.lang.annotation.Pointcut;

@Aspect
@DeclarePrecedence("AuditAspect, DefaultAspect")
public class AuditAspect {
    @Pointcut("call(* Main.Store.*(..)) && target(store) && args(key, ..)")
    void storeOp(Main.Store store, String key) {
    }

    @Before("storeOp(store, key)")
    public void op(JoinPoint.StaticPart sp, JoinPoint.EnclosingStaticPart esp, Main.Store store, String key) {
        System.out.println("audit " + sp.getSignature().getName() + "(" + key + ") in " + esp.toShortString());
    }

    @AfterReturning(pointcut = "storeOp(*, key) && call(Integer *.get(..))", returning = "v")
    public void got(String key, Integer v) {
        System.out.println("audit got " + key + " = " + v);
    }
}
