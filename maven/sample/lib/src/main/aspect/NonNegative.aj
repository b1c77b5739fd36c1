// The library's own check: no operation of Inventory takes a negative count.
public aspect NonNegative {
    before(int n): execution(* sample.lib.Inventory.*(String, int)) && args(*, n) {
        if (n < 0) {
            throw new IllegalArgumentException("negative count: " + n);
        }
    }
}
