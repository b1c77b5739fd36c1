public aspect ThisTarget {
    before(Main.Dog d): call(String Main.Animal.sound()) && target(d) {
        System.out.println("  calling sound on a Dog");
    }

    before(Main.Animal caller, Main.Cat callee): call(* *.sound()) && this(caller) && target(callee) {
        System.out.println("  " + caller.getClass().getSimpleName() + " calls a Cat");
    }

    before(Object self): execution(* Main.Animal+.sound()) && this(self) {
        System.out.println("  executing in " + self.getClass().getSimpleName()
            + " (getThis==getTarget: " + (thisJoinPoint.getThis() == thisJoinPoint.getTarget()) + ")");
    }

    before(): call(* Main.Animal.sound()) && !this(Main.Animal) {
        System.out.println("  called from static code: getThis=" + thisJoinPoint.getThis());
    }
}
