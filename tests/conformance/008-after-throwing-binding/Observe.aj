import java.io.IOException;

public aspect Observe {
    after() throwing(IllegalStateException e): execution(* Main.fail(int)) {
        System.out.println("  IllegalStateException: " + e.getMessage());
    }

    after() throwing(RuntimeException e): execution(* Main.fail(int)) {
        System.out.println("  RuntimeException: " + e.getMessage());
    }

    after() throwing(IOException e): execution(* Main.fail(int)) {
        System.out.println("  IOException: " + e.getMessage());
    }

    after() throwing(Throwable t): execution(* Main.fail(int)) {
        System.out.println("  Throwable: " + t.getClass().getName());
    }
}
