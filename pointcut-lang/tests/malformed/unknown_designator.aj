aspect Tracer {
    before(): exection(* *(..)) && !within(Tracer) {
        System.out.println(thisJoinPoint);
    }
}
