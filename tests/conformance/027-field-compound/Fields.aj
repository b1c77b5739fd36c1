public aspect Fields {
    before(): get(int Main.*) || set(int Main.*) {
        System.out.println(thisJoinPointStaticPart.toShortString());
    }
}
