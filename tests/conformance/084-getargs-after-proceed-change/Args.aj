import java.util.Arrays;

public aspect Args {
    String around(String s, int n): call(String Main.echo(String, int)) && args(s, n) {
        System.out.println("outer sees " + Arrays.toString(thisJoinPoint.getArgs()));
        String r = proceed(s + "!", n + 1);
        System.out.println("outer after proceed sees " + Arrays.toString(thisJoinPoint.getArgs()));
        return r;
    }

    before(String s): call(String Main.echo(String, int)) && args(s, ..) {
        System.out.println("before (inside the around) binds " + s + ", getArgs " + Arrays.toString(thisJoinPoint.getArgs()));
    }

    before(String s): execution(String Main.echo(String, int)) && args(s, ..) {
        System.out.println("execution sees " + s + " " + Arrays.toString(thisJoinPoint.getArgs()));
    }

    after() returning(String r): call(String Main.echo(String, int)) {
        System.out.println("after returning " + r + " sees " + Arrays.toString(thisJoinPoint.getArgs()));
    }
}
