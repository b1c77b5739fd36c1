import java.util.Arrays;

public class Main {
    static int[] data = {3, 1, 2};

    public static void main(String[] args) {
        int[] copy = data.clone();
        Arrays.sort(copy);
        Object o = copy;
        String[] words = {"b", "a"};
        String[] w2 = words.clone();
        System.out.println(Arrays.toString(copy) + " " + Arrays.toString(data) + " " + w2.length + " " + (o == copy));
    }
}
