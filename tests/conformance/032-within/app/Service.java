package app;

import util.Helper;

public class Service {
    public int run(int n) {
        return Helper.square(n) + 1;
    }
}
