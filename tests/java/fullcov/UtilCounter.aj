package major.aspects;

/** Every execution of a method or constructor of java.util (ExecutionCounts). */
public aspect UtilCounter extends ExecutionCounts {
    protected pointcut counted(): execution(* java.util..*(..)) || execution(java.util..*.new(..));
}
