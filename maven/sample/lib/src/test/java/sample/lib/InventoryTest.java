package sample.lib;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

public class InventoryTest {
    @Test
    public void addsAndRemoves() {
        Inventory inv = new Inventory();
        inv.add("apple", 3);
        inv.remove("apple", 1);
        assertEquals(2, inv.count("apple"));
    }

    static int answer() {
        return 21;
    }

    /** Passes only on woven test classes: the test aspect Doubling doubles the answer. */
    @Test
    public void testClassesAreWoven() {
        assertEquals(42, answer());
    }

    /** Passes only on woven classes: the check is the aspect NonNegative's. */
    @Test
    public void negativeCountsAreRefusedByTheAspect() {
        Inventory inv = new Inventory();
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> inv.add("apple", -1));
        assertEquals("negative count: -1", e.getMessage());
    }
}
