package major.aspects;

import java.util.Collection;

/** Traces mutations of collections, using the advice of AbstractTracing. */
public aspect CollectionTracing extends AbstractTracing {
    public pointcut scope(): within(com.acme..*);

    protected pointcut entry(Object self):
        call(* Collection+.add*(..)) && target(self) || call(* Collection+.remove*(..)) && target(self);

    declare precedence: CollectionTracing, ObjectTracker, *;
}
