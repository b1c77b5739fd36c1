package major.aspects;

/**
 * Before advice on every method and constructor execution, with an empty body:
 * woven into the JDK (bench/full_coverage.sh), it measures the price of the
 * weaving itself, bypasses included.
 */
public aspect EmptyAdvice {
    before(): (execution(* *(..)) || execution(*.new(..))) && !within(EmptyAdvice) {
    }
}
