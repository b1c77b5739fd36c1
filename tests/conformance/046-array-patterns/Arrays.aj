public aspect Arrays {
    before(): execution(* *(int[])) {
        System.out.println("int[] param: " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(String[] *(..)) {
        System.out.println("returns String[]: " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(* *(char[][])) {
        System.out.println("char[][] param: " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(Object[] Main.*(..)) {
        System.out.println("returns Object[]: " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(*[] Main.*(..)) {
        System.out.println("returns any array: " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(int[] a): execution(* Main.*(..)) && args(a) {
        System.out.println("bound int[] of length " + a.length);
    }

    before(): execution(* *(String[])) && within(Main) {
        System.out.println("String[] param: " + thisJoinPointStaticPart.getSignature().getName());
    }
}
