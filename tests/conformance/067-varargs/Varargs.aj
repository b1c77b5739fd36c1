import java.util.Arrays;

public aspect Varargs {
    before(): execution(* *(String...)) && within(Main) {
        System.out.println("String... " + Arrays.deepToString(thisJoinPoint.getArgs()));
    }

    before(): execution(* *(String[])) && within(Main) {
        System.out.println("String[] (same method) " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(* *(int, int...)) {
        System.out.println("int, int... " + Arrays.deepToString(thisJoinPoint.getArgs()));
    }

    int around(String[] items): call(int Main.count(String...)) && args(items) {
        return proceed(new String[] {"replaced"}) * 100 + items.length;
    }

    before(Object[] values): call(String Main.format(String, Object...)) && args(*, values) {
        System.out.println("format values " + Arrays.toString(values));
    }
}
