package app;

/** Constructs itself through reflection: with -Dsun.reflect.noInflation=true
 *  JDK 17 generates a constructor accessor class at the first call. */
public class Reflective {
    public Reflective() {}

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 3; i++) {
            Reflective.class.getConstructor().newInstance();
        }
        System.out.println("constructed 3 times");
    }
}
