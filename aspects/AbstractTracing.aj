package major.aspects;

/**
 * A reusable tracing aspect: sub-aspects say what to trace by defining the abstract
 * pointcut; the advice is inherited.
 */
public abstract aspect AbstractTracing {
    public abstract pointcut scope();

    protected abstract pointcut entry(Object self);

    pointcut traced(Object self): entry(self) && scope() && !within(AbstractTracing+);

    before(Object self): traced(self) {
        log("enter " + thisJoinPointStaticPart.getSignature() + " on " + System.identityHashCode(self));
    }

    after(Object self) returning(Object result): traced(self) {
        log("leave " + thisJoinPointStaticPart.getSignature() + " = " + result);
    }

    protected void log(String line) {
        System.err.println(line);
    }
}
