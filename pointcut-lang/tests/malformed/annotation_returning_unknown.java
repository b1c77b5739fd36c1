@Aspect
public class Tracker {
    @AfterReturning(pointcut = "call(*.new(..))", returning = "result")
    public void allocated(Object o) {
    }
}
