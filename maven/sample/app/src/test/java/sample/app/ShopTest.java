package sample.app;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class ShopTest {
    /** Passes only on woven classes: the discount is the aspect Discount's. */
    @Test
    public void pricesAreDiscounted() {
        Shop shop = new Shop();
        shop.deliver("apple", 5);
        assertEquals(360, shop.sell("apple", 4));
        assertEquals(1, shop.left("apple"));
    }

    /** Passes only on woven classes: Audit counts the inventory changes. */
    @Test
    public void changesAreAudited() {
        int before = Audit.aspectOf().changes();
        Shop shop = new Shop();
        shop.deliver("pear", 2);
        shop.sell("pear", 1);
        assertEquals(before + 2, Audit.aspectOf().changes());
    }
}
