@Aspect
public class Tracer {
    @Before("if(\"a\".isEmpty()) && \u0063all(* *(..)) && wthin(Foo)")
    public void enter() {
    }
}
