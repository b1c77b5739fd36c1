import app.Service;
import util.Helper;

public class Main {
    public static void main(String[] args) {
        System.out.println(new Service().run(3));
        System.out.println(Helper.twice("x"));
        System.out.println(Helper.inner().value());
    }
}
