aspect Tracker {
    after(Object target) returning: call(* *(..)) {
        System.out.println(target);
    }
}
