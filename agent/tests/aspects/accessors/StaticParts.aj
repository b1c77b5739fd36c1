package accessors;

/** Needs a join point's static part in every method, so every class file
 *  before Java 7 (the JDK 17 reflection accessors among them) gets an
 *  extra class of static parts. Prints, at exit, the executions it saw in
 *  the accessors (`jdk.internal.reflect.Generated*`), by signature. */
public aspect StaticParts {
    private static final java.util.Map<String, Integer> accessors =
        new java.util.TreeMap<String, Integer>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread() {
            public void run() {
                synchronized (accessors) {
                    for (java.util.Map.Entry<String, Integer> e : accessors.entrySet()) {
                        System.out.println("accessor " + e.getKey() + ": " + e.getValue());
                    }
                }
            }
        });
    }

    before(): execution(* *(..)) && !within(accessors..*) {
        String type = thisJoinPointStaticPart.getSignature().getDeclaringTypeName();
        if (type.startsWith("jdk.internal.reflect.Generated")) {
            String name = thisJoinPointStaticPart.getSignature().getName()
                + " in " + thisJoinPointStaticPart.getSourceLocation().getWithinType().getName()
                    .replaceAll("[0-9]+$", "N");
            synchronized (accessors) {
                Integer n = accessors.get(name);
                accessors.put(name, n == null ? 1 : n + 1);
            }
        }
    }
}
