package sample.app;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

/** An annotation-style aspect among the sources: a tenth off every price. */
@Aspect
public class Discount {
    @Around("execution(int sample.app.Shop.price(int))")
    public Object tenthOff(ProceedingJoinPoint pjp) throws Throwable {
        int full = (Integer) pjp.proceed();
        return full - full / 10;
    }
}
