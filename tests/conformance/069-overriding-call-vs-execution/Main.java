public class Main {
    static class Base {
        String who() {
            return "base";
        }

        String hello() {
            return "hello from " + who();
        }
    }

    static class Sub extends Base {
        @Override
        String who() {
            return "sub(" + super.who() + ")";
        }
    }

    static class SubSub extends Sub {
        String extra() {
            return "extra";
        }
    }

    public static void main(String[] args) {
        Base b = new Sub();
        Sub s = new Sub();
        SubSub ss = new SubSub();
        System.out.println(b.who());
        System.out.println(s.who());
        System.out.println(ss.who());
        System.out.println(ss.hello());
        System.out.println(ss.extra());
    }
}
