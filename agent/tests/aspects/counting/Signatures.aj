package counting;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The distinct signatures of the ArrayList methods executed, from their
 * static parts: in full coverage, java.util.ArrayList gets an extra class
 * (ArrayList$MajorStatics) that the boot loader must have.
 */
public aspect Signatures {
    static final Set<String> signatures = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
            System.err.println("Signatures: " + signatures.size() + " ArrayList methods")));
    }

    before(): execution(* java.util.ArrayList.*(..)) {
        signatures.add(thisJoinPointStaticPart.getSignature().toString());
    }
}
