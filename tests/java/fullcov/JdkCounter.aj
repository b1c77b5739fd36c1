package major.aspects;

/** Every execution of a method or constructor anywhere (ExecutionCounts). */
public aspect JdkCounter extends ExecutionCounts {
    protected pointcut counted(): execution(* *(..)) || execution(*.new(..));
}
