package sample.lib;

// A test aspect, woven into target/test-classes by the goal test-weave.
public aspect Doubling {
    int around(): execution(int sample.lib.InventoryTest.answer()) {
        return proceed() * 2;
    }
}
