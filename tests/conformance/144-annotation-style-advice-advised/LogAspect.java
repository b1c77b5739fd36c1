import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;
@Aspect
public class LogAspect {
    @Before("execution(void Main.work())")
    public void logIt() {
        System.out.println("  log " + describe());
    }

    public String describe() {
        return "LogAspect";
    }
}
