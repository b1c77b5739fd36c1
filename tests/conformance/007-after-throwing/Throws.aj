public aspect Throws {
    after() throwing: execution(* Main.risky(..)) || execution(* Main.outer(..)) {
        System.out.println("threw out of " + thisJoinPointStaticPart.toShortString());
    }

    after() throwing: call(* Main.risky(..)) {
        System.out.println("call threw: " + thisJoinPointStaticPart.toShortString());
    }
}
