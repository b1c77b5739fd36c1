package sample.app;

public class Main {
    public static void main(String[] args) {
        Shop shop = new Shop();
        shop.deliver("apple", 5);
        shop.deliver("pear", 2);
        int paid = shop.sell("apple", 4);
        System.out.println("paid " + paid + " cents, " + shop.left("apple") + " apple(s) left");
    }
}
