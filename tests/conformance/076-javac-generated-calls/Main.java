import java.util.ArrayList;
import java.util.List;

public class Main {
    static String classify(String s) {
        switch (s) {
            case "apple":
                return "fruit";
            case "carrot":
                return "vegetable";
            default:
                return "unknown";
        }
    }

    public static void main(String[] args) {
        System.out.println(classify("carrot"));
        List<Integer> nums = new ArrayList<>();
        nums.add(5);
        int first = nums.get(0);
        Integer boxed = first + 1;
        long widened = boxed;
        System.out.println(first + " " + boxed + " " + widened);
        for (int n : nums) {
            System.out.println("n=" + n);
        }
    }
}
