@Aspect
public class Tracker {
    @Before("call(* *(..)) && target(t)")
    public void called(Object target) {
    }
}
