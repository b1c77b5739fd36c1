package accessors;

/** Needs a join point's static part in every method, so every class file
 *  before Java 7 (the JDK 17 reflection accessors among them) gets an
 *  extra class of static parts. */
public aspect StaticParts {
    private static long executions;

    before(): execution(* *(..)) && !within(StaticParts) {
        if (thisJoinPointStaticPart != null) {
            executions++;
        }
    }
}
