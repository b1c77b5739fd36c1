package counting;

import java.util.concurrent.atomic.AtomicLong;

/** Counts the executions of Greeter.greet, in classes defined at run time. */
public aspect Greetings {
    static final AtomicLong greets = new AtomicLong();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
            System.err.println("Greetings: " + greets.get() + " greet executions")));
    }

    before(): execution(String app.Dynamic.Greeter+.greet(String)) {
        greets.incrementAndGet();
    }
}
